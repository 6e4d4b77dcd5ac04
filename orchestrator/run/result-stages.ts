import { join } from 'node:path';
import type { Settings } from '../config/index.js';
import { recordedModelText } from '../report/settings.js';
import { scoreSettingsRecord, writeResults } from '../result/step.js';
import type { Scored } from '../stages/score.js';
import type { RunContext } from './context.js';

/**
 * The last stages of `sbeval run`: the one step that writes `result/` (orchestrator/result/step.ts) —
 * every trial's fate (`result/trials.csv`, `result/failures.md`), then, when the folder as it is supports
 * a ranking, the official score files and the report; the manifest after them — with the run's own
 * outcomes (why a level it worked on is not done) and warnings (listed in the report). When nothing the
 * step would write has changed since the last results, it writes nothing.
 */

/** What the manifest records of a run's settings: the score's, then the stages' before it (no paths). */
function runSettingsRecord(settings: Settings): Record<string, unknown> {
  return {
    ...scoreSettingsRecord({
      rules: settings.rules,
      trials: settings.trials,
      eol: settings.eol,
      models: settings.models.length > 1 ? settings.models.map((m) => m.name) : [],
    }),
    letters: settings.competitionLetters ?? null,
    prefix: settings.prefix,
    engine: settings.engine,
    simulationTrials: settings.simulationTrials,
    damage: settings.damage,
    robustness: settings.robustness ?? null,
  };
}

/** trials.csv, failures.md, and the score files with the report when the folder supports them; the manifest last. */
export async function resultsStage(ctx: RunContext): Promise<void> {
  const { settings, report } = ctx;
  const robustness = settings.robustness !== undefined ? { runs: settings.robustness, levels: ctx.robustness } : undefined;
  const outcome = await writeResults({
    settings,
    contributors: ctx.options.contributors ?? [],
    command: 'run',
    record: runSettingsRecord(settings),
    options: {
      root: settings.root,
      rules: settings.rules,
      trials: settings.trials,
      eol: settings.eol,
      ...(settings.models.length > 1 ? { models: settings.models.map((m) => m.name) } : {}),
      progress: ctx.progress,
      uncertainty: settings.uncertainty,
      // With --robustness N the bootstrap also draws each level's stability from its perturbed runs.
      ...(robustness ? { physics: { runs: robustness.runs, simulationTrials: settings.simulationTrials, levels: robustness.levels } } : {}),
    },
    ...(robustness ? { robustness } : {}),
    // Without --robustness, a table of an earlier run does not stay beside these results.
    dropTables: true,
    outcomes: ctx.outcomes,
    warnings: () => report.warnings,
    onScoring: () => ctx.log.write({ type: 'stage-start', stage: 'score' }),
  });
  report.trials = outcome.trials;
  for (const w of outcome.accountingWarnings) ctx.progress.note('accounting', w.message.replace(/^accounting: /, ''));
  report.warnings = [...outcome.accountingWarnings, ...report.warnings];
  ctx.record({ stage: 'accounting', status: 'done', detail: `${report.trials.length} trials in result/trials.csv and result/failures.md` });
  report.scored = outcome.status !== 'blocked';
  const removed =
    outcome.removed.length > 0
      ? `; removed ${outcome.removed.length} result file(s) of an earlier state (${outcome.removed.slice(0, 3).join(', ')}${outcome.removed.length > 3 ? ', …' : ''})`
      : '';
  if (outcome.status === 'unchanged') {
    ctx.record({ stage: 'score', status: 'skipped', detail: 'up to date: nothing the results were computed from has changed (result/manifest.json)' });
  } else if (outcome.status === 'blocked') {
    const reason = outcome.manifest.score.written ? '' : outcome.manifest.score.reason;
    ctx.record(
      { stage: 'score', status: 'unavailable', detail: `not written, the folder cannot be scored as it is: ${reason}${removed}` },
      { blockers: outcome.blockers.length },
    );
  } else {
    const scored = outcome.scored as Scored;
    ctx.report.ranking = scored.ranking;
    ctx.report.winners = scored.winners;
    ctx.report.similarityModel = recordedModelText(outcome.manifest.identity.similarityModel);
    // Printed where they arise; the report lists them with the run's own.
    for (const w of scored.warnings)
      ctx.progress.note('score', `warning [${w.code}] ${w.file && !w.message.includes(w.file) ? `${w.file}: ` : ''}${w.message}`);
    for (const w of outcome.reportWarnings) ctx.progress.note('report', `warning [${w.code}] ${w.message}`);
    const runWarnings = report.warnings.length;
    report.warnings = [...scored.warnings, ...outcome.reportWarnings, ...report.warnings];
    ctx.record({
      stage: 'score',
      status: 'done',
      detail: `competition score ${scored.competitionScore}; ${scored.warnings.length} warning(s); ${join(settings.root, 'result')}${removed}`,
    });
    // The ranking's uncertainty: its sentence, or why there are no intervals (stages/uncertainty.ts).
    const uncertainty = scored.uncertainty;
    ctx.record({
      stage: 'uncertainty',
      status: uncertainty.status === 'done' ? 'done' : uncertainty.status === 'off' ? 'skipped' : 'unavailable',
      detail: uncertainty.message,
    });
    const reportFiles = outcome.files.length - scored.files.length;
    ctx.record({
      stage: 'report',
      status: 'done',
      detail: `${reportFiles} file(s); ${scored.warnings.length + outcome.reportWarnings.length + runWarnings} warning(s) listed`,
    });
  }
}
