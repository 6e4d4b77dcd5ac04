/**
 * Diversity of one character's trials as the official diversity script computes it
 * (chatgpt4pcg/diversity-checking-script `main.py`; reference/official-pipeline.md §6):
 * - vectors, for i in range(count) of the similarity file: 2024 rules (≤ 2abb58d) the 26 softmax
 *   probabilities of `raws` sorted by label (A..Z); 2025 rules (HEAD, from 2025-05-19) `cls_embedding`;
 * - trial id = `similarities[i].id.split('.')[0]`;
 * - every pair i < j over the trials present, scipy 1.12 cosine distance (cosine.ts);
 * - diversityRate = Σ distances / (N(N+1)/2 − N) with N the configured trials per letter (default 10):
 *   a fixed denominator, so missing trials lower the rate.
 * File shape and writer: scoring/formats/diversity.ts.
 */

import { SbevalError } from '../../core/errors.js';
import {
  DEFAULT_DIVERSITY_TRIALS,
  type DiversityFile,
  type DiversityTrial,
  diversityFile,
  diversityTrialId,
  writeDiversityJson,
} from '../formats/diversity.js';
import type { SimilarityFile } from '../formats/similarity.js';
import { ruleSetChoice, SIMILARITY_FORMATS, type SimilarityFormat } from '../score/rules.js';
import { cosineDistance } from './cosine.js';

/** The similarity format the vectors are read in (scoring/score/rules.ts `SIMILARITY_FORMATS`). */
export type DiversityRules = SimilarityFormat;

/** The vectors the script takes from a similarity file. */
export function diversityTrials(similarity: SimilarityFile, rules: DiversityRules): DiversityTrial[] {
  if (similarity.similarities.length < similarity.count) {
    throw new SbevalError('diversity', `count is ${similarity.count} but the file lists ${similarity.similarities.length} images`);
  }
  const trials: DiversityTrial[] = [];
  for (let i = 0; i < similarity.count; i++) {
    const image = similarity.similarities[i]!;
    let vector: number[];
    if (!SIMILARITY_FORMATS[rules].clsEmbedding) {
      // `list.sort(key=lambda x: x['label'])`: a stable sort by label string (code-point order).
      vector = [...image.raws]
        .map((r, index) => ({ r, index }))
        .sort((a, b) => (a.r.label < b.r.label ? -1 : a.r.label > b.r.label ? 1 : a.index - b.index))
        .map(({ r }) => r.softmax_prob);
    } else {
      if (!image.cls_embedding)
        throw new SbevalError(
          'diversity',
          `${image.id} has no cls_embedding (run \`sbeval similarity --rules ${ruleSetChoice((r) => SIMILARITY_FORMATS[r.similarityFormat].clsEmbedding)}\`)`,
        );
      vector = image.cls_embedding;
    }
    trials.push({ trial: diversityTrialId(image.id), vector });
  }
  return trials;
}

/** One character's diversity file. */
export function computeDiversity(similarity: SimilarityFile, rules: DiversityRules, nTrial: number = DEFAULT_DIVERSITY_TRIALS): DiversityFile {
  if (!Number.isInteger(nTrial) || nTrial < 2) throw new SbevalError('diversity', `trials per letter must be an integer ≥ 2, got ${nTrial}`);
  return diversityFile(diversityTrials(similarity, rules), cosineDistance, nTrial);
}

/**
 * The file text as the script writes it. scipy 1.12 returns Python's int 0 for a zero distance (see
 * cosine.ts) and `json.dumps` prints it as `0`; every other distance is a float. A distance is exactly 0
 * only on that path, so zero distances are printed as ints here.
 */
export function diversityJson(file: DiversityFile): string {
  return writeDiversityJson(file).replace(/^(\s*"distance": )0\.0$/gm, '$10');
}
