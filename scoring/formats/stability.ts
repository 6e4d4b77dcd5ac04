/**
 * The stability file of the Science Birds Evaluator: `<root>/<team>/stability/<C>.json`, one per
 * character folder of levels (modified-science-birds `Assets/ICE/Scripts/Evaluation/Stability/`:
 * `StabilityData` {int dataCount, float rate, List<Stability> raws}, `Stability` {string tag,
 * float score, int startingObjects, int movingObjects}; written with `JsonUtility.ToJson(data, true)`
 * and `File.WriteAllText`).
 *
 * Byte format (checked against every evaluator file in calibration/reference-levels):
 * 4-space indentation, `"key": value`, fields in declaration order, `\n` line ends, no trailing
 * newline, floats printed by Unity's writer (see unity-float.ts), ints plain. `rate` is the float32
 * sum of the scores in file order divided by the float32 count (`BaseStabilityEvaluator.IE_Evaluate`).
 * Older evaluator files (sample-levels/sample-stability.json, before the two count fields were added)
 * have only `tag` and `score`; the reader accepts them.
 */
import { z } from 'zod';
import { formatUnityFloat } from './unity-float.js';

/** One level's result, as the evaluator stores it. */
export interface StabilityEntry {
  /** The level path as the evaluator saw it, e.g. `competition\\team\\levels\\A\\team_A_1.xml`. */
  tag: string;
  /** Stability in [0, 1]; stored as a float32. */
  score: number;
  /** Objects counted at the start (blocks, pigs, TNT). Absent in files of the older evaluator. */
  startingObjects?: number;
  /** Objects whose centre moved ≥ the threshold. Absent in files of the older evaluator. */
  movingObjects?: number;
}

export interface StabilityFile {
  dataCount: number;
  /** Mean score (float32 as Unity computes it). */
  rate: number;
  raws: StabilityEntry[];
}

/**
 * Any JSON number, including the non-finite values `JSON.parse` gives for literals such as `1e999`
 * (zod's `z.number()` rejects them); scoring reports and neutralises them instead of losing the file.
 */
export const jsonNumber = z.custom<number>((v) => typeof v === 'number', { message: 'expected a number' });

const entrySchema = z.object({
  tag: z.string(),
  score: jsonNumber,
  startingObjects: z.number().int().optional(),
  movingObjects: z.number().int().optional(),
});

const fileSchema = z.object({
  dataCount: z.number().int(),
  rate: jsonNumber,
  raws: z.array(entrySchema),
});

/** The evaluator's `rate`: float32 running sum in file order, divided by the count in float32. */
export function unityStabilityRate(scores: readonly number[]): number {
  if (scores.length === 0) return 0;
  let sum = 0;
  for (const score of scores) sum = Math.fround(sum + Math.fround(score));
  return Math.fround(sum / scores.length);
}

/**
 * A complete stability file from level results in the order the evaluator would list them.
 * With no entries the evaluator writes no file at all; we write `dataCount 0, rate 0.0` so an empty
 * character is visible rather than missing (documented deviation).
 */
export function stabilityFile(entries: readonly StabilityEntry[]): StabilityFile {
  const raws = entries.map((entry) => ({ ...entry, score: Math.fround(entry.score) }));
  return { dataCount: raws.length, rate: unityStabilityRate(raws.map((r) => r.score)), raws };
}

/**
 * The evaluator's level path: `<root><sep><team><sep>levels<sep><C><sep><file>` (Windows runs show
 * `competition\\team\\levels\\A\\team_A_1.xml`; the scoring script only reads the trial number from it).
 */
export function stabilityTag(team: string, character: string, file: string, options: { root?: string; separator?: string } = {}): string {
  const sep = options.separator ?? '\\';
  return [options.root ?? 'competition', team, 'levels', character, file].join(sep);
}

/** JSON string escaping of the Unity writer: `"`, `\` and control characters; other text stays UTF-8. */
function unityString(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (code < 0x20) out += `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

function int(value: number, what: string): string {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${what} must be an integer, got ${value}`);
  return String(value);
}

/**
 * The file text, byte for byte as the evaluator writes it. Entries without counts are written without
 * them (the older format); a file must not mix both (Unity would write every field of every entry).
 * Pass a `StabilityFile` to keep its `dataCount`/`rate`, or entries to have them computed.
 */
export function writeStabilityJson(input: StabilityFile | readonly StabilityEntry[]): string {
  const file = Array.isArray(input) ? stabilityFile(input as readonly StabilityEntry[]) : (input as StabilityFile);
  const withCounts = file.raws.map((r) => r.startingObjects !== undefined || r.movingObjects !== undefined);
  if (withCounts.some((x) => x) && withCounts.some((x) => !x)) {
    throw new RangeError('stability entries mix the old format (no counts) and the new one (startingObjects/movingObjects)');
  }
  const i1 = '    ';
  const i2 = i1.repeat(2);
  const i3 = i1.repeat(3);
  const lines = ['{', `${i1}"dataCount": ${int(file.dataCount, 'dataCount')},`, `${i1}"rate": ${formatUnityFloat(file.rate)},`];
  if (file.raws.length === 0) {
    lines.push(`${i1}"raws": []`);
  } else {
    lines.push(`${i1}"raws": [`);
    file.raws.forEach((raw, index) => {
      const fields = [`${i3}"tag": ${unityString(raw.tag)}`, `${i3}"score": ${formatUnityFloat(raw.score)}`];
      if (raw.startingObjects !== undefined || raw.movingObjects !== undefined) {
        fields.push(`${i3}"startingObjects": ${int(raw.startingObjects ?? 0, 'startingObjects')}`);
        fields.push(`${i3}"movingObjects": ${int(raw.movingObjects ?? 0, 'movingObjects')}`);
      }
      lines.push(`${i2}{`, fields.join(',\n'), `${i2}}${index < file.raws.length - 1 ? ',' : ''}`);
    });
    lines.push(`${i1}]`);
  }
  lines.push('}');
  return lines.join('\n');
}

/** Parses a stability file (either evaluator format); throws a message naming `source` on bad input. */
export function parseStabilityJson(text: string, source = 'stability file'): StabilityFile {
  return parseWith(fileSchema, text, source) as StabilityFile;
}

/** Shared by the three readers: JSON errors and schema errors both name the file and the field. */
export function parseWith<T>(schema: z.ZodType<T>, text: string, source: string): T {
  let data: unknown;
  try {
    // A UTF-8 byte order mark (Windows editors) is not part of the JSON.
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new SyntaxError(`${source}: not valid JSON (${(error as Error).message})`);
  }
  const result = schema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(top level)';
    throw new TypeError(`${source}: ${where}: ${issue?.message ?? 'does not match the expected format'}`);
  }
  return result.data;
}
