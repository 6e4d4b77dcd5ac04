export { levelMachine } from './machine.js';
export { createLevelActors, type LevelEffects } from './actors.js';
export { provideLevelMachine, startLevel } from './start.js';
export { evaluateLevel, type LevelEvaluation, type LevelEvaluationOptions } from './evaluate.js';
export { runPoolTrial, traceOfTrialOne, type TrialSettings } from './pool-trial.js';
export { trialEffects } from './trial-effects.js';
export { asTrialStability } from './trials.js';
export type * from './types.js';
