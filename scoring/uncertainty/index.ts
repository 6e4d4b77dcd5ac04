/**
 * How sure is the ranking: a seeded bootstrap over trials (and, with `--robustness N`, over the
 * physics) that applies the official scoring to every resample. Pure: data in, data out; reading the
 * folder and writing `result/` is orchestrator/stages/uncertainty.ts's job. Method: docs/uncertainty.md.
 */

export type { BootstrapResult, Rankings, SampleOptions } from './bootstrap.js';
export { finishBootstrap, runBootstrap, storedPerResample } from './bootstrap.js';
export { INTERVALS_FILE, intervalsCsv, RANK_PROBABILITIES_FILE, rankProbabilitiesCsv } from './csv.js';
export type { UncertaintyModel } from './model.js';
export { buildModel } from './model.js';
export { Xoshiro128 } from './random.js';
export type { SectionContext } from './report.js';
export { uncertaintySection, withIntervals } from './report.js';
export type { Draws } from './resample.js';
export type { OfficialRow, UncertaintySummary } from './summary.js';
export { summarize } from './summary.js';
