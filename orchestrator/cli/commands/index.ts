import type { Command } from 'commander';
import { registerLevelsCommands } from './levels.js';
import { registerSimulateCommands } from './simulate.js';
import { registerLevelCommand } from './level.js';
import { registerModelCommands } from './model.js';
import { registerSimilarityCommands } from './similarity.js';
import { registerGenerateCommands } from './generate.js';
import { registerScoreCommands } from './score.js';
import { registerViewCommands } from './view.js';
import { registerExplainCommands } from './explain.js';
import { registerVerifyCommands } from './verify.js';
import { registerEngineCommands } from './engine.js';
import { registerUnityCommands } from './unity.js';
import { registerRunCommands } from './run.js';
import { registerJudgeCommands } from './judge.js';
import { registerSurveyCommands } from './survey.js';
import { registerCheckCommands } from './check.js';

/**
 * Every command group registers itself here; one module per group keeps the CLI file small and lets
 * each stage own its flags and help text.
 */
type RegisterCommands = (program: Command) => void;

export const COMMANDS: RegisterCommands[] = [
  registerLevelsCommands,
  registerSimulateCommands,
  registerLevelCommand,
  registerModelCommands,
  registerSimilarityCommands,
  registerGenerateCommands,
  registerScoreCommands,
  registerViewCommands,
  registerExplainCommands,
  registerVerifyCommands,
  registerEngineCommands,
  registerUnityCommands,
  registerRunCommands,
  registerJudgeCommands,
  registerSurveyCommands,
  registerCheckCommands,
];
