import { SbevalError } from '../../core/errors.js';
/**
 * The classifier's outputs as the similarity files hold them: softmax over the logits and the 26 letters
 * in A..Z order. No Node API: the playground's page (viewer/play/) computes its probabilities with these.
 */

/** Softmax in double precision, rounded to float32 (the model's dtype). */
export function softmax(logits: ArrayLike<number>): Float32Array {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) max = Math.max(max, logits[i]!);
  const e = new Float64Array(logits.length);
  let sum = 0;
  for (let i = 0; i < logits.length; i++) {
    e[i] = Math.exp(logits[i]! - max);
    sum += e[i]!;
  }
  return Float32Array.from(e, (v) => v / sum);
}

/**
 * Which output index holds letter `C`: the official script uses `ord(C) − 65`; a model whose `id2label`
 * names all 26 letters is read through it (for the competition model both agree).
 */
export function letterIndex(labels: readonly string[], letter: string): number {
  const byLabel = labels.indexOf(letter);
  const allLetters = labels.length > 0 && 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('').every((l) => labels.includes(l));
  if (allLetters && byLabel >= 0) return byLabel;
  return letter.charCodeAt(0) - 65;
}

/** The 26 probabilities in A..Z order (what the official `raws` list holds). */
export function letterProbabilities(labels: readonly string[], probabilities: Float32Array): Float32Array {
  const out = new Float32Array(26);
  for (let i = 0; i < 26; i++) {
    const index = letterIndex(labels, String.fromCharCode(65 + i));
    if (index < 0 || index >= probabilities.length)
      throw new SbevalError('similarity', `the model has ${probabilities.length} labels; letter ${String.fromCharCode(65 + i)} has none`);
    out[i] = probabilities[index]!;
  }
  return out;
}
