import type { Command } from 'commander';
import type { CommandName } from './summaries.js';

/**
 * The command groups, one module each (a stage owns its flags and help text), and the top-level
 * commands each registers. A group's module loads only when one of its commands runs, or when the
 * whole command tree is asked for (cli/main.ts): `sbeval --help` loads none of them. A group may load
 * less for one of its subcommands: `sbeval unity doctor` loads the doctor and none of the other unity
 * commands.
 */
type RegisterCommands = (program: Command) => void;

interface CommandGroup {
  commands: readonly CommandName[];
  /** `subcommand`: the word after the command, when the program is built to run one command. */
  load(subcommand?: string): Promise<RegisterCommands>;
}

export const COMMAND_GROUPS: readonly CommandGroup[] = [
  { commands: ['extract', 'convert', 'qualify'], load: async () => (await import('./levels.js')).registerLevelsCommands },
  { commands: ['simulate'], load: async () => (await import('./simulate.js')).registerSimulateCommands },
  { commands: ['level'], load: async () => (await import('./level.js')).registerLevelCommand },
  { commands: ['model'], load: async () => (await import('./model.js')).registerModelCommands },
  { commands: ['similarity', 'diversity'], load: async () => (await import('./similarity.js')).registerSimilarityCommands },
  { commands: ['generate'], load: async () => (await import('./generate.js')).registerGenerateCommands },
  { commands: ['score'], load: async () => (await import('./score.js')).registerScoreCommands },
  { commands: ['view'], load: async () => (await import('./view.js')).registerViewCommands },
  { commands: ['play'], load: async () => (await import('./play.js')).registerPlayCommand },
  { commands: ['publish'], load: async () => (await import('./publish.js')).registerPublishCommand },
  { commands: ['explain'], load: async () => (await import('./explain.js')).registerExplainCommands },
  { commands: ['record', 'verify'], load: async () => (await import('./verify.js')).registerVerifyCommands },
  { commands: ['engine'], load: async () => (await import('./engine.js')).registerEngineCommands },
  {
    commands: ['unity'],
    load: async (subcommand) =>
      subcommand === 'doctor' ? (await import('./unity-doctor.js')).registerUnityDoctorOnly : (await import('./unity.js')).registerUnityCommands,
  },
  { commands: ['run'], load: async () => (await import('./run.js')).registerRunCommands },
  { commands: ['judge'], load: async () => (await import('./judge.js')).registerJudgeCommands },
  { commands: ['survey'], load: async () => (await import('./survey.js')).registerSurveyCommands },
  { commands: ['check'], load: async () => (await import('./check.js')).registerCheckCommands },
];
