import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSimilarityJson } from '../../scoring/formats/similarity.js';
import type { ReportSection } from '../../scoring/report/build.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { listFiles, resultDir, stageDir, trialBaseName } from '../layout/competition.js';
import { judgesReportSection } from '../judges/report.js';
import { runSettingsFacts } from '../report/settings.js';
import { writeScoreReports } from '../stages/score-report.js';
import { scoreCompetitionFolder, type Scored } from '../stages/score.js';
import { failureSection, sortRows, trialRow, trialsCsv, type SimilarityLookup } from './accounting.js';
import type { RunContext } from './context.js';
import { robustnessSection } from './robustness-report.js';
import { robustnessLookup } from './robustness-stage.js';

/**
 * The last stages of `sbeval run`: every trial's fate (`result/trials.csv`, `result/failures.md`), the
 * official score files, and — built last, from what the stages returned — the report.
 */

/** Every trial's fate; returns the report section it makes. */
export async function accountingStage(ctx: RunContext): Promise<ReportSection> {
  const { settings, report } = ctx;
  const lookups = new Map(settings.competitions.map((c) => [c.model ?? '', similarityLookup(c.root, settings.model !== undefined)]));
  // With --robustness N, each level's perturbed runs and fragile flag (robustness-stage.ts).
  const robustness = robustnessLookup(ctx.robustness);
  report.trials = sortRows(ctx.outcomes.map((o) => ({ ...trialRow(o, lookups.get(o.level.model ?? '')), robustness: robustness(o.level) })));
  await writeFileAtomic(report.trialsCsv, trialsCsv(report.trials, { robustness: settings.robustness !== undefined }));
  const section = failureSection(report.trials);
  await writeFileAtomic(join(resultDir(settings.root), 'failures.md'), `## ${section.title}\n\n${section.markdown}\n`);
  ctx.record({ stage: 'accounting', status: 'done', detail: `${report.trials.length} trials in result/trials.csv and result/failures.md` });
  return section;
}

/** The official score files (the score command's stage with the run's settings); none without similarity. */
export async function scoreStage(ctx: RunContext): Promise<Scored | undefined> {
  const { settings } = ctx;
  if (settings.model === undefined) {
    ctx.record({ stage: 'score', status: 'unavailable', detail: 'needs similarity: result/ holds trials.csv and failures.md only' });
    return undefined;
  }
  ctx.log.write({ type: 'stage-start', stage: 'score' });
  const scored = await scoreCompetitionFolder({
    root: settings.root,
    rules: settings.rules,
    trials: settings.trials,
    eol: settings.eol,
    ...(settings.models.length > 1 ? { models: settings.models.map((m) => m.name) } : {}),
    progress: ctx.progress,
    uncertainty: settings.uncertainty,
    // With --robustness N the bootstrap also draws each level's stability from its perturbed runs.
    ...(settings.robustness !== undefined ? { physics: { runs: settings.robustness, simulationTrials: settings.simulationTrials, levels: ctx.robustness } } : {}),
  });
  // Printed where they arise; the report lists them with the run's own.
  for (const w of scored.warnings) ctx.progress.note('score', `warning [${w.code}] ${w.file && !w.message.includes(w.file) ? `${w.file}: ` : ''}${w.message}`);
  ctx.record({ stage: 'score', status: 'done', detail: `competition score ${scored.competitionScore}; ${scored.warnings.length} warning(s); ${resultDir(settings.root)}` });
  // The ranking's uncertainty: its sentence, or why there are no intervals (stages/uncertainty.ts).
  ctx.record({ stage: 'uncertainty', status: scored.uncertainty.status === 'done' ? 'done' : scored.uncertainty.status === 'off' ? 'skipped' : 'unavailable', detail: scored.uncertainty.message });
  return scored;
}

/**
 * The report, last, from what the stages returned: the score's content, every trial's fate (the
 * gallery), the failure accounting, the knife-edge verdicts (`--robustness N`), the judges (when the
 * folder holds their results), the settings of every stage, and every warning of the run.
 */
export async function reportStage(ctx: RunContext, scored: Scored | undefined, accounting: ReportSection): Promise<void> {
  if (!scored) return;
  const { settings } = ctx;
  const judges = judgesReportSection(settings.root, { rules: settings.rules, trials: settings.trials });
  const written = await writeScoreReports(scored, {
    sections: [accounting, ...(settings.robustness !== undefined ? [robustnessSection(ctx.robustness, settings.robustness)] : []), ...(judges ? [judges] : [])],
    trialFates: ctx.report.trials,
    settings: await runSettingsFacts(settings),
    warnings: ctx.report.warnings,
  });
  for (const w of written.warnings) ctx.progress.note('report', `warning [${w.code}] ${w.message}`);
  ctx.report.warnings = [...scored.warnings, ...written.warnings, ...ctx.report.warnings];
  ctx.record({ stage: 'report', status: 'done', detail: `${written.files.length} file(s); ${ctx.report.warnings.length} warning(s) listed` });
}

/** Similarity per trial from `<team>/similarity/<C>.json` (ids are image file names); undefined without a model. */
function similarityLookup(root: string, available: boolean): SimilarityLookup {
  if (!available) return undefined;
  const cache = new Map<string, Map<string, number>>();
  return (team, character, base) => {
    const key = `${team}/${character}`;
    let byBase = cache.get(key);
    if (!byBase) {
      byBase = new Map();
      const file = join(stageDir(root, team, 'similarity'), `${character}.json`);
      if (existsSync(file) && listFiles(stageDir(root, team, 'similarity')).includes(`${character}.json`)) {
        try {
          for (const t of parseSimilarityJson(readFileSync(file, 'utf8'), file).trials) byBase.set(trialBaseName(t.id), t.similarity);
        } catch {
          // An unreadable file leaves the column empty; the score stage reports the file.
        }
      }
      cache.set(key, byBase);
    }
    return byBase.get(base);
  };
}
