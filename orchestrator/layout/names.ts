import { SbevalError } from '../../core/errors.js';

/**
 * Names that come from folders, config or the command line become path components. They must never
 * leave the competition root: no separators, no `.`/`..`, no NUL or control characters, nothing hidden
 * (the official helpers skip names starting with `.` anyway).
 */
type NameKind = 'team' | 'model' | 'character' | 'file' | 'stage';

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this rejects in a name.
const FORBIDDEN = /[\\/\u0000-\u001f\u007f]/;

export function checkName(kind: NameKind, name: string): string | undefined {
  if (name.length === 0) return `empty ${kind} name`;
  if (name.length > 255) return `${kind} name longer than 255 characters`;
  if (name === '.' || name === '..') return `${kind} name "${name}" is a relative path`;
  if (name.startsWith('.')) return `${kind} name "${name}" starts with "." (hidden names are ignored by the official scripts)`;
  if (FORBIDDEN.test(name)) return `${kind} name ${JSON.stringify(name)} contains a path separator or control character`;
  return undefined;
}

export function assertSafeName(kind: NameKind, name: string): string {
  const problem = checkName(kind, name);
  if (problem) throw new SbevalError('input', problem, `rename the ${kind} so it is a plain folder or file name`);
  return name;
}

/**
 * Ollama model names such as `qwen2.5:32b-instruct-fp16` or `library/x:tag` are not portable folder
 * names; the model folder keeps letters, digits, `.`, `_` and `-` and maps everything else to `_`.
 */
export function modelFolderName(model: string): string {
  const folder = model.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return assertSafeName('model', folder);
}
