export { runCompetition, MODEL_HINT, type RunOptions, type RunReport, type RunStageReport, type StageStatus } from './run.js';
export type { RunContext } from './context.js';
export { RunLog, type RunLogRecord } from './run-log.js';
export { planLevels, charactersFound, type PlannedLevel, type LevelPaths } from './levels.js';
export { createRunEffects, readValidCache, tracePath, type RunEffects, type RunEffectsOptions, type CachedLevel } from './effects.js';
export { trialsCsv, trialRow, sortRows, breakdown, failureSection, TRIAL_COLUMNS, type TrialRow, type TeamBreakdown } from './accounting.js';
export { unfinishedWork, unfinishedLines, isUnfinished, type UnfinishedWork } from './unfinished.js';
