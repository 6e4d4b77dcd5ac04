import { z } from 'zod';
import {
  checkRootForCommand as checkEvaluatorRoot,
  configSchema,
  loadConfigFile as loadEvaluatorConfig,
  parseConfigText as parseEvaluatorConfig,
  type ResolveOptions,
  resolveSettings as resolveEvaluatorSettings,
  type Settings,
  type SettingsFlags,
} from '../orchestrator/config/index.js';
import type { LoadedConfig } from '../orchestrator/config/load.js';
import { MODEL_APIS } from './model-calls/apis.js';

/**
 * The config file's one schema, as the CLI and the package check it: the evaluator's
 * (orchestrator/config/schema.ts) with what only the tooling above it knows, the model APIs of
 * llm/model-calls/apis.ts as the values of `api`. The flags are checked by the same schema
 * (orchestrator/config/settings.ts), and `--api` reads its choices from it (cli/settings-options.ts).
 */
export const CONFIG_SCHEMA = configSchema.extend({
  /** The API the hosts speak: Ollama's native one (default) or the OpenAI-style one (`…/v1/chat/completions`). */
  api: z.enum(MODEL_APIS).optional(),
});

/** What a config file holds once the whole schema has checked it. */
export type ConfigFile = z.infer<typeof CONFIG_SCHEMA>;

/** The one settings resolution (orchestrator/config/settings.ts) with the whole config schema. */
export function resolveSettings(root: string, flags: SettingsFlags = {}, options: Omit<ResolveOptions, 'schema'> = {}): Settings {
  return resolveEvaluatorSettings(root, flags, { ...options, schema: CONFIG_SCHEMA });
}

/** {@link resolveSettings} as the package API offers it (index.ts): the third argument is a config file already loaded. */
export function resolveRunConfig(root: string, flags: SettingsFlags = {}, loaded?: LoadedConfig): Settings {
  return resolveSettings(root, flags, loaded ? { loaded } : {});
}

/** The folder check before a command takes the root's lock (orchestrator/config/settings.ts), reading the config with the whole schema. */
export function checkRootForCommand(root: string, command: string, options: Omit<NonNullable<Parameters<typeof checkEvaluatorRoot>[2]>, 'schema'> = {}) {
  return checkEvaluatorRoot(root, command, { ...options, schema: CONFIG_SCHEMA });
}

/** A root's config file, checked by the whole schema; `{}` when there is none. */
export function loadConfigFile(root: string): LoadedConfig {
  return loadEvaluatorConfig(root, CONFIG_SCHEMA);
}

/** Config text, checked by the whole schema; errors name the file and the key. */
export function parseConfigText(text: string, file: string): ConfigFile {
  return parseEvaluatorConfig(text, file, CONFIG_SCHEMA) as ConfigFile;
}
