import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { SbevalError } from '../../core/errors.js';
import { sha256 } from '../../core/hash.js';
import { OBJECT_STYLES, type ObjectStyle } from '../../scoring/score/rules.js';

/**
 * What a team submits, in the three shapes sbeval runs:
 * - a prompt file (2023 style, and the zero-shot baseline): one user turn;
 * - a chat script (JSON/YAML): user turns sent one after another, each after the previous answer,
 *   the last answer kept (the official zero-shot multi-turn baseline is one);
 * - an external program run once per trial (2024/2025 style submissions), see program.ts.
 *
 * `<OBJECT>` is replaced, everywhere it occurs, by the letter: quoted (`"A"`, the 2023
 * response-gathering script: `replaceAll(OBJECT_TOKEN, '"' + character + '"')`) or bare (`A`, the
 * 2024/2025 examples: `.replace("<OBJECT>", target_character)`).
 */
export type { ObjectStyle };
/**
 * `lf`: CRLF and lone CR become LF, as Python's text-mode `open().read()` does (2024/2025 programs);
 * `keep`: the bytes as written (the 2023 Node script read files with `readFile(…, 'utf-8')`).
 */
export const NEWLINES = ['lf', 'keep'] as const;
export type Newlines = (typeof NEWLINES)[number];

const OBJECT_TOKEN = '<OBJECT>';

export interface ConversationSubmission {
  kind: 'prompt' | 'chat-script';
  /** Where it came from (a path or `builtin:<name>`), for logs. */
  source: string;
  system: string | undefined;
  /** User turn templates, `<OBJECT>` not yet replaced, newlines already normalised. */
  turns: string[];
  objectStyle: ObjectStyle;
  newlines: Newlines;
  /** Identity of the submission (content hash), recorded in the logs. */
  sha256: string;
}

export interface ProgramSubmission {
  kind: 'program';
  source: string;
  command: string;
  /** Arguments; `{char}`, `{trial}`, `{seed}`, `{model}`, `{team}` are replaced per trial. */
  args: string[];
  cwd: string;
  env: Record<string, string>;
  sha256: string;
}

export type Submission = ConversationSubmission | ProgramSubmission;

export interface SubmissionOverrides {
  objectStyle?: ObjectStyle | undefined;
  newlines?: Newlines | undefined;
}

export const BUILTIN_SUBMISSIONS: Readonly<Record<string, string>> = {
  'zero-shot': 'zero-shot.txt',
  'zero-shot-multi-turn': 'zero-shot-multi-turn.yaml',
};

/** The folder of built-in submissions, from the sources or from `dist/` (which has no copy). */
function builtinDir(): string {
  const candidates = [new URL('./builtin/', import.meta.url), new URL('../../../llm/generate/builtin/', import.meta.url)];
  for (const url of candidates) {
    const path = fileURLToPath(url);
    if (existsSync(resolve(path, 'zero-shot.txt'))) return path;
  }
  throw new SbevalError('config', 'the built-in submissions folder (llm/generate/builtin/) is missing', 'reinstall sbeval from a full checkout');
}

const fileRef = z.object({ file: z.string().min(1) }).strict();
const textOrFile = z.union([z.string(), fileRef]);
const chatScriptSchema = z
  .object({
    system: textOrFile.optional(),
    object: z.enum(OBJECT_STYLES).optional(),
    newlines: z.enum(NEWLINES).optional(),
    turns: z.array(textOrFile).min(1),
  })
  .strict();
const programSchema = z
  .object({
    program: z.union([
      z.array(z.string().min(1)).min(1),
      z
        .object({
          command: z.string().min(1),
          args: z.array(z.string()).default([]),
          cwd: z.string().optional(),
          env: z.record(z.string(), z.string()).default({}),
        })
        .strict(),
    ]),
  })
  .strict();

function decodeUtf8(bytes: Uint8Array, path: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new SbevalError('input', `${path} is not valid UTF-8`, 'save the prompt as UTF-8');
  }
}

function normaliseNewlines(text: string, newlines: Newlines): string {
  return newlines === 'lf' ? text.replace(/\r\n?/g, '\n') : text;
}

/** `<OBJECT>` → the letter, in every occurrence. */
export function fillObject(template: string, character: string, style: ObjectStyle): string {
  return template.replaceAll(OBJECT_TOKEN, style === 'quoted' ? `"${character}"` : character);
}

function readText(path: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new SbevalError('input', `cannot read ${path}: ${(error as Error).message}`);
  }
  return decodeUtf8(bytes, path);
}

function defaultNewlines(style: ObjectStyle): Newlines {
  return style === 'quoted' ? 'keep' : 'lf';
}

/**
 * Resolves `--submission`: `builtin:<name>`, `exec:<program>`, a `.json`/`.yaml`/`.yml` chat script
 * or program spec, or any other file as a prompt.
 */
export function loadSubmission(spec: string, overrides: SubmissionOverrides = {}): Submission {
  if (spec.startsWith('builtin:')) {
    const name = spec.slice('builtin:'.length);
    const file = BUILTIN_SUBMISSIONS[name];
    if (!file) {
      throw new SbevalError(
        'config',
        `unknown built-in submission "${name}"`,
        `choose one of: ${Object.keys(BUILTIN_SUBMISSIONS)
          .map((n) => `builtin:${n}`)
          .join(', ')}`,
      );
    }
    const loaded = loadSubmissionFile(resolve(builtinDir(), file), overrides);
    return { ...loaded, source: spec };
  }
  if (spec.startsWith('exec:')) {
    const command = resolve(spec.slice('exec:'.length));
    if (!existsSync(command)) throw new SbevalError('config', `program ${command} does not exist`);
    return { kind: 'program', source: spec, command, args: [], cwd: dirname(command), env: {}, sha256: sha256(readFileSync(command)) };
  }
  return loadSubmissionFile(resolve(spec), overrides);
}

function loadSubmissionFile(path: string, overrides: SubmissionOverrides): Submission {
  if (!existsSync(path) || !statSync(path).isFile()) {
    throw new SbevalError('config', `submission ${path} is not a file`, 'pass a prompt file, a chat script (.json/.yaml), exec:<program> or builtin:zero-shot');
  }
  const ext = extname(path).toLowerCase();
  if (ext === '.json' || ext === '.yaml' || ext === '.yml') return loadStructured(path, ext, overrides);
  const objectStyle = overrides.objectStyle ?? 'bare';
  const newlines = overrides.newlines ?? defaultNewlines(objectStyle);
  const raw = readText(path);
  const turn = normaliseNewlines(raw, newlines);
  return {
    kind: 'prompt',
    source: path,
    system: undefined,
    turns: [turn],
    objectStyle,
    newlines,
    sha256: sha256(JSON.stringify({ turns: [turn], objectStyle })),
  };
}

function loadStructured(path: string, ext: string, overrides: SubmissionOverrides): Submission {
  const text = readText(path);
  let data: unknown;
  try {
    data = ext === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new SbevalError('input', `${path} is not valid ${ext === '.json' ? 'JSON' : 'YAML'}: ${(error as Error).message}`);
  }
  const base = dirname(path);
  if (Array.isArray(data)) data = { turns: data };
  if (data && typeof data === 'object' && 'program' in data) {
    const parsed = programSchema.safeParse(data);
    if (!parsed.success)
      throw new SbevalError(
        'input',
        `${path}: ${z.prettifyError(parsed.error)}`,
        'a program spec is `program: [command, arg…]` or `program: {command, args, cwd, env}`',
      );
    const program = parsed.data.program;
    const [command, ...args] = Array.isArray(program) ? program : [program.command, ...program.args];
    const cwd = !Array.isArray(program) && program.cwd ? resolve(base, program.cwd) : base;
    const env = Array.isArray(program) ? {} : program.env;
    // A relative command that names a file beside the spec runs that file; otherwise it is looked up on PATH.
    const local = command && !isAbsolute(command) && (command.startsWith('.') || command.includes('/')) ? resolve(base, command) : command;
    return { kind: 'program', source: path, command: local!, args, cwd, env, sha256: sha256(text) };
  }
  const parsed = chatScriptSchema.safeParse(data);
  if (!parsed.success) {
    throw new SbevalError(
      'input',
      `${path}: ${z.prettifyError(parsed.error)}`,
      'a chat script is a list of user turns, or {turns: [...], system?, object?, newlines?}; a turn is text or {file: path}',
    );
  }
  const script = parsed.data;
  const objectStyle = overrides.objectStyle ?? script.object ?? 'bare';
  const newlines = overrides.newlines ?? script.newlines ?? defaultNewlines(objectStyle);
  const load = (item: string | { file: string }) => normaliseNewlines(typeof item === 'string' ? item : readText(resolve(base, item.file)), newlines);
  const turns = script.turns.map(load);
  const system = script.system === undefined ? undefined : load(script.system);
  return {
    kind: 'chat-script',
    source: path,
    system,
    turns,
    objectStyle,
    newlines,
    sha256: sha256(JSON.stringify({ system: system ?? null, turns, objectStyle })),
  };
}

/** True when no turn mentions `<OBJECT>` (the letter would never reach the model: almost surely a mistake). */
export function lacksObjectToken(submission: ConversationSubmission): boolean {
  return ![submission.system ?? '', ...submission.turns].some((t) => t.includes(OBJECT_TOKEN));
}

export function describeSubmission(submission: Submission): string {
  if (submission.kind === 'program') return `program ${[submission.command, ...submission.args].join(' ')} (${submission.source})`;
  const turns = submission.turns.length === 1 ? '1 turn' : `${submission.turns.length} turns`;
  return `${submission.kind} ${submission.source} (${turns}, <OBJECT> → ${submission.objectStyle === 'quoted' ? '"A"' : 'A'}, newlines ${submission.newlines})`;
}
