import { SbevalError } from '../../core/errors.js';
import type { ScoreWarning } from '../../scoring/score/checks.js';
import type { RuleSetName } from '../../scoring/score/rules.js';
import type { WinnerDecision } from '../../scoring/score/winner.js';
import { resolveSettings, type Settings, type SettingsFlags } from '../config/index.js';
import { resultDir } from '../layout/competition.js';
import type { ResultContributor } from '../result/contributors.js';
import { scoreSettingsRecord, writeResults } from '../result/step.js';
import { type RankedRow, type ReadFolder, readScoreFolder, type Scored, type ScoreStageOptions } from './score.js';
import type { UncertaintyOutcome } from './uncertainty.js';

/** The score stage as `sbeval score` and library callers run it: scoring (score.ts), then its reports (score-report.ts). */
export interface ScoreStageResult {
  rules: RuleSetName;
  resultDir: string;
  /** Every file written, absolute paths. */
  files: string[];
  warnings: ScoreWarning[];
  winners: WinnerDecision;
  ranking: RankedRow[];
  competitionScore: string;
  /** 2025: the model folders scored. */
  models?: string[];
  logFiles: string[];
  /** The bootstrap: done (its sentence), off, or unavailable (T = 1), with the message the command prints. */
  uncertainty: { status: UncertaintyOutcome['status']; message: string };
}

/** What `sbeval score` and library callers get: the scored folder with its reports written. */
export function stageResult(scored: Scored, reportFiles: readonly string[]): ScoreStageResult {
  return {
    rules: scored.rules.name,
    resultDir: resultDir(scored.dir),
    files: [...scored.files, ...reportFiles],
    warnings: scored.warnings,
    winners: scored.winners,
    ranking: scored.ranking,
    competitionScore: scored.competitionScore,
    ...(scored.models ? { models: scored.models.map((m) => m.folder) } : {}),
    logFiles: scored.logFiles,
    uncertainty: { status: scored.uncertainty.status, message: scored.uncertainty.message },
  };
}

/**
 * `sbeval score`'s one step: `result/` through the one writer `sbeval run` uses too (result/step.ts), so
 * both leave the same files (every trial's accounting, the official files and the report with the same
 * sections and settings rows when the folder supports a ranking, the manifest). `read`: the folder as
 * `readScoreFolder` read it from these options, ahead (its bootstrap stops when the step ends).
 */
export async function scoreResults(
  settings: Settings,
  options: ScoreStageOptions,
  contributors: readonly ResultContributor[],
  read: ReadFolder = readScoreFolder(options),
): ReturnType<typeof writeResults> {
  try {
    return await writeResults({
      settings,
      contributors,
      command: 'score',
      // The simulation settings decide whether the levels can be scored (result/readiness.ts): recorded, `check` names them.
      record: {
        ...scoreSettingsRecord({ ...options, trials: settings.trials, eol: settings.eol }),
        engine: settings.engine,
        simulationTrials: settings.simulationTrials,
        damage: settings.damage,
      },
      options,
      // --robustness N: each folder's knife-edge table from the cached runs, as run writes it.
      ...(options.physics ? { robustness: { runs: options.physics.runs, levels: options.physics.levels } } : {}),
      read,
    });
  } finally {
    // A folder the check blocked is not scored: its bootstrap stops.
    read.cancel();
  }
}

/** The settings `sbeval score` resolves for the folder (its sbeval.config.yaml), with what the options set instead of flags. */
function settingsFor(options: ScoreStageOptions): Settings {
  const flags: SettingsFlags = {
    rules: options.rules,
    ...(options.trials !== undefined ? { trials: options.trials } : {}),
    ...(options.eol !== undefined ? { eol: options.eol === '\r\n' ? 'crlf' : 'lf' } : {}),
    ...(options.models !== undefined ? { models: options.models } : {}),
    ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
    ...(options.uncertainty
      ? { uncertainty: options.uncertainty.enabled ? 'on' : 'off', resamples: options.uncertainty.resamples, uncertaintySeed: options.uncertainty.seed }
      : {}),
  };
  const settings = resolveSettings(options.root, flags);
  return options.letters ? { ...settings, competitionLetters: [...options.letters] } : settings;
}

/**
 * `sbeval score` for library callers: the folder's settings as the command resolves them (its
 * sbeval.config.yaml; the options' rules, T, line ends, model names, drop function, letters and
 * bootstrap instead of flags), then the same one writer of `result/` (`scoreResults`): every trial's
 * accounting (`trials.csv`, `failures.md`), the official files, the report with the command's sections
 * and settings rows (`options.sections` after them) and `result/manifest.json`, which `sbeval check`
 * and `checkResults` compare with the folder. `contributors`: what the tools above the evaluator add
 * (pass the package's `LLM_RESULT_CONTRIBUTORS` for the judges' and the survey's part, as `sbeval score`
 * does). A folder that cannot be ranked as it is (result/readiness.ts) throws an `SbevalError` naming
 * why; the score files of an earlier state are then removed, as the command removes them.
 */
export async function runScoreStage(options: ScoreStageOptions, contributors: readonly ResultContributor[] = []): Promise<ScoreStageResult> {
  const settings = settingsFor(options);
  const resolved: ScoreStageOptions = { ...options, rules: settings.rules, trials: settings.trials, eol: settings.eol, uncertainty: settings.uncertainty };
  const outcome = await scoreResults(settings, resolved, contributors);
  const scored = outcome.scored;
  if (!scored || outcome.status === 'blocked') {
    const reason = outcome.manifest.score.written ? 'nothing to score' : outcome.manifest.score.reason;
    const removed = outcome.removed.length > 0 ? `; removed ${outcome.removed.join(', ')}, which described an earlier state of the folder` : '';
    throw new SbevalError('input', `${options.root} cannot be scored as it is: ${reason}${removed}`, 'run the stages the reason names, then score again');
  }
  const result = stageResult(
    scored,
    outcome.files.filter((f) => !scored.files.includes(f)),
  );
  return { ...result, warnings: [...result.warnings, ...outcome.reportWarnings, ...outcome.accountingWarnings] };
}
