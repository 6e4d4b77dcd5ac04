import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { SbevalError } from '../../core/errors.js';
import { configSchema, type ConfigFile } from './schema.js';

/** Looked up at the competition root, in this order; two at once is an error (which one would win?). */
export const CONFIG_FILES = ['sbeval.config.json', 'sbeval.config.yaml', 'sbeval.config.yml'] as const;

export interface LoadedConfig {
  file: string | undefined;
  config: ConfigFile;
}

/** The config file of a competition root, validated; `{}` when there is none. */
export function loadConfigFile(root: string): LoadedConfig {
  const present = CONFIG_FILES.map((name) => join(root, name)).filter((path) => existsSync(path));
  if (present.length > 1) {
    throw new SbevalError('config', `more than one config file at ${root}: ${present.map((p) => p.slice(root.length + 1)).join(', ')}`, 'keep one of them');
  }
  const file = present[0];
  if (!file) return { file: undefined, config: {} };
  return { file, config: parseConfigText(readFileSync(file, 'utf8'), file) };
}

/** Parses and validates config text; errors name the file and the key. */
export function parseConfigText(text: string, file: string): ConfigFile {
  let data: unknown;
  try {
    data = file.endsWith('.json') ? JSON.parse(text.replace(/^\uFEFF/, '')) : parseYaml(text);
  } catch (error) {
    throw new SbevalError('config', `${file}: not valid ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${(error as Error).message.split('\n')[0]}`);
  }
  if (data === null || data === undefined) return {};
  const result = configSchema.safeParse(data);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${describeIssue(issue)}`);
    throw new SbevalError('config', `${file}: ${lines.length === 1 ? 'invalid setting' : `${lines.length} invalid settings`}\n${lines.join('\n')}`, 'see `sbeval run --help` for every key');
  }
  return result.data;
}

const KNOWN_KEYS = Object.keys(configSchema.shape);

/** `key "limits.stallSeconds": Too small: expected number to be >0`, `unknown key "enigne"`. */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const at = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => (at ? `${at}.${k}` : k));
    const hint = issue.path.length === 0 ? ` (known keys: ${KNOWN_KEYS.join(', ')})` : '';
    return `unknown key${keys.length > 1 ? 's' : ''} ${keys.map((k) => `"${k}"`).join(', ')}${hint}`;
  }
  return `key "${at || '(root)'}": ${issue.message}`;
}
