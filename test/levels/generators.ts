/**
 * Seeded generators of LLM-like responses, drop programs and prompt texts for the differential tests
 * against the official package. Everything derives from one 32-bit seed, so a failure names the seed
 * that reproduces it.
 */

/** Seeded PRNG: the engine's own mulberry32 (one implementation in the project). */
export { mulberry32 as prng } from '../../bridge/headless/order.js';

import { mulberry32 as prng } from '../../bridge/headless/order.js';

export class Gen {
  readonly next: () => number;
  constructor(readonly seed: number) {
    this.next = prng(seed);
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  /** Picks with weights: `[[weight, value], ...]`. */
  weighted<T>(items: ReadonlyArray<readonly [number, T]>): T {
    const total = items.reduce((s, [w]) => s + w, 0);
    let r = this.next() * total;
    for (const [w, v] of items) {
      r -= w;
      if (r < 0) return v;
    }
    return items[items.length - 1]![1];
  }
}

const PROSE = [
  'Sure! Here is a structure that looks like the letter.',
  'To build this, we stack blocks carefully.',
  "Let's think step by step about the base first.",
  'The `drop_block` function drops a block at a column.',
  'Note: b31 is a horizontal block and b13 is vertical.',
  'I hope this helps!',
  'First, place the base; then the stem.',
  'This uses "quotes" and \'single quotes\' and `inline code`.',
  'Explanation:\n- step one\n- step two',
  '### Output',
  '',
  "drop_block('b11', 4) is mentioned in prose outside any fence.",
];

const QUOTES: ReadonlyArray<readonly [number, string]> = [
  [10, "'"],
  [6, '"'],
  [1, '|'],
  [1, '`'],
  [1, '’'],
  [1, ''],
];
const TYPES: ReadonlyArray<readonly [number, string]> = [
  [10, 'b11'],
  [10, 'b13'],
  [10, 'b31'],
  [1, 'B11'],
  [1, 'b33'],
  [1, 'b1'],
  [1, 'b111'],
  [1, 'b|1'],
  [1, 'b21'],
  [1, 'b3|'],
  [1, 'block'],
];
const SLOTS = (g: Gen): string =>
  g.weighted<() => string>([
    [30, () => String(g.int(0, 19))],
    [4, () => String(g.int(20, 30))],
    [2, () => ''],
    [1, () => '-1'],
    [1, () => '99999999999999999999'],
    [1, () => String(g.int(0, 9)).padStart(3, '0')],
    [1, () => 'x'],
    [1, () => `${g.int(0, 19)}.5`],
    [1, () => `W-${g.int(1, 3)}`],
    [1, () => `x_position=${g.int(0, 19)}`],
  ])();
const PREFIXES: ReadonlyArray<readonly [number, string]> = [
  [20, 'drop_block'],
  [3, 'ab_drop'],
  [1, 'DROP_BLOCK'],
  [1, 'Drop_Block'],
  [1, 'my_drop_block'],
  [1, 'drop_blocks'],
  [1, 'drop'],
];

/** One call in the many shapes LLMs write them. */
export function call(g: Gen, prefix?: string): string {
  const name = prefix && g.chance(0.85) ? prefix : g.weighted(PREFIXES);
  const q1 = g.weighted(QUOTES);
  const q2 = g.chance(0.9) ? q1 : g.weighted(QUOTES);
  const open = g.chance(0.95) ? '(' : '( ';
  const afterComma = g.weighted([
    [10, ' '],
    [4, ''],
    [2, '  '],
    [1, '\t'],
    [1, '   '],
  ]);
  const beforeComma = g.chance(0.95) ? '' : ' ';
  const close = g.chance(0.95) ? ')' : ' )';
  const type = g.weighted(TYPES);
  const keyword = g.chance(0.03) ? 'block_type=' : '';
  return `${name}${open}${keyword}${q1}${type}${q2}${beforeComma},${afterComma}${SLOTS(g)}${close}`;
}

function codeBody(g: Gen, prefix: string | undefined): string {
  const lines: string[] = [];
  const n = g.int(0, 14);
  for (let k = 0; k < n; k++) {
    const style = g.weighted<string>([
      [20, 'plain'],
      [2, 'comment'],
      [2, 'loop'],
      [2, 'variable'],
      [1, 'two'],
      [1, 'indent'],
      [1, 'string'],
      [1, 'blank'],
    ]);
    const c = call(g, prefix);
    if (style === 'plain') lines.push(c);
    else if (style === 'comment') lines.push(g.chance(0.5) ? `# ${c}` : `${c}  # base`);
    else if (style === 'loop') lines.push(`for i in range(${g.int(1, 4)}):`, `    ${c}`, `    drop_block('b11', i)`);
    else if (style === 'variable') lines.push(`x = ${g.int(0, 19)}`, `${prefix ?? 'drop_block'}('b13', x)`, c);
    else if (style === 'two') lines.push(`${c}; ${call(g, prefix)}`);
    else if (style === 'indent') lines.push(`  ${c}`);
    else if (style === 'string') lines.push(`print("${c}")`);
    else lines.push('');
  }
  return lines.join(g.chance(0.9) ? '\n' : '\r\n');
}

/** A whole response: prose, fences of several kinds, sometimes none, sometimes broken. */
export function response(g: Gen, prefix?: string): string {
  const parts: string[] = [];
  const blocks = g.weighted([
    [2, 0],
    [10, 1],
    [4, 2],
    [1, 3],
  ]);
  if (g.chance(0.7)) parts.push(g.pick(PROSE));
  for (let b = 0; b < blocks; b++) {
    const fence = g.weighted([
      [20, '```'],
      [2, '````'],
      [1, '~~~'],
      [1, '``'],
    ]);
    const lang = g.weighted([
      [6, ''],
      [6, 'python'],
      [1, 'py'],
      [1, 'plaintext'],
    ]);
    const body = codeBody(g, prefix);
    const inlineTick = g.chance(0.04) ? ' `note` ' : '';
    const closing = g.chance(0.93) ? fence : '';
    parts.push(`${fence}${lang}\n${body}${inlineTick}\n${closing}`);
    if (g.chance(0.6)) parts.push(g.pick(PROSE));
  }
  if (g.chance(0.1)) parts.push(call(g, prefix));
  if (g.chance(0.03)) parts.push('```');
  return parts.join(g.chance(0.8) ? '\n\n' : '\n');
}

/** A drop program as it may sit in an `intermediate` file, clean or hand-edited. */
export function program(g: Gen, prefix = 'drop_block'): string {
  const lines: string[] = [];
  const n = g.weighted([
    [1, 0],
    [6, g.int(1, 8)],
    [6, g.int(8, 30)],
    [1, g.int(30, 80)],
  ]);
  for (let k = 0; k < n; k++) {
    const kind = g.weighted<string>([
      [40, 'clean'],
      [4, 'weird'],
      [2, 'other'],
      [1, 'blank'],
    ]);
    if (kind === 'clean') {
      const type = g.weighted([
        [10, 'b11'],
        [10, 'b13'],
        [10, 'b31'],
        [1, 'b33'],
      ]);
      lines.push(
        `${prefix}('${type}', ${g.weighted([
          [40, String(g.int(1, 18))],
          [4, String(g.int(0, 19))],
          [1, String(g.int(20, 25))],
          [1, ''],
        ])})`,
      );
    } else if (kind === 'weird') {
      const type = g.weighted([
        [6, "'b11'"],
        [3, '"B31"'],
        [2, '|b13|'],
        [1, 'b11'],
        [1, "'b11"],
        [1, "''b11''"],
        [1, ''],
        [1, "'B1'"],
      ]);
      const slot = g.pick(['-0', '+3', ' 7 ', '0x1', '1e3', '3abc', '', '  ', '-1', '19', '0', '007', '12.9', '4294967296', '\u00a05', 'NaN']);
      const comma = g.weighted([
        [8, ','],
        [1, ',,'],
        [1, ''],
      ]);
      const close = g.weighted([
        [8, ')'],
        [1, ''],
        [1, '))'],
      ]);
      const tail = g.weighted([
        [8, ''],
        [1, '\r'],
        [1, ' # c'],
        [1, ', 3)'],
      ]);
      const name = g.weighted([
        [10, prefix],
        [1, prefix.toUpperCase()],
        [1, ` ${prefix}`],
      ]);
      lines.push(`${name}(${type}${comma}${slot}${close}${tail}`);
    } else if (kind === 'other') {
      lines.push(g.pick(['# comment', 'x = 3', `other_fn('b11', 3)`, '```', 'for i in range(3):']));
    } else lines.push('');
  }
  return lines.join('\n') + (g.chance(0.8) ? '\n' : '');
}

const PROMPT_CHARS = [
  'a',
  'Z',
  '0',
  ' ',
  ' ',
  ' ',
  '\n',
  '\t',
  '\r\n',
  '.',
  ',',
  '-',
  '_',
  '|',
  '=',
  '+',
  '`',
  "'",
  '"',
  '<OBJECT>',
  '—',
  '–',
  '‘',
  '’',
  '“',
  '”',
  '…',
  '\u00a0',
  '\u3000',
  '\u2028',
  'é',
  '°',
  '×',
  '中',
  '文',
  'か',
  '한',
  'Ж',
  '😀',
  '10,000',
  "don't",
  'x_position',
  'W-1',
  '---',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ':',
  ';',
  '!',
  '?',
  '*',
  '/',
  '\\',
  '&',
  '%',
  '@',
  '#',
  '^',
  '$',
  '~',
  '、',
  '。',
  '，',
  '（',
  '\uff01',
  'ｂ',
  '\u2000',
  '\u200b',
  '\ufeff',
  '\u000b',
];

/** Prompt-like text mixing words, punctuation, whitespace kinds and non-ASCII characters. */
export function promptText(g: Gen): string {
  let text = '';
  const n = g.int(0, 60);
  for (let k = 0; k < n; k++) {
    text += g.chance(0.5) ? g.pick(['drop_block', 'the', 'letter', 'block', 'b31', '42', 'word1word2', 'Ünïcödé']) : g.pick(PROMPT_CHARS);
    if (g.chance(0.4)) text += g.pick([' ', '  ', '\n', '\t', '']);
  }
  return text;
}
