/**
 * Official weights, scores and ranks with exact decimals (pure functions; reading files is the
 * score stage's job, orchestrator/stages/score.ts).
 */

export type { AggregateEntry, AggregateResult, ModelScores } from './aggregate.js';
export { aggregateModels } from './aggregate.js';
export type { ScoreWarning, WarningCode } from './checks.js';
export { checkInputs } from './checks.js';
export type { RankingOptions } from './compute.js';
export { computeWeights, normalize, rankTeams, scoreCompetition } from './compute.js';
export { Decimal, decimalOf, plain } from './decimal.js';
export type { CsvCell, Eol } from './outputs.js';
export { characterScoresCsv, constantsJson, promptScoresRanksCsv, toCsv, trialScoresCsv } from './outputs.js';
export type { RuleSet, RuleSetName } from './rules.js';
export { CHARACTERS, DEFAULT_TRIALS, isRuleSetName, RULE_SETS } from './rules.js';
export type * from './types.js';
export type { WinnerDecision, WinnerOptions } from './winner.js';
export { decideWinners } from './winner.js';
