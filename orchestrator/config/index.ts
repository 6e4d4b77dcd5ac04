export { CONFIG_FILES, loadConfigFile, parseConfigText } from './load.js';
export { configSchema, ENGINES, type EngineKind, keyChoices, limitsSchema, RULES, type Rules, submissionSchema } from './schema.js';
export {
  type CompetitionFolder,
  checkRootForCommand,
  DEFAULTS,
  type ResolvedSubmission,
  type ResolveOptions,
  type RunConfig,
  type RunFlags,
  resolveSettings,
  type Settings,
  type SettingsCommand,
  type SettingsFlags,
  settingsLine,
  settingsRecord,
  stageFilter,
} from './settings.js';
