export { configSchema, submissionSchema, limitsSchema, RULES, ENGINES, type ConfigFile, type SubmissionConfig, type Rules, type EngineKind } from './schema.js';
export { loadConfigFile, parseConfigText, describeIssue, CONFIG_FILES, type LoadedConfig } from './load.js';
export { resolveRunConfig, pathInsideRoot, functionPrefix, DEFAULTS, type RunConfig, type RunFlags, type RunLimits, type ResolvedSubmission, type Source } from './resolve.js';
