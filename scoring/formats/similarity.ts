/**
 * The similarity file of the official similarity script: `<root>/<team>/similarity/<C>.json`
 * (chatgpt4pcg/similarity-checking-script `main.py`, read at f0338d3 (2025) and e7fe6cf (2024)).
 *
 * Shape and key order (a Python dict, so insertion order):
 * `{count, similarityRate, trials: [{id, label, similarity}], similarities: [{id, raws: [{id, label,
 * softmax_prob}] × 26 (A..Z), cls_embedding (2025 only)}]}`.
 * - `id` is the image file name (`team_A_1.png`), in the `raws` entries too; `label` of a trial is the
 *   character folder name, of a raw the letter.
 * - `similarity` / `softmax_prob` are the float32 softmax outputs widened to double (`tensor.item()`);
 *   `cls_embedding` is the float32 CLS vector as `tolist()` gives it (768 doubles).
 * - `similarityRate` = the double sum of the trials' similarities in list order divided by `count`
 *   (with no images the script divides by zero and writes nothing; we write `0`, see `similarityFile`).
 * Written by `json.dumps(output, indent=2)` (python-json.ts).
 */
import { z } from 'zod';
import { type PythonJsonValue, pythonJsonDumps } from './python-json.js';
import { jsonNumber, parseWith } from './stability.js';

/** Class labels of the classifier: index = `ord(letter) − 65` (the script's `LETTERS_LIST`). */
export const LETTERS: readonly string[] = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('');
const ALPHABET = LETTERS;

export interface SimilarityTrial {
  id: string;
  label: string;
  similarity: number;
}

export interface SimilarityRaw {
  id: string;
  label: string;
  softmax_prob: number;
}

export interface SimilarityImage {
  id: string;
  raws: SimilarityRaw[];
  /** 2025 files only. */
  cls_embedding?: number[];
}

export interface SimilarityFile {
  count: number;
  similarityRate: number;
  trials: SimilarityTrial[];
  similarities: SimilarityImage[];
}

/** What the classifier gives for one image. */
export interface ImageClassification {
  /** Image file name, e.g. `team_A_1.png`. */
  id: string;
  /** The 26 softmax probabilities, index 0 = `A` … 25 = `Z` (`ord(letter) − 65`). */
  probabilities: ArrayLike<number>;
  /** CLS embedding of the last encoder layer (2025 format); omit for the 2024 format. */
  clsEmbedding?: ArrayLike<number>;
}

/**
 * Builds the file for one character folder, images in the order they were processed. Values are
 * rounded to float32 (the model's dtype) so numbers from any source print as the script prints them.
 * `character` is the folder name; its target index is `ord(character) − 65`, as in the script.
 */
export function similarityFile(character: string, images: readonly ImageClassification[]): SimilarityFile {
  const target = ALPHABET.indexOf(character);
  if (target < 0) throw new RangeError(`character "${character}" is not one of A..Z`);
  const trials: SimilarityTrial[] = [];
  const similarities: SimilarityImage[] = [];
  let sum = 0;
  for (const image of images) {
    if (image.probabilities.length !== ALPHABET.length) {
      throw new RangeError(`${image.id}: expected ${ALPHABET.length} probabilities, got ${image.probabilities.length}`);
    }
    const raws = ALPHABET.map((label, i) => ({ id: image.id, label, softmax_prob: Math.fround(image.probabilities[i] as number) }));
    const similarity = raws[target]?.softmax_prob ?? 0;
    const entry: SimilarityImage = { id: image.id, raws };
    if (image.clsEmbedding !== undefined) entry.cls_embedding = Array.from(image.clsEmbedding, (x) => Math.fround(x));
    similarities.push(entry);
    trials.push({ id: image.id, label: character, similarity });
    sum += similarity;
  }
  return { count: images.length, similarityRate: images.length > 0 ? sum / images.length : 0, trials, similarities };
}

const INT_KEYS: ReadonlySet<string> = new Set(['count']);

/** The file text exactly as `json.dumps(output, indent=2)` writes it (no trailing newline). */
export function writeSimilarityJson(file: SimilarityFile): string {
  const value: PythonJsonValue = {
    count: file.count,
    // The script's initial value is the int 0; it is only left as an int when nothing was added.
    similarityRate: file.similarityRate,
    trials: file.trials.map((t) => ({ id: t.id, label: t.label, similarity: t.similarity })),
    similarities: file.similarities.map((s) => {
      const entry: { [key: string]: PythonJsonValue } = {
        id: s.id,
        raws: s.raws.map((r) => ({ id: r.id, label: r.label, softmax_prob: r.softmax_prob })),
      };
      if (s.cls_embedding !== undefined) entry.cls_embedding = s.cls_embedding;
      return entry;
    }),
  };
  const intKeys = file.count === 0 ? new Set([...INT_KEYS, 'similarityRate']) : INT_KEYS;
  return pythonJsonDumps(value, { intKeys });
}

const schema = z.object({
  count: z.number().int(),
  similarityRate: jsonNumber,
  trials: z.array(z.object({ id: z.string(), label: z.string(), similarity: jsonNumber })),
  similarities: z.array(
    z.object({
      id: z.string(),
      raws: z.array(z.object({ id: z.string(), label: z.string(), softmax_prob: jsonNumber })),
      cls_embedding: z.array(jsonNumber).optional(),
    }),
  ),
});

/** Parses a similarity file (2024 or 2025 format); throws a message naming `source` on bad input. */
export function parseSimilarityJson(text: string, source = 'similarity file'): SimilarityFile {
  return parseWith(schema, text, source) as SimilarityFile;
}
