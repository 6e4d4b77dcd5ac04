/**
 * The bench mix: seeded competition levels shaped like what LLMs return for "build the letter X",
 * plus the hard set (seeded random drop programs of 20–60 blocks, kept as a separate figure) and
 * loaders for the 90 reference levels and the hard corpus set (10 levels of 8–40 blocks).
 * `npm run bench -- simulate` measures on these; the mix test (test/bench/mix.test.ts) checks them.
 *
 * How a level is made (all through the real level pipeline, levels/pipeline.ts):
 * 1. a letter A–Z is drawn from a 3 × 5 bitmap font at a scale of 1–3 columns and 1–3 rows per font
 *    cell, sometimes with doubled strokes, at a random column;
 * 2. the bitmap becomes drop calls the way LLM programs build letters: bottom row first, left to
 *    right, a b31 where three cells of a row are free, a b13 where three cells of a column are, b11
 *    otherwise — the calls are dropped, so cells over a hole fall (bars of T, F, P, Y land lower,
 *    as they do in real answers);
 * 3. each call's slot is off by one with probability `MIX_SLOPPINESS` (LLMs miscount columns: bars
 *    that overhang their support are what makes real letters tip);
 * 4. the program is cut to the level's block count (drawn first, from the shares below; an answer
 *    that stops early), converted by the official converter; programs it refuses are drawn again.
 *
 * Shares of block counts, measured on 132 real LLM-generated competition levels: 55 % with
 * 1–9 blocks, 42 % with 10–19, 3 % with 20–39; about a quarter of those levels collapse (stability
 * below 1). The count quotas are exact (rounded shares of `count`); the collapse share comes from
 * `MIX_SLOPPINESS`, fitted on this generator's default seed (the bench reports the measured share on
 * every run; the test checks it on a different seed).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from '../../bridge/headless/order.js';
import { convertProgram } from '../../levels/pipeline.js';

export interface MixLevel {
  /** `<team>/<character>/<name>` parts for a competition folder. */
  team: string;
  character: string;
  name: string;
  program: string;
  xml: string;
  blocks: number;
}

/** Block-count bands and their shares in real LLM levels (132 competition levels). */
export const MIX_BANDS: ReadonlyArray<{ min: number; max: number; share: number }> = [
  { min: 1, max: 9, share: 0.55 },
  { min: 10, max: 19, share: 0.42 },
  { min: 20, max: 39, share: 0.03 },
];

/** Share of calls whose slot is off by one (fitted: gives ≈ 25 % collapsing levels on seed 2024; see the header). */
export const MIX_SLOPPINESS = 0.14;

export const MIX_DEFAULT_SEED = 2024;
export const MIX_DEFAULT_COUNT = 500;

/** A 3 × 5 bitmap font, top row first. */
const FONT: Readonly<Record<string, readonly string[]>> = {
  A: ['.#.', '#.#', '###', '#.#', '#.#'],
  B: ['##.', '#.#', '##.', '#.#', '##.'],
  C: ['.##', '#..', '#..', '#..', '.##'],
  D: ['##.', '#.#', '#.#', '#.#', '##.'],
  E: ['###', '#..', '##.', '#..', '###'],
  F: ['###', '#..', '##.', '#..', '#..'],
  G: ['.##', '#..', '#.#', '#.#', '.##'],
  H: ['#.#', '#.#', '###', '#.#', '#.#'],
  I: ['###', '.#.', '.#.', '.#.', '###'],
  J: ['..#', '..#', '..#', '#.#', '.#.'],
  K: ['#.#', '#.#', '##.', '#.#', '#.#'],
  L: ['#..', '#..', '#..', '#..', '###'],
  M: ['#.#', '###', '###', '#.#', '#.#'],
  N: ['##.', '#.#', '#.#', '#.#', '#.#'],
  O: ['###', '#.#', '#.#', '#.#', '###'],
  P: ['###', '#.#', '###', '#..', '#..'],
  Q: ['###', '#.#', '#.#', '###', '..#'],
  R: ['###', '#.#', '##.', '#.#', '#.#'],
  S: ['###', '#..', '###', '..#', '###'],
  T: ['###', '.#.', '.#.', '.#.', '.#.'],
  U: ['#.#', '#.#', '#.#', '#.#', '###'],
  V: ['#.#', '#.#', '#.#', '#.#', '.#.'],
  W: ['#.#', '#.#', '###', '###', '#.#'],
  X: ['#.#', '#.#', '.#.', '#.#', '#.#'],
  Y: ['#.#', '#.#', '.#.', '.#.', '.#.'],
  Z: ['###', '..#', '.#.', '#..', '###'],
};
export const MIX_LETTERS = Object.keys(FONT);

type Call = { block: 'b11' | 'b13' | 'b31'; slot: number };

/** The letter's cells on the drop grid (row 0 = bottom), scaled and optionally with doubled strokes. */
function letterCells(letter: string, sx: number, sy: number, thick: boolean): boolean[][] {
  const glyph = FONT[letter]!;
  const width = 3 * sx + (thick ? 1 : 0);
  const height = 5 * sy;
  const cells = Array.from({ length: height }, () => new Array<boolean>(width).fill(false));
  for (let r = 0; r < height; r++) {
    const row = glyph[4 - Math.floor(r / sy)]!;
    for (let c = 0; c < 3 * sx; c++) {
      if (row[Math.floor(c / sx)] !== '#') continue;
      cells[r]![c] = true;
      if (thick) cells[r]![c + 1] = true;
    }
  }
  return cells;
}

/** Bottom-up, left-to-right tiling of the cells into drop calls (b31 rows, b13 columns, b11 rest). */
function tile(cells: boolean[][], x0: number): Call[] {
  const height = cells.length;
  const width = cells[0]!.length;
  const covered = cells.map((row) => row.map(() => false));
  const free = (r: number, c: number) => r < height && c < width && cells[r]![c] === true && !covered[r]![c];
  const calls: Call[] = [];
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      if (!free(r, c)) continue;
      if (free(r, c + 1) && free(r, c + 2)) {
        covered[r]![c] = covered[r]![c + 1] = covered[r]![c + 2] = true;
        calls.push({ block: 'b31', slot: x0 + c + 1 });
      } else if (free(r + 1, c) && free(r + 2, c)) {
        covered[r]![c] = covered[r + 1]![c] = covered[r + 2]![c] = true;
        calls.push({ block: 'b13', slot: x0 + c });
      } else {
        covered[r]![c] = true;
        calls.push({ block: 'b11', slot: x0 + c });
      }
    }
  }
  return calls;
}

/** Exact quotas of block counts per band for `count` levels (largest-remainder rounding). */
export function bandQuotas(count: number): number[] {
  const raw = MIX_BANDS.map((b) => b.share * count);
  const quotas = raw.map(Math.floor);
  let left = count - quotas.reduce((a, b) => a + b, 0);
  const order = raw.map((r, i) => [r - Math.floor(r), i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of order) {
    if (left-- <= 0) break;
    quotas[i]! += 1;
  }
  return quotas;
}

/** The seeded mix of generated competition levels (deterministic: same count and seed, same levels). */
export function benchMix(count = MIX_DEFAULT_COUNT, seed = MIX_DEFAULT_SEED): MixLevel[] {
  const random = mulberry32(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const targets: number[] = [];
  bandQuotas(count).forEach((quota, band) => {
    const { min, max } = MIX_BANDS[band]!;
    for (let k = 0; k < quota; k++) targets.push(int(min, max));
  });
  // Interleave the bands (a competition folder is not sorted by size).
  for (let i = targets.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [targets[i], targets[j]] = [targets[j]!, targets[i]!];
  }
  const perLetter = new Map<string, number>();
  return targets.map((blocks) => {
    for (;;) {
      const letter = MIX_LETTERS[Math.floor(random() * MIX_LETTERS.length)]!;
      // The smallest drawing that has at least `blocks` blocks, among a few random scales.
      const options: Call[][] = [];
      for (let k = 0; k < 6; k++) {
        const sx = int(1, 3);
        const sy = int(1, 3);
        const thick = random() < 0.3;
        const cells = letterCells(letter, sx, sy, thick);
        const width = cells[0]!.length;
        options.push(tile(cells, int(1, Math.max(1, 19 - width))));
      }
      const fitting = options.filter((o) => o.length >= blocks).sort((a, b) => a.length - b.length);
      const drawing = fitting[0];
      if (!drawing) continue;
      const calls = drawing.slice(0, blocks).map((c) => (random() < MIX_SLOPPINESS ? { ...c, slot: c.slot + (random() < 0.5 ? -1 : 1) } : c));
      const program = calls.map((c) => `drop_block('${c.block}', ${c.slot})`).join('\n');
      const converted = convertProgram(program);
      if (!converted.ok) continue;
      const n = (perLetter.get(letter) ?? 0) + 1;
      perLetter.set(letter, n);
      return { team: 'mix', character: letter, name: `mix_${letter}_${n}`, program, xml: converted.xml, blocks: converted.structure.blocks.length };
    }
  });
}

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/', import.meta.url));

export interface NamedLevel {
  team: string;
  character: string;
  name: string;
  xml: string;
}

/** The 90 reference levels (v1–v3 × I, L, U) as competition entries. */
export function referenceLevels(): NamedLevel[] {
  const root = fileURLToPath(new URL('../../calibration/reference-levels/', import.meta.url));
  const out: NamedLevel[] = [];
  for (const team of readdirSync(root)
    .filter((d) => /^v\d$/.test(d))
    .sort()) {
    for (const character of readdirSync(join(root, team, 'levels')).sort()) {
      for (const file of readdirSync(join(root, team, 'levels', character))
        .filter((f) => f.endsWith('.xml'))
        .sort()) {
        out.push({ team, character, name: file.replace(/\.xml$/, ''), xml: readFileSync(join(root, team, 'levels', character, file), 'utf8') });
      }
    }
  }
  return out;
}

/** The 10 hard corpus levels (8–40 blocks: towers, stairs, piles, bridges, cantilevers), one character `H`. */
export function hardCorpusLevels(): NamedLevel[] {
  const dir = join(FIXTURES, 'corpus', 'hard-levels');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.xml'))
    .sort()
    .map((file) => ({ team: 'hard', character: 'H', name: file.replace(/\.xml$/, ''), xml: readFileSync(join(dir, file), 'utf8') }));
}

/** Size of the hard set and its seed (the simulate bench's figure before the mix existed used the same). */
export const HARD_SET_COUNT = 40;
export const HARD_SET_SEED = 7;

/**
 * The hard set: seeded random drop programs on the 20 × 16 grid (b11, b31, b13 at random columns),
 * each grown call by call while the official converter accepts it, to a drawn target of 20–60
 * blocks; programs that end below 20 blocks are drawn again. Far bigger than what LLMs return (3 % of
 * real levels have 20–39 blocks), so it is reported beside the mix, not in it.
 */
export function hardSet(count = HARD_SET_COUNT, seed = HARD_SET_SEED): NamedLevel[] {
  const random = mulberry32(seed);
  const ids = ['b11', 'b31', 'b13'] as const;
  const levels: NamedLevel[] = [];
  while (levels.length < count) {
    const target = 20 + Math.floor(random() * 41);
    const lines: string[] = [];
    let xml: string | undefined;
    let misses = 0;
    while (lines.length < target && misses < 200) {
      const line = `drop_block('${ids[Math.floor(random() * 3)]}', ${Math.floor(random() * 20)})`;
      const result = convertProgram([...lines, line].join('\n'));
      if (result.ok) {
        lines.push(line);
        xml = result.xml;
      } else misses++;
    }
    if (xml && lines.length >= 20) levels.push({ team: 'hardset', character: 'G', name: `hardset_G_${levels.length + 1}`, xml });
  }
  return levels;
}
