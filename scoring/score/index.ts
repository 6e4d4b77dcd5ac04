/**
 * Official weights, scores and ranks with exact decimals (pure functions; reading files is the
 * score stage's job, orchestrator/stages/score.ts).
 */
export { Decimal, decimalOf, plain } from './decimal.js';
export { RULE_SETS, CHARACTERS, DEFAULT_TRIALS, isRuleSetName } from './rules.js';
export type { RuleSet, RuleSetName } from './rules.js';
export { computeWeights, scoreCompetition, rankTeams, normalize } from './compute.js';
export type { RankingOptions } from './compute.js';
export { aggregateModels } from './aggregate.js';
export type { AggregateEntry, AggregateResult, ModelScores } from './aggregate.js';
export { decideWinners } from './winner.js';
export type { WinnerDecision, WinnerOptions } from './winner.js';
export { checkInputs } from './checks.js';
export type { ScoreWarning, WarningCode } from './checks.js';
export { toCsv, trialScoresCsv, characterScoresCsv, promptScoresRanksCsv, constantsJson } from './outputs.js';
export type { Eol, CsvCell } from './outputs.js';
export type * from './types.js';
