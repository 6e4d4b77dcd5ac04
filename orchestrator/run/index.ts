export { runCompetition, MODEL_HINT, type GenerateStage, type RunOptions, type RunReport, type RunStageReport } from './run.js';
export { RunLog } from './run-log.js';
export { planLevels } from './levels.js';
export { trialsCsv, breakdown, failureSection, TRIAL_COLUMNS, type TrialRow, type TeamBreakdown } from './accounting.js';
export { unfinishedLines, isUnfinished } from './unfinished.js';
