import { sha256 } from '../../core/hash.js';

/**
 * What the official level transforms — extraction (`levels/extract.ts`) and conversion
 * (`levels/pipeline.ts`) — made of an input in this process, keyed by the input's content (its sha256,
 * the transform and the function name): the sha256 of the output, or null when there is none (no code
 * found, a program the converter refuses). The extract and convert stages record what they compute, so
 * the readiness check that follows them in `sbeval run` (orchestrator/result/readiness.ts) compares the
 * files on disk with these digests instead of extracting and converting every trial again; an input it
 * has not seen is transformed once and remembered.
 *
 * Only this process's own results are kept (no file): a cache on disk would have to be keyed by the
 * transforms' code too, which changes with sbeval, and a stale entry would make `result/` claim what
 * the official functions no longer give. Bounded: the map is cleared past `LIMIT` entries (ten
 * competitions of 26 letters × 10 trials × 2 transforms fit several times).
 */
type TransformKind = 'extract' | 'convert';

const LIMIT = 200_000;
const outputs = new Map<string, string | null>();

const keyOf = (kind: TransformKind, prefix: string, input: string) => `${kind}\0${prefix}\0${sha256(input)}`;

/** Records what `kind` made of `input` (its output, or null for none). */
export function rememberTransform(kind: TransformKind, prefix: string, input: string, output: string | null): void {
  if (outputs.size >= LIMIT) outputs.clear();
  outputs.set(keyOf(kind, prefix, input), output === null ? null : sha256(output));
}

/** The sha256 of what `kind` makes of `input` (null: no output), from memory or from `transform` (then remembered). */
export function transformDigest(kind: TransformKind, prefix: string, input: string, transform: (input: string) => string | null): string | null {
  const key = keyOf(kind, prefix, input);
  const known = outputs.get(key);
  if (known !== undefined) return known;
  const output = transform(input);
  if (outputs.size >= LIMIT) outputs.clear();
  const digest = output === null ? null : sha256(output);
  outputs.set(key, digest);
  return digest;
}
