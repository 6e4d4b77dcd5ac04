/**
 * The diversity file of the official diversity script: `<root>/<team>/diversity/<C>.json`
 * (chatgpt4pcg/diversity-checking-script `main.py`, read at 5ded722 (2025) and 2abb58d (2024)).
 *
 * Shape and key order: `{diversityRate, trials: [{trial, vector}], diversities: [{pair: {trial1,
 * trial2}, distance}], count}` (`count` is added after the others, so it comes last).
 * - `trials` follow the similarity file's `similarities[0..count)`; `trial` is the image id up to its
 *   first `.` (`team_A_1.png` → `team_A_1`); `vector` is the 26 softmax probabilities sorted by label
 *   (2024) or the CLS embedding (2025), copied from the similarity file.
 * - `diversities` hold every unordered pair i < j in that order with the cosine distance.
 * - `diversityRate` = double sum of the distances in pair order / (T(T+1)/2 − T) with the configured
 *   number of trials T (default 10 → 45), a fixed denominator: missing trials lower the rate.
 * Written by `json.dumps(output, indent=2)` (python-json.ts).
 */
import { z } from 'zod';
import { type PythonJsonValue, pythonJsonDumps } from './python-json.js';
import { jsonNumber, parseWith } from './stability.js';

export interface DiversityTrial {
  trial: string;
  vector: number[];
}

export interface DiversityPair {
  pair: { trial1: string; trial2: string };
  distance: number;
}

export interface DiversityFile {
  diversityRate: number;
  trials: DiversityTrial[];
  diversities: DiversityPair[];
  count: number;
}

/** The script's default `--n_trial`. */
export const DEFAULT_DIVERSITY_TRIALS = 10;

/** `similarities[i].id.split('.')[0]`. */
export function diversityTrialId(imageId: string): string {
  return imageId.split('.')[0] ?? '';
}

/** The script's denominator `n(n+1)/2 − n` (a Python float). */
export function diversityDenominator(nTrial: number = DEFAULT_DIVERSITY_TRIALS): number {
  return (nTrial * (nTrial + 1)) / 2 - nTrial;
}

/** Index pairs (i, j), i < j, in the script's order. */
export function diversityPairs(count: number): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < count; i++) for (let j = i + 1; j < count; j++) pairs.push([i, j]);
  return pairs;
}

/**
 * Builds the file: `trials` in similarity-file order, `distance(a, b)` for every pair (the caller
 * supplies the cosine distance as scipy computes it), rate over the fixed denominator.
 */
export function diversityFile(
  trials: readonly DiversityTrial[],
  distance: (a: readonly number[], b: readonly number[]) => number,
  nTrial: number = DEFAULT_DIVERSITY_TRIALS,
): DiversityFile {
  const diversities: DiversityPair[] = [];
  let sum = 0;
  for (const [i, j] of diversityPairs(trials.length)) {
    const a = trials[i] as DiversityTrial;
    const b = trials[j] as DiversityTrial;
    const d = distance(a.vector, b.vector);
    diversities.push({ pair: { trial1: a.trial, trial2: b.trial }, distance: d });
    sum += d;
  }
  return {
    diversityRate: sum / diversityDenominator(nTrial),
    trials: trials.map((t) => ({ trial: t.trial, vector: [...t.vector] })),
    diversities,
    count: trials.length,
  };
}

/** The file text exactly as `json.dumps(output, indent=2)` writes it (no trailing newline). */
export function writeDiversityJson(file: DiversityFile): string {
  const value: PythonJsonValue = {
    diversityRate: file.diversityRate,
    trials: file.trials.map((t) => ({ trial: t.trial, vector: t.vector })),
    diversities: file.diversities.map((d) => ({ pair: { trial1: d.pair.trial1, trial2: d.pair.trial2 }, distance: d.distance })),
    count: file.count,
  };
  return pythonJsonDumps(value, { intKeys: new Set(['count']) });
}

const schema = z.object({
  diversityRate: jsonNumber,
  trials: z.array(z.object({ trial: z.string(), vector: z.array(jsonNumber) })),
  diversities: z.array(z.object({ pair: z.object({ trial1: z.string(), trial2: z.string() }), distance: jsonNumber })),
  count: z.number().int(),
});

/** Parses a diversity file; throws a message naming `source` on bad input. */
export function parseDiversityJson(text: string, source = 'diversity file'): DiversityFile {
  return parseWith(schema, text, source) as DiversityFile;
}
