/**
 * Code extraction from an LLM response, exactly as `extractCode` of the official npm package
 * `chatgpt4pcg@1.4.1` does it (used by chatgpt4pcg/code-extraction-script; facts in
 * reference/official-pipeline.md §1a):
 *
 * - the response's **last** complete fenced block wins: the fence pattern is three backticks, one or
 *   more characters that are not backticks, three backticks, scanned left to right without overlap
 *   (so an inline backtick inside a block breaks it, four backticks still work, `~~~` does not, and
 *   with an odd number of fences the last pair the scan found is used);
 * - inside that match (fences included) every call `<prefix>(` + quote + `b` + `1|3` + `1|3` + quote
 *   + `,` + spaces + digits + `)` is taken, where a quote is `'`, `"` or, by a quirk of the
 *   character classes, `|`; the slot digits may be empty; no other whitespace is allowed; calls in
 *   comments count; the prefix is not anchored (`my_drop_block(` matches);
 * - each call is emitted with `"` turned into `'`, one per line with a trailing `\n`, and the whole
 *   output is lower-cased; no call at all → `null` (the script logs `Code not found.`).
 *
 * Loops, variables and keyword arguments are therefore not evaluated: a call inside a loop counts
 * once, a call with a variable position is dropped.
 */

/** The function name of 2024–2025 (`drop_block(block_type, x_position)`). */
export const DROP_BLOCK = 'drop_block';
/** The function name of 2023 (`ab_drop(x, y)`; same call pattern in the official tools). */
export const AB_DROP = 'ab_drop';
/** The official failure reason when no call is found (code-extraction-script). */
export const CODE_NOT_FOUND = 'Code not found.';

const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The official tools paste the prefix into a regular expression unescaped; sbeval accepts only plain
 * identifiers, for which escaping does not matter, so a prefix can never become a hostile pattern.
 */
export function assertFunctionName(name: string): string {
  if (!FUNCTION_NAME.test(name)) {
    throw new RangeError(`function prefix ${JSON.stringify(name)} is not a plain identifier (letters, digits and "_", e.g. drop_block or ab_drop)`);
  }
  return name;
}

/** Three backticks, at least one non-backtick, three backticks (the official block pattern). */
const FENCE = /```([^`]+)```/g;

const callPatterns = new Map<string, RegExp>();
function callPattern(prefix: string): RegExp {
  let pattern = callPatterns.get(prefix);
  if (!pattern) {
    assertFunctionName(prefix);
    // The official pattern, character for character: `['|"]` and `[1|3]` also accept `|`.
    pattern = new RegExp(`${prefix}\\(['|"]b[1|3][1|3]['|"], *\\d*\\)`, 'g');
    callPatterns.set(prefix, pattern);
  }
  return pattern;
}

/** The last complete fenced block of `text`, fences included, or `undefined`. */
export function lastFencedBlock(text: string): string | undefined {
  FENCE.lastIndex = 0;
  let last: string | undefined;
  for (let m = FENCE.exec(text); m !== null; m = FENCE.exec(text)) last = m[0];
  FENCE.lastIndex = 0;
  return last;
}

/**
 * The drop calls of an LLM response as the official tools extract them, or `null` when there are
 * none (no fenced block, or no matching call in the last one).
 */
export function extractCode(text: string, prefix: string = DROP_BLOCK): string | null {
  const pattern = callPattern(prefix);
  const block = lastFencedBlock(text);
  if (block === undefined) return null;
  let output = '';
  pattern.lastIndex = 0;
  for (let m = pattern.exec(block); m !== null; m = pattern.exec(block)) output += `${m[0].replaceAll('"', "'")}\n`;
  pattern.lastIndex = 0;
  return output.length === 0 ? null : output.toLowerCase();
}
