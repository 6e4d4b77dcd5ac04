import type { ScoreWarning } from '../../scoring/score/checks.js';
import type { RuleSetName } from '../../scoring/score/rules.js';
import type { WinnerDecision } from '../../scoring/score/winner.js';
import { resultDir } from '../layout/competition.js';
import { type RankedRow, type ReadFolder, readScoreFolder, type Scored, type ScoreStageOptions } from './score.js';
import { writeScoreReports } from './score-report.js';
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
 * The score stage: official files, then the reports (score-report.ts), whose warnings (unreadable
 * images) join the score's. `read`: the folder as `readScoreFolder` read it from these options, ahead.
 */
export async function runScoreStage(options: ScoreStageOptions, read: ReadFolder = readScoreFolder(options)): Promise<ScoreStageResult> {
  const scored = await read.score();
  const reports = await writeScoreReports(scored, { sections: options.sections ?? [] });
  const result = stageResult(scored, reports.files);
  return { ...result, warnings: [...result.warnings, ...reports.warnings] };
}
