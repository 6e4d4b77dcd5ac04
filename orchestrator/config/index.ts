export { configSchema, limitsSchema, submissionSchema, keyChoices, RULES, ENGINES, type ConfigFile, type Rules, type EngineKind } from './schema.js';
export { loadConfigFile, parseConfigText, CONFIG_FILES } from './load.js';
export {
  resolveSettings,
  resolveRunConfig,
  checkRootForCommand,
  settingsLine,
  settingsRecord,
  stageFilter,
  DEFAULTS,
  type Settings,
  type SettingsCommand,
  type SettingsFlags,
  type CompetitionFolder,
  type RunConfig,
  type RunFlags,
  type ResolvedSubmission,
} from './settings.js';
