/**
 * Text from peers and files (engine instance names and error texts, file names, file contents) as it
 * may be printed to a terminal or written into a line-per-record log: every control character —
 * C0 (ESC, CR, BEL, newline; tab kept), DEL and C1 (CSI, OSC as single bytes) — and the Unicode
 * direction overrides become visible escapes (`\x1b`, `\n`, `\u202e`). So such text can neither
 * drive the terminal (ECMA-48 control functions: clear the screen, set the title, move the cursor)
 * nor start a line of its own (a forged "Succeed" or "verified" line), nor reorder what is shown
 * (Unicode TR #9 explicit formatting characters, the "Trojan Source" attack, CVE-2021-42574).
 *
 * With `lines`, newlines are kept (a log's tail, a multi-line message) and every line after the
 * first is indented, so no line of it starts where sbeval's own lines start.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this pattern's job.
const UNPRINTABLE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\u001b': '\\x1b' };

function escapeOne(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

export function printable(text: string, options: { lines?: boolean } = {}): string {
  if (!options.lines) return text.replace(UNPRINTABLE, escapeOne);
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(UNPRINTABLE, escapeOne))
    .join('\n  ');
}
