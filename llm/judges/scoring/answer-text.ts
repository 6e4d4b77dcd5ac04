/**
 * Judges' answers before parsing. Reasoning models (deepseek-r1, qwen3 …) served by Ollama put their
 * chain of thought in `<think>…</think>` ahead of the answer; a thought may well quote the required
 * tags or an ordering it later revises, so it is removed first. An unclosed `<think>` (the answer was
 * cut inside the thought) leaves nothing to parse.
 *
 * Every reader of a judge's answer is one forward pass over the text (no backtracking regular
 * expression over the answer): an answer is whatever a model sends, up to the answer byte cap, and
 * must not cost quadratic time (test/llm/judges/parse-bounds.test.ts).
 */
const OPEN = '<think>';
const CLOSE = '</think>';

/** Index of `tag` (lower case, starting with `<`) in `text` at or after `from`, case-insensitively; -1 when absent. */
function findTag(text: string, tag: string, from: number): number {
  for (let i = text.indexOf('<', from); i >= 0; i = text.indexOf('<', i + 1)) {
    if (hasWordAt(text, i, tag)) return i;
  }
  return -1;
}

export function stripThinking(text: string): string {
  let out = '';
  let pos = 0;
  for (;;) {
    const open = findTag(text, OPEN, pos);
    if (open < 0) return out + text.slice(pos);
    out += text.slice(pos, open);
    const close = findTag(text, CLOSE, open + OPEN.length);
    if (close < 0) return out;
    pos = close + CLOSE.length;
  }
}

/** A raw answer kept in a failure record: whole up to `max` characters, else head and tail. */
export function keepRaw(text: string, max = 20_000): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters cut …]\n${text.slice(-half)}`;
}

/** White space as JavaScript's `\s` defines it, by character code (no expression per character). */
function isSpaceCode(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** The first index at or after `i` that is not white space. */
export function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpaceCode(text.charCodeAt(i))) i += 1;
  return i;
}

/** Whether `text` holds `word` (lower case ASCII) at `i`, ignoring case. */
export function hasWordAt(text: string, i: number, word: string): boolean {
  if (i + word.length > text.length) return false;
  for (let k = 0; k < word.length; k += 1) {
    const c = text.charCodeAt(i + k);
    const w = word.charCodeAt(k);
    if (c !== w && !(w >= 97 && w <= 122 && c === w - 32)) return false;
  }
  return true;
}

/** Text quoted in a reason: at most `max` characters, white space collapsed. */
export function quote(text: string, max = 120): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return cut.replace(/\s+/g, ' ').trim();
}
