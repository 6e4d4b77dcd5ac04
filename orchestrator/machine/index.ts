export { createLevelActors, type LevelEffects } from './actors.js';
export { evaluateLevel, type LevelEvaluation, type LevelEvaluationOptions } from './evaluate.js';
export { levelMachine } from './machine.js';
export { runPoolTrial, type TrialSettings, traceOfTrialOne } from './pool-trial.js';
export { provideLevelMachine, startLevel } from './start.js';
export { trialEffects } from './trial-effects.js';
export { asTrialStability } from './trials.js';
export type * from './types.js';
