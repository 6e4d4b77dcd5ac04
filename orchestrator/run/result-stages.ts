import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSimilarityJson } from '../../scoring/formats/similarity.js';
import type { ReportSection } from '../../scoring/report/build.js';
import type { Settings } from '../config/index.js';
import { listFiles, stageDir, trialBaseName } from '../layout/competition.js';
import { contributedSections } from '../result/contributors.js';
import { runSettingsFacts } from '../report/settings.js';
import { similarityIsCurrent } from '../result/readiness.js';
import { scoreSettingsRecord, writeResults } from '../result/step.js';
import { robustnessTables } from '../stages/robustness.js';
import { writeScoreReports } from '../stages/score-report.js';
import { simulationIdentity } from '../stages/level-cache.js';
import { assertReadAsRecorded, readScoreFolder, type Scored } from '../stages/score.js';
import { failureSection, sortRows, trialRow, trialsCsv, type SimilarityLookup } from './accounting.js';
import type { RunContext } from './context.js';
import { robustnessSection } from './robustness-report.js';
import { robustnessLookup } from './robustness-stage.js';

/**
 * The last stages of `sbeval run`, one step that writes `result/` (orchestrator/result/step.ts): every
 * trial's fate (`result/trials.csv`, `result/failures.md`), then — when the folder as it is supports a
 * ranking — the official score files and, built last from what the stages returned, the report; the
 * manifest after them. When nothing the step would write has changed since the last results, it writes
 * nothing.
 */
interface Accounting {
  section: ReportSection;
  /** `trials.csv` and `failures.md`, by name. */
  files: Map<string, string>;
}

/** Every trial's fate, as rows and as the two files. */
export function accountingStage(ctx: RunContext): Accounting {
  const { settings, report } = ctx;
  const lookups = new Map(settings.competitions.map((c) => [c.model ?? '', similarityLookup(c.root, settings)]));
  // With --robustness N, each level's perturbed runs and fragile flag (robustness-stage.ts).
  const robustness = robustnessLookup(ctx.robustness);
  report.trials = sortRows(ctx.outcomes.map((o) => ({ ...trialRow(o, lookups.get(o.level.model ?? '')), robustness: robustness(o.level) })));
  const section = failureSection(report.trials);
  const files = new Map([
    ['trials.csv', trialsCsv(report.trials, { robustness: settings.robustness !== undefined })],
    ['failures.md', `## ${section.title}\n\n${section.markdown}\n`],
  ]);
  return { section, files };
}

/** What the manifest records of a run's settings: the score's, then the stages' before it (no paths). */
function runSettingsRecord(settings: Settings): Record<string, unknown> {
  return {
    ...scoreSettingsRecord({ rules: settings.rules, trials: settings.trials, eol: settings.eol, models: settings.models.length > 1 ? settings.models.map((m) => m.name) : [] }),
    letters: settings.competitionLetters ?? null,
    prefix: settings.prefix,
    engine: settings.engine,
    simulationTrials: settings.simulationTrials,
    damage: settings.damage,
    robustness: settings.robustness ?? null,
  };
}

/** trials.csv, failures.md, and the score files with the report when the folder supports them; the manifest last. */
export async function resultsStage(ctx: RunContext, accounting: Accounting): Promise<void> {
  const { settings, report } = ctx;
  let scoreDetail = '';
  let reportDetail = '';
  let uncertainty: Scored['uncertainty'] | undefined;
  const outcome = await writeResults({
    root: settings.root,
    competitions: settings.competitions.map((c) => c.root),
    configFile: settings.configFile,
    contributors: ctx.options.contributors ?? [],
    command: 'run',
    settings: runSettingsRecord(settings),
    readiness: { letters: settings.competitionLetters, prefix: settings.prefix, rules: settings.rules, trials: settings.trials, simulation: simulationIdentity(settings) },
    accounting: accounting.files,
    // With --robustness N, each folder's knife-edge table; without, none (one of an earlier run goes).
    robustness: settings.robustness !== undefined ? robustnessTables(settings.competitions, ctx.robustness) : new Map(),
    score: async (basis) => {
      ctx.log.write({ type: 'stage-start', stage: 'score' });
      const read = readScoreFolder({
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
      // Read after the manifest was made: a file written meanwhile by another process stops the score.
      assertReadAsRecorded(read, settings.root, basis.inputs);
      const scored = await read.score();
      uncertainty = scored.uncertainty;
      ctx.report.ranking = scored.ranking;
      ctx.report.winners = scored.winners;
      // Printed where they arise; the report lists them with the run's own.
      for (const w of scored.warnings) ctx.progress.note('score', `warning [${w.code}] ${w.file && !w.message.includes(w.file) ? `${w.file}: ` : ''}${w.message}`);
      scoreDetail = `competition score ${scored.competitionScore}; ${scored.warnings.length} warning(s); ${join(settings.root, 'result')}`;
      // The report, last, from what the stages returned: the score's content, every trial's fate (the
      // gallery), the failure accounting, the knife-edge verdicts (`--robustness N`), the judges (when the
      // folder holds their results), the settings of every stage, and every warning of the run.
      const written = await writeScoreReports(scored, {
        sections: [accounting.section, ...(settings.robustness !== undefined ? [robustnessSection(ctx.robustness, settings.robustness)] : []), ...contributedSections(ctx.options.contributors ?? [], settings.root, { rules: settings.rules, trials: settings.trials })],
        trialFates: report.trials,
        settings: runSettingsFacts(settings, basis.identity.similarityModel),
        warnings: report.warnings,
        // The competition's letters (the config's), never a --chars subset: the report describes the folder.
        ...(settings.competitionLetters ? { letters: settings.competitionLetters } : {}),
      });
      for (const w of written.warnings) ctx.progress.note('report', `warning [${w.code}] ${w.message}`);
      report.warnings = [...scored.warnings, ...written.warnings, ...report.warnings];
      reportDetail = `${written.files.length} file(s); ${report.warnings.length} warning(s) listed`;
      return [...scored.files, ...written.files];
    },
  });
  ctx.record({ stage: 'accounting', status: 'done', detail: `${report.trials.length} trials in result/trials.csv and result/failures.md` });
  report.scored = outcome.status !== 'blocked';
  const removed = outcome.removed.length > 0 ? `; removed ${outcome.removed.length} result file(s) of an earlier state (${outcome.removed.slice(0, 3).join(', ')}${outcome.removed.length > 3 ? ', …' : ''})` : '';
  if (outcome.status === 'unchanged') {
    ctx.record({ stage: 'score', status: 'skipped', detail: 'up to date: nothing the results were computed from has changed (result/manifest.json)' });
  } else if (outcome.status === 'blocked') {
    const reason = outcome.manifest.score.written ? '' : outcome.manifest.score.reason;
    ctx.record({ stage: 'score', status: 'unavailable', detail: `not written, the folder cannot be scored as it is: ${reason}${removed}` }, { blockers: outcome.blockers.length });
  } else {
    ctx.record({ stage: 'score', status: 'done', detail: `${scoreDetail}${removed}` });
    // The ranking's uncertainty: its sentence, or why there are no intervals (stages/uncertainty.ts).
    if (uncertainty) ctx.record({ stage: 'uncertainty', status: uncertainty.status === 'done' ? 'done' : uncertainty.status === 'off' ? 'skipped' : 'unavailable', detail: uncertainty.message });
    ctx.record({ stage: 'report', status: 'done', detail: reportDetail });
  }
}

/**
 * Similarity per trial from `<team>/similarity/<C>.json` (ids are image file names) when the file is
 * current for the letter's images (result/readiness.ts); null for a letter without a current file.
 */
function similarityLookup(root: string, settings: Settings): SimilarityLookup {
  const cache = new Map<string, Map<string, number> | null>();
  const options = { prefix: settings.prefix, rules: settings.rules, trials: settings.trials };
  return (team, character, base) => {
    const key = `${team}/${character}`;
    let byBase = cache.get(key);
    if (byBase === undefined) {
      byBase = null;
      const file = join(stageDir(root, team, 'similarity'), `${character}.json`);
      if (existsSync(file) && listFiles(stageDir(root, team, 'similarity')).includes(`${character}.json`) && similarityIsCurrent(root, team, character, options)) {
        byBase = new Map();
        try {
          for (const t of parseSimilarityJson(readFileSync(file, 'utf8'), file).trials) byBase.set(trialBaseName(t.id), t.similarity);
        } catch {
          // An unreadable file leaves the column empty; the score stage reports the file.
        }
      }
      cache.set(key, byBase);
    }
    return byBase === null ? null : byBase.get(base);
  };
}
