/**
 * How sure is the ranking: a seeded bootstrap over trials (and, with `--robustness N`, over the
 * physics) that applies the official scoring to every resample. Pure: data in, data out; reading the
 * folder and writing `result/` is orchestrator/stages/uncertainty.ts's job. Method: docs/uncertainty.md.
 */
export { buildModel } from './model.js';
export type { CompetitionData, ModelOptions, PhysicsLookup, UncertaintyModel } from './model.js';
export { drawResample, scoreResample } from './resample.js';
export type { Draws, ResampleScores } from './resample.js';
export { runBootstrap, sampleBootstrap, finishBootstrap, storedPerResample } from './bootstrap.js';
export type { BootstrapOptions, BootstrapResult, PairOutcome, RankingRules, Rankings, SampleOptions, Samples } from './bootstrap.js';
export { summarize, winnerSentence, percent, quantile, CLEAR_WINNER, INTERVAL_LEVEL } from './summary.js';
export type { OfficialRow, PairSummary, TeamUncertainty, UncertaintySummary } from './summary.js';
export { intervalsCsv, rankProbabilitiesCsv, INTERVALS_FILE, RANK_PROBABILITIES_FILE, INTERVAL_COLUMNS, RANK_COLUMNS } from './csv.js';
export { uncertaintySection, withIntervals, rankHeatMap, pairLettersText } from './report.js';
export type { SectionContext } from './report.js';
export { Xoshiro128 } from './random.js';
