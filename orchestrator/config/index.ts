export { configSchema, submissionSchema, limitsSchema, RULES, ENGINES, type ConfigFile, type SubmissionConfig, type Rules, type EngineKind, type Source } from './schema.js';
export { loadConfigFile, parseConfigText, describeIssue, CONFIG_FILES, type LoadedConfig } from './load.js';
export {
  resolveSettings,
  resolveRunConfig,
  checkRootForCommand,
  settingsLine,
  settingsRecord,
  stageFilter,
  compactLetters,
  pathInsideRoot,
  functionPrefix,
  DEFAULTS,
  type Settings,
  type SettingsFlags,
  type ResolveOptions,
  type CompetitionFolder,
  type ModelSource,
  type Eol,
  type RunConfig,
  type RunFlags,
  type RunLimits,
  type ResolvedSubmission,
} from './settings.js';
