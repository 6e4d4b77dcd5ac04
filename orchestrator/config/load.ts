import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { SbevalError } from '../../core/errors.js';
import { closestName } from '../../core/suggest.js';
import { type ConfigFile, type ConfigSchema, configSchema } from './schema.js';

/** Looked up at the competition root, in this order; two at once is an error (which one would win?). */
export const CONFIG_FILES = ['sbeval.config.json', 'sbeval.config.yaml', 'sbeval.config.yml'] as const;

export interface LoadedConfig {
  file: string | undefined;
  config: ConfigFile;
}

/** The config file of a competition root, validated by `schema`; `{}` when there is none. */
export function loadConfigFile(root: string, schema: ConfigSchema = configSchema): LoadedConfig {
  const present = CONFIG_FILES.map((name) => join(root, name)).filter((path) => existsSync(path));
  if (present.length > 1) {
    throw new SbevalError('config', `more than one config file at ${root}: ${present.map((p) => p.slice(root.length + 1)).join(', ')}`, 'keep one of them');
  }
  const file = present[0];
  if (!file) return { file: undefined, config: {} };
  return { file, config: parseConfigText(readFileSync(file, 'utf8'), file, schema) };
}

/** Parses and validates config text; errors name the file and the key. */
export function parseConfigText(text: string, file: string, schema: ConfigSchema = configSchema): ConfigFile {
  let data: unknown;
  try {
    data = file.endsWith('.json') ? JSON.parse(text.replace(/^\uFEFF/, '')) : parseYaml(text);
  } catch (error) {
    throw new SbevalError('config', `${file}: not valid ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${(error as Error).message.split('\n')[0]}`);
  }
  if (data === null || data === undefined) return {};
  const result = schema.safeParse(data);
  if (!result.success) {
    const describe = issueDescriber(schema, data);
    const lines = result.error.issues.map((issue) => `  ${describe(issue)}`);
    throw new SbevalError(
      'config',
      `${file}: ${lines.length === 1 ? 'invalid setting' : `${lines.length} invalid settings`}\n${lines.join('\n')}`,
      'see `sbeval run --help` for every key',
    );
  }
  return result.data;
}

/**
 * One line per problem, naming the key, what was found and what is allowed:
 * `key "rules": 2022 is not one of 2023, 2024, 2025`, `key "engine": "unit" is not one of headless, …
 * — did you mean "unity"?`, `unknown key "character" — did you mean "characters"? (known keys: …)`.
 * With the schema and the data the keys and values were read from, an unknown key is matched against
 * the keys allowed at its place and a rejected value is quoted; without them, the issue alone is said.
 */
export function issueDescriber(schema?: z.core.$ZodType, data?: unknown): (issue: z.core.$ZodIssue) => string {
  return (issue) => {
    const at = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') return unknownKeys(issue.keys, issue.path, schema);
    const said = valueProblem(issue, schema, data);
    return `key "${at || '(root)'}": ${said ?? issue.message}`;
  };
}

/**
 * What is wrong with the value an issue is about, in the words of the schema that rejected it: `"unit"
 * is not one of headless, … — did you mean "unity"?`, `must be a whole number from 1 to 3, got 0`.
 * Undefined when the schema says nothing more than the issue (a custom check's own message).
 */
export function valueProblem(issue: z.core.$ZodIssue, schema: z.core.$ZodType | undefined, data: unknown): string | undefined {
  const got = valueAt(data, issue.path);
  const range = schema && ['too_small', 'too_big', 'invalid_type'].includes(issue.code) ? numberRange(schema, issue.path) : undefined;
  if (range) return got.found ? `must be ${range}, got ${shown(got.value)}` : `expected ${range}`;
  const expected = expectation(issue);
  if (!expected) return undefined;
  const near =
    got.found && typeof got.value === 'string' ? closestName(got.value, expected.values.filter((v) => typeof v === 'string') as string[]) : undefined;
  const allowed =
    expected.kinds.length === 0
      ? `one of ${expected.values.map(String).join(', ')}`
      : orList([...(expected.values.length > 0 ? [`one of ${expected.values.map(String).join(', ')}`] : []), ...expected.kinds]);
  const said = got.found ? `${shown(got.value)} is not ${expected.kinds.length === 0 ? allowed : `allowed: expected ${allowed}`}` : `expected ${allowed}`;
  return `${said}${near ? ` — did you mean "${near}"?` : ''}`;
}

/** What a number schema at `path` allows, read from its own checks: `a whole number from 1 to 3`, `a number > 0`. */
function numberRange(schema: z.core.$ZodType, path: readonly PropertyKey[]): string | undefined {
  const node = schemaAt(schema, path);
  const def = node?._zod.def as
    | { type: string; checks?: Array<{ _zod: { def: { check: string; format?: string; value?: number; inclusive?: boolean } } }> }
    | undefined;
  if (def?.type !== 'number') return undefined;
  const checks = (def.checks ?? []).map((c) => c._zod.def);
  const whole = checks.some((c) => c.check === 'number_format' && (c.format === 'safeint' || c.format === 'int32' || c.format === 'uint32'));
  const low = checks.find((c) => c.check === 'greater_than');
  const high = checks.find((c) => c.check === 'less_than');
  const kind = whole ? 'a whole number' : 'a number';
  if (low?.inclusive && high?.inclusive) return `${kind} from ${low.value} to ${high.value}`;
  const bounds = [low ? `${low.inclusive ? '≥' : '>'} ${low.value}` : undefined, high ? `${high.inclusive ? '≤' : '<'} ${high.value}` : undefined].filter(
    (b) => b !== undefined,
  );
  return bounds.length > 0 ? `${kind} ${bounds.join(' and ')}` : kind;
}

/** The issue alone (files whose schema the caller does not pass). */
export const describeIssue = issueDescriber();

function unknownKeys(keys: readonly string[], path: readonly PropertyKey[], schema: z.core.$ZodType | undefined): string {
  const at = path.map(String).join('.');
  const known = keysAt(schema ?? configSchema, path);
  const names = keys.map((k) => `"${at ? `${at}.${k}` : k}"`).join(', ');
  const flag = path.length === 0 && keys.length === 1 ? FLAG_KEYS[keys[0]!.toLowerCase().replace(/[-_]/g, '')] : undefined;
  const near = flag ?? (keys.length === 1 && known ? closestName(keys[0]!, known) : undefined);
  const suggestion = near ? ` — did you mean "${at ? `${at}.${near}` : near}"?` : '';
  return `unknown key${keys.length > 1 ? 's' : ''} ${names}${suggestion}${known ? ` (known keys${at ? ` of ${at}` : ''}: ${known.join(', ')})` : ''}`;
}

/** CLI flags whose setting has another name in the config file (`--chars` is `characters:`), by their name without case, `-`, `_`. */
const FLAG_KEYS: Record<string, string> = {
  chars: 'characters',
  char: 'characters',
  team: 'teams',
  simtrials: 'simulationTrials',
  timelimit: 'limits.timeSeconds',
  tokenlimit: 'limits.tokens',
  calltimeout: 'limits.callSeconds',
  maxanswerbytes: 'limits.answerBytes',
};

/** Words for the types a union branch expects. */
const KIND_WORDS: Record<string, string> = { string: 'text', number: 'a number', array: 'a list', object: 'a mapping (key: value)' };

/**
 * What an enum, a literal, or a union of them and of plain types allows: its values (`true`, `false`
 * for a boolean branch) and the kinds of value its other branches take. Undefined for other issues.
 */
function expectation(issue: z.core.$ZodIssue): { values: unknown[]; kinds: string[] } | undefined {
  if (issue.code === 'invalid_value') return { values: [...issue.values], kinds: [] };
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return undefined;
  const values: unknown[] = [];
  const kinds: string[] = [];
  for (const branch of issue.errors) {
    const only = branch.length === 1 ? branch[0] : undefined;
    if (only?.code === 'invalid_value') values.push(...only.values);
    else if (only?.code === 'invalid_type' && only.expected === 'boolean') values.push(true, false);
    else if (only?.code === 'invalid_type' && KIND_WORDS[only.expected]) kinds.push(KIND_WORDS[only.expected]!);
    else return undefined;
  }
  return { values: [...new Map(values.map((v) => [String(v), v])).values()], kinds: [...new Set(kinds)] };
}

/** `a, b or c`. */
const orList = (items: readonly string[]): string => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`);
const shown = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value)));

function valueAt(data: unknown, path: readonly PropertyKey[]): { found: boolean; value?: unknown } {
  let node = data;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || !(String(key) in node)) return { found: false };
    node = (node as Record<string, unknown>)[String(key)];
  }
  return { found: data !== undefined, value: node };
}

/** The keys an object of the schema allows at `path` (through optional, default, array and union wrappers). */
function keysAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] | undefined {
  const node = schemaAt(schema, path);
  const def = node?._zod.def as { type: string; shape?: Record<string, unknown> } | undefined;
  return def?.type === 'object' && def.shape ? Object.keys(def.shape) : undefined;
}

/** The schema of the value at `path` (through optional, default, array and record wrappers). */
export function schemaAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): z.core.$ZodType | undefined {
  let node: z.core.$ZodType | undefined = unwrap(schema);
  for (const key of path) {
    const def = node?._zod.def as { type: string; shape?: Record<string, z.core.$ZodType>; element?: z.core.$ZodType; valueType?: z.core.$ZodType } | undefined;
    if (def?.type === 'object') node = def.shape?.[String(key)];
    else if (def?.type === 'array') node = def.element;
    else if (def?.type === 'record') node = def.valueType;
    else return undefined;
    node = node && unwrap(node);
  }
  return node;
}

function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let node = schema;
  for (
    let def = node._zod.def as { type: string; innerType?: z.core.$ZodType };
    def.innerType && ['optional', 'default', 'nullable', 'prefault', 'readonly'].includes(def.type);
    def = node._zod.def as typeof def
  )
    node = def.innerType;
  return node;
}
