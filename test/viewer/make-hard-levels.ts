/**
 * Writes the "hard" generated levels of the regression corpus (test/fixtures/corpus/hard-levels/):
 * seeded drop programs of several families that stress the engine — tall towers that settle, stairs
 * and cantilevers that tip, dense random piles, bridges — converted with the official converter
 * (levels/pipeline.ts). Deterministic: the same seeds give the same files.
 *
 *   npx tsx test/viewer/make-hard-levels.ts [out-dir]
 *   npx sbeval record test/fixtures/corpus/hard-levels --out test/fixtures/corpus/hard
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fnv1a, mulberry32 as prng } from '../../bridge/headless/order.js';
import { isMainModule } from '../../core/main-module.js';
import { convertProgram } from '../../levels/pipeline.js';

type Call = [block: 'b11' | 'b31' | 'b13', slot: number];

const families: Record<string, (rand: () => number) => Call[]> = {
  /**
   * A tall column of vertical planks capped by horizontal ones, with weights on top: settles through
   * many start gaps. Three storeys leave room for the weights under the grid's top row; the weights'
   * count and sides vary with the seed (the left shift erases the column's position, so position
   * alone would not make two towers differ).
   */
  tower: (rand) => {
    const x = 4 + Math.floor(rand() * 10);
    const calls: Call[] = [['b31', x]];
    for (let i = 0; i < 3; i++) calls.push(['b13', x - 1], ['b13', x + 1], ['b31', x]);
    const weights = 1 + Math.floor(rand() * 3);
    for (let i = 0; i < weights; i++) calls.push(['b11', x - 1 + Math.floor(rand() * 3)]);
    return calls;
  },
  /** Stairs of horizontal planks each shifted one column: the load walks past its base and tips. */
  stairs: (rand) => {
    const x = 2 + Math.floor(rand() * 4);
    const calls: Call[] = [['b13', x]];
    const steps = 6 + Math.floor(rand() * 5);
    for (let i = 0; i < steps; i++) calls.push(['b31', x + 1 + i]);
    return calls;
  },
  /** A dense random pile over the whole grid. */
  pile: (rand) => {
    const calls: Call[] = [];
    const n = 35 + Math.floor(rand() * 20);
    const kinds: Call[0][] = ['b11', 'b31', 'b13'];
    for (let i = 0; i < n; i++) calls.push([kinds[Math.floor(rand() * 3)]!, 1 + Math.floor(rand() * 18)]);
    return calls;
  },
  /** Pillars with planks across and blocks on top, some off centre. */
  bridge: (rand) => {
    const calls: Call[] = [];
    for (let x = 2; x <= 16; x += 4) calls.push(['b13', x], ['b13', x + 2]);
    for (let x = 3; x <= 17; x += 4) calls.push(['b31', x]);
    for (let i = 0; i < 8; i++) calls.push(['b11', 2 + Math.floor(rand() * 17)]);
    return calls;
  },
  /** Cantilevers: planks reaching out from a central column, with weights near their tips. */
  cantilever: (rand) => {
    const x = 8 + Math.floor(rand() * 3);
    const calls: Call[] = [];
    for (let level = 0; level < 3; level++) {
      calls.push(['b13', x], ['b31', x + 1], ['b31', x - 1], ['b11', x + 2 + Math.floor(rand() * 2)], ['b11', x - 2 - Math.floor(rand() * 2)]);
    }
    return calls;
  },
};

/** Which family and seed each corpus level uses (two of each). */
const PLAN: Array<[family: keyof typeof families, seed: number]> = [
  ['tower', 1],
  ['tower', 2],
  ['stairs', 3],
  ['stairs', 4],
  ['pile', 5],
  ['pile', 6],
  ['bridge', 7],
  ['bridge', 8],
  ['cantilever', 9],
  ['cantilever', 10],
];

export function hardLevels(): Array<{ name: string; program: string; xml: string }> {
  return PLAN.map(([family, seed], i) => {
    const calls = families[family]!(prng(fnv1a(`${family}:${seed}`)));
    const program = calls.map(([b, x]) => `drop_block('${b}', ${x})`).join('\n');
    const result = convertProgram(program);
    if (!result.ok) throw new Error(`hard level ${family}/${seed}: ${result.reason}`);
    return { name: `hard_${String(i + 1).padStart(2, '0')}_${family}`, program, xml: result.xml };
  });
}

if (isMainModule(import.meta.url)) {
  const out = process.argv[2] ?? fileURLToPath(new URL('../fixtures/corpus/hard-levels/', import.meta.url));
  mkdirSync(out, { recursive: true });
  for (const level of hardLevels()) {
    writeFileSync(join(out, `${level.name}.txt`), `${level.program}\n`);
    writeFileSync(join(out, `${level.name}.xml`), level.xml);
  }
  process.stdout.write(`wrote ${PLAN.length} levels to ${out}\n`);
}
