import { hasWordAt, quote, skipSpace, stripThinking } from './answer-text.js';

/**
 * The ordering judge's answer (reference/judges/ordering-judge.md): a line such as
 * `Assistant 2 > Assistant 1 = Assistant 3 > Assistant 4`, `>` "is better than", `=` "is as good as".
 *
 * Reading it:
 * - `<think>` blocks are dropped; `**`/`__` emphasis is ignored; `>=`, `≥`, `≻` and `>>` read as `>`
 *   (as the published evaluation scripts do for `>=`), `==` and `≈` as `=`; a chain written with `<`
 *   only (`Assistant 3 < Assistant 1`) is read backwards;
 * - a chain is "Assistant k" names joined by those operators with nothing but white space between;
 *   a complete chain names every one of the n assistants exactly once;
 * - which complete chain is the answer (`pick`): sbeval's protocol takes the LAST (the prompt asks for
 *   the ordering in the last line, and a rambling judge often writes partial comparisons before it);
 *   the document's protocol takes the FIRST, as its published compute pipeline does;
 * - no complete chain → a failure with its reason.
 * The text is read in one forward pass (a tokenizer, no backtracking expression): linear in its length.
 *
 * Ranks: ties share a rank and the next rank skips ("standard competition ranking"), exactly the
 * `order` field of the reference's review.jsonl: `Assistant 2 > Assistant 1 = Assistant 3 >
 * Assistant 4` → [2, 1, 2, 4].
 */
export type OrderAnswer = { ok: true; ranks: number[]; line: string } | { ok: false; reason: string };
export type ChainPick = 'first' | 'last';

interface Chain {
  names: number[];
  ops: string[];
  start: number;
  end: number;
}

function normalise(text: string): string {
  return stripThinking(text)
    .replace(/\*\*|__/g, '')
    .replace(/>=|≥|≻|>>|»/g, '>')
    .replace(/<=|≤|≺|<<|«/g, '<')
    .replace(/==|≈|≡/g, '=');
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/** "Assistant [#] N" at `i` (case-insensitive, white space allowed around `#`): the number and where it ends. */
function readName(text: string, i: number): { n: number; end: number } | undefined {
  if (!hasWordAt(text, i, 'assistant')) return undefined;
  let j = skipSpace(text, i + 9);
  if (text[j] === '#') j = skipSpace(text, j + 1);
  const digits = j;
  while (j < text.length && isDigit(text.charCodeAt(j))) j += 1;
  if (j === digits) return undefined;
  return { n: Number(text.slice(digits, j)), end: j };
}

/** The operator joining two names when `text[from, to)` is white space, one of `> < =`, white space; else undefined. */
function joiningOp(text: string, from: number, to: number): string | undefined {
  const i = skipSpace(text, from);
  const op = text[i];
  if (i >= to || (op !== '>' && op !== '<' && op !== '=')) return undefined;
  return skipSpace(text, i + 1) === to ? op : undefined;
}

const NAME = /assistant/gi;

/**
 * Every chain of two or more names in the text, in order. Names are found by a literal search; the
 * text between two consecutive names is scanned once to see whether it joins them, so the whole pass
 * is linear.
 */
function chains(text: string): Chain[] {
  const out: Chain[] = [];
  let current: Chain | undefined;
  const close = () => {
    if (current && current.names.length >= 2) out.push(current);
    current = undefined;
  };
  for (const m of text.matchAll(NAME)) {
    if (current && m.index < current.end) continue;
    const name = readName(text, m.index);
    if (!name) continue;
    const op = current && joiningOp(text, current.end, m.index);
    if (current && op) {
      current.names.push(name.n);
      current.ops.push(op);
      current.end = name.end;
    } else {
      close();
      current = { names: [name.n], ops: [], start: m.index, end: name.end };
    }
  }
  close();
  return out;
}

function listNames(names: readonly number[]): string {
  const distinct = [...new Set(names)].sort((a, b) => a - b);
  const shown = distinct
    .slice(0, 8)
    .map((k) => `Assistant ${k}`)
    .join(', ');
  return distinct.length > 8 ? `${shown} and ${distinct.length - 8} more` : shown;
}

function ranksOf(chain: Pick<Chain, 'names' | 'ops'>, n: number, text: string): number[] | string {
  let { names, ops } = chain;
  if (ops.includes('<') && ops.includes('>')) return `mixes "<" and ">": ${quote(text)}`;
  if (ops.includes('<')) {
    names = [...names].reverse();
    ops = [...ops].reverse();
  }
  const seen = new Set(names);
  if (names.length !== n || seen.size !== n || names.some((k) => k < 1 || k > n)) {
    return `names ${listNames(names)} instead of each of Assistant 1 to Assistant ${n} once`;
  }
  const ranks = new Array<number>(n).fill(0);
  let rank = 1;
  ranks[names[0]! - 1] = 1;
  for (let i = 1; i < names.length; i += 1) {
    if (ops[i - 1] !== '=') rank = i + 1;
    ranks[names[i]! - 1] = rank;
  }
  return ranks;
}

/** Ranks of assistants 1..n from one chain's text, or why the chain is not a full ordering. */
export function chainRanks(chain: string, n: number): number[] | string {
  const found = chains(normalise(chain));
  if (found.length !== 1) return `not one chain: ${quote(chain)}`;
  return ranksOf(found[0]!, n, chain);
}

export function parseOrder(raw: string, n: number, pick: ChainPick = 'last'): OrderAnswer {
  if (!Number.isInteger(n) || n < 2) throw new RangeError(`an ordering needs at least 2 assistants, got ${n}`);
  const text = normalise(raw);
  const found = chains(text);
  if (pick === 'last') found.reverse();
  let problem: string | undefined;
  for (const chain of found) {
    const span = text.slice(chain.start, chain.end);
    const ranks = ranksOf(chain, n, span);
    if (typeof ranks !== 'string') return { ok: true, ranks, line: span.replace(/\s+/g, ' ').trim() };
    problem ??= ranks;
  }
  if (problem) return { ok: false, reason: `no ordering names all ${n} assistants exactly once (the ${pick} chain ${problem})` };
  return { ok: false, reason: `no ordering of the form "Assistant 2 > Assistant 1 = …" in the answer` };
}

/**
 * Rank → score. The reference holds two mappings (reference/judges/ordering-judge.md):
 * - `table`: its written table, 1 → 10, 2 → 7.5, 3 → 5, 4 → 2.5 (10 − 2.5 × (rank − 1)); defined for
 *   ranks 1–4 (a fractional rank, the mean of several presentations, maps linearly in between);
 * - `reciprocal`: its published compute script and worked example, 10 / rank (10, 5, 3.33, 2.5).
 * A tie shares its rank, so it shares that rank's score: two assistants tied first both get 10, and a
 * judge that ties everything gives everyone 10 (no information, which the win/tie/lose counts and the
 * tie rate show).
 */
export type RankScores = 'table' | 'reciprocal';
export const RANK_SCORES: readonly RankScores[] = ['table', 'reciprocal'];
/** The table's last rank (the reference's table stops at 4). */
export const TABLE_MAX_RANK = 4;

export function rankScore(rank: number, scale: RankScores = 'table'): number {
  if (!(rank >= 1)) throw new RangeError(`rank ${rank} is not ≥ 1`);
  if (scale === 'reciprocal') return 10 / rank;
  if (rank > TABLE_MAX_RANK) throw new RangeError(`the table scores ranks 1–${TABLE_MAX_RANK}, not ${rank}`);
  return 10 - 2.5 * (rank - 1);
}

/** Competition ranks from values where lower is better (shared values share the best rank). */
export function competitionRanks(values: readonly number[]): number[] {
  return values.map((v) => 1 + values.filter((w) => w < v).length);
}
