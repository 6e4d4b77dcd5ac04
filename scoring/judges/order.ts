import { stripThinking } from './answer-text.js';

/**
 * The ordering judge's answer (reference/judges/ordering-judge.md): a line such as
 * `Assistant 2 > Assistant 1 = Assistant 3 > Assistant 4`, `>` "is better than", `=` "is as good as".
 *
 * Reading it:
 * - `<think>` blocks are dropped; `**`/`__` emphasis is ignored; `>=`, `≥`, `≻` and `>>` read as `>`
 *   (as the published evaluation scripts do for `>=`), `==` and `≈` as `=`; a chain written with `<`
 *   only (`Assistant 3 < Assistant 1`) is read backwards;
 * - a valid ordering names every one of the n assistants exactly once; the LAST valid ordering in
 *   the text is the answer (the prompt asks for it in the last line, and a rambling judge often writes
 *   partial comparisons before it — the published script takes the first complete chain instead);
 * - no valid ordering → a failure with its reason.
 *
 * Ranks: ties share a rank and the next rank skips ("standard competition ranking"), exactly the
 * `order` field of the reference's review.jsonl: `Assistant 2 > Assistant 1 = Assistant 3 >
 * Assistant 4` → [2, 1, 2, 4].
 */
export type OrderAnswer = { ok: true; ranks: number[]; line: string } | { ok: false; reason: string };

const CHAIN = /assistant\s*#?\s*(\d+)(?:\s*(?:>|=|<)\s*assistant\s*#?\s*\d+)+/gi;

function normalise(text: string): string {
  return stripThinking(text)
    .replace(/\*\*|__/g, '')
    .replace(/>=|≥|≻|>>|»/g, '>')
    .replace(/<=|≤|≺|<<|«/g, '<')
    .replace(/==|≈|≡/g, '=');
}

/** Ranks of assistants 1..n from one chain, or why the chain is not a full ordering. */
export function chainRanks(chain: string, n: number): number[] | string {
  const names = [...chain.matchAll(/assistant\s*#?\s*(\d+)/gi)].map((m) => Number(m[1]));
  const ops = [...chain.matchAll(/assistant\s*#?\s*\d+\s*([<>=])/gi)].map((m) => m[1]!);
  if (ops.includes('<') && ops.includes('>')) return `mixes "<" and ">": ${chain}`;
  if (ops.includes('<')) {
    names.reverse();
    ops.reverse();
  }
  const seen = new Set(names);
  if (names.length !== n || seen.size !== n || names.some((k) => k < 1 || k > n)) {
    return `names ${[...seen].sort((a, b) => a - b).map((k) => `Assistant ${k}`).join(', ')} instead of each of Assistant 1 to Assistant ${n} once`;
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

export function parseOrder(raw: string, n: number): OrderAnswer {
  if (!Number.isInteger(n) || n < 2) throw new RangeError(`an ordering needs at least 2 assistants, got ${n}`);
  const text = normalise(raw);
  const chains = [...text.matchAll(CHAIN)].map((m) => m[0]);
  let lastProblem: string | undefined;
  for (let i = chains.length - 1; i >= 0; i -= 1) {
    const ranks = chainRanks(chains[i]!, n);
    if (typeof ranks !== 'string') return { ok: true, ranks, line: chains[i]!.replace(/\s+/g, ' ').trim() };
    lastProblem ??= ranks;
  }
  if (lastProblem) return { ok: false, reason: `no ordering names all ${n} assistants exactly once (the last chain ${lastProblem})` };
  return { ok: false, reason: `no ordering of the form "Assistant 2 > Assistant 1 = …" in the answer` };
}

/**
 * Rank → score, the reference's table: 1 → 10, 2 → 7.5, 3 → 5, 4 → 2.5 (10 − 2.5 × (rank − 1)).
 * A tie shares its rank, so it shares that rank's score: two assistants tied first both get 10, and
 * a judge that ties everything gives everyone 10 (no information, which the win/tie/lose counts and
 * the tie rate show). The alternative — tied assistants sharing the mean of the ranks they span,
 * 1.5 → 8.75 — would keep the per-question sum constant but does not match the reference's `order`
 * field, which stores shared ranks ([2, 1, 2, 4]). The published evaluation script scores
 * 10 / rank (10, 5, 3.33, 2.5), against its own README's table; sbeval follows the table.
 * A fractional rank (the mean of two presentations) maps linearly by the same formula.
 */
export function rankScore(rank: number): number {
  if (!(rank >= 1)) throw new RangeError(`rank ${rank} is not ≥ 1`);
  return 10 - 2.5 * (rank - 1);
}

/** Competition ranks from values where lower is better (shared values share the best rank). */
export function competitionRanks(values: readonly number[]): number[] {
  return values.map((v) => 1 + values.filter((w) => w < v).length);
}
