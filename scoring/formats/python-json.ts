/**
 * Python's `json.dumps(obj, indent=2)` as the official similarity and diversity scripts call it, so the
 * files we write are byte-identical to theirs (chatgpt4pcg/similarity-checking-script and
 * diversity-checking-script `main.py`: `json.dumps(output, indent=2)`, written with `open(path, 'w')`,
 * no trailing newline).
 *
 * Python rules reproduced here (CPython `json` module and `float.__repr__`):
 * - indent 2, item separator `,` at line ends, key separator `: `, `[]`/`{}` for empty containers;
 * - `ensure_ascii=True`: `"`, `\` and `\n \r \t \b \f` get short escapes, every other code unit outside
 *   space..`~` becomes `\u00xx` (lowercase hex; astral characters as their two surrogates);
 * - floats print as `repr(float)`: the shortest digits that round-trip, fixed notation when the decimal
 *   exponent is in [-4, 16), else `1e-05`, `3.2e-07`, `1e+16`; integral floats keep `.0`;
 *   non-finite values print as `NaN`, `Infinity`, `-Infinity` (json.dumps' default `allow_nan=True`).
 *
 * JavaScript has one number type, so the caller says which keys hold Python `int`s (`count`);
 * every other number is printed as a Python float.
 */

/** `repr(x)` of a Python float. JS and Python both pick the shortest round-trip digits (closest on ties). */
export function formatPythonFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const sign = value < 0 ? '-' : '';
  const [mantissa = '', exp = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const decpt = Number(exp) + 1; // value = 0.digits × 10^decpt
  if (decpt <= -4 || decpt > 16) {
    const e = decpt - 1;
    const rest = digits.slice(1);
    const absE = Math.abs(e);
    return `${sign}${digits[0]}${rest ? `.${rest}` : ''}e${e < 0 ? '-' : '+'}${absE < 10 ? `0${absE}` : absE}`;
  }
  if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
  if (decpt >= digits.length) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`;
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

/** A JSON string literal as Python's `json.dumps` writes it with `ensure_ascii=True`. */
export function pythonJsonString(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    const code = text.charCodeAt(i);
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) out += short;
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** A JSON value we can print: objects keep their key insertion order, as Python dicts do. */
export type PythonJsonValue = string | number | boolean | null | readonly PythonJsonValue[] | { readonly [key: string]: PythonJsonValue };

export interface PythonDumpOptions {
  /** Keys whose numbers are Python ints (printed without `.0`); everything else is a float. */
  intKeys?: ReadonlySet<string>;
  /** `indent=` of json.dumps; the official scripts use 2. */
  indent?: number;
}

/** `json.dumps(value, indent=2)` (no trailing newline, as the official scripts write it). */
export function pythonJsonDumps(value: PythonJsonValue, options: PythonDumpOptions = {}): string {
  const intKeys = options.intKeys ?? new Set<string>();
  const unit = ' '.repeat(options.indent ?? 2);
  const parts: string[] = [];
  const emit = (v: PythonJsonValue, depth: number, key: string | undefined): void => {
    if (v === null) parts.push('null');
    else if (typeof v === 'boolean') parts.push(v ? 'true' : 'false');
    else if (typeof v === 'string') parts.push(pythonJsonString(v));
    else if (typeof v === 'number') {
      if (key !== undefined && intKeys.has(key)) {
        if (!Number.isSafeInteger(v)) throw new RangeError(`"${key}" must be an integer, got ${v}`);
        parts.push(String(v));
      } else parts.push(formatPythonFloat(v));
    } else if (Array.isArray(v)) {
      const items = v as readonly PythonJsonValue[];
      if (items.length === 0) return void parts.push('[]');
      const inner = `\n${unit.repeat(depth + 1)}`;
      parts.push('[');
      items.forEach((item, i) => {
        parts.push(i === 0 ? inner : `,${inner}`);
        // Array elements inherit the key of the array (a list of ints under an int key stays ints).
        emit(item, depth + 1, key);
      });
      parts.push(`\n${unit.repeat(depth)}]`);
    } else {
      const entries = Object.entries(v as { readonly [key: string]: PythonJsonValue });
      if (entries.length === 0) return void parts.push('{}');
      const inner = `\n${unit.repeat(depth + 1)}`;
      parts.push('{');
      entries.forEach(([k, item], i) => {
        parts.push(i === 0 ? inner : `,${inner}`);
        parts.push(`${pythonJsonString(k)}: `);
        emit(item, depth + 1, k);
      });
      parts.push(`\n${unit.repeat(depth)}}`);
    }
  };
  emit(value, 0, undefined);
  return parts.join('');
}
