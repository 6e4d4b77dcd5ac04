export { breakdown, failureSection, type TeamBreakdown, TRIAL_COLUMNS, type TrialRow, trialsCsv } from './accounting.js';
export { planLevels } from './levels.js';
export { type GenerateStage, MODEL_HINT, type RunOptions, type RunReport, type RunStageReport, runCompetition } from './run.js';
export { RunLog } from './run-log.js';
export { isUnfinished, unfinishedLines } from './unfinished.js';
