/**
 * How sure is the ranking: a seeded bootstrap over trials (and, with `--robustness N`, over the
 * physics) that applies the official scoring to every resample. Pure: data in, data out; reading the
 * folder and writing `result/` is orchestrator/stages/uncertainty.ts's job. Method: docs/uncertainty.md.
 */
export { buildModel } from './model.js';
export type { UncertaintyModel } from './model.js';
export type { Draws } from './resample.js';
export { runBootstrap, finishBootstrap, storedPerResample } from './bootstrap.js';
export type { BootstrapResult, Rankings, SampleOptions } from './bootstrap.js';
export { summarize } from './summary.js';
export type { OfficialRow, UncertaintySummary } from './summary.js';
export { intervalsCsv, rankProbabilitiesCsv, INTERVALS_FILE, RANK_PROBABILITIES_FILE } from './csv.js';
export { uncertaintySection, withIntervals } from './report.js';
export type { SectionContext } from './report.js';
export { Xoshiro128 } from './random.js';
