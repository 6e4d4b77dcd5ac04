import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sbevalInProcess as sbeval } from './helpers/in-process-cli.js';
import { copyOf, resultFiles, scoredExample, type Workspace, workspace } from './helpers/result-folder.js';

/**
 * `sbeval check` exits 1 exactly when a fresh `sbeval score` would write other result files. After a
 * scored `run` on a copy of the example (T 3), random additions of empty team, model-like and letter
 * folders, trial files numbered beyond T and renamed files; then `check`, then `score`: the result files
 * but the manifest (which records the inputs by name) are byte-identical to the scored ones exactly when
 * `check` said the results still describe the folder. fast-check, seeded, a few sequences.
 */
const TEAMS = ['BlockSmith', 'GridThinkers', 'PromptPilots'];
const LETTERS = ['I', 'L', 'Z'];
const STAGES = ['raw', 'intermediate', 'levels', 'images'];

type Op =
  | { kind: 'empty-team'; name: string }
  | { kind: 'empty-letter'; team: string; stage: string; letter: string }
  | { kind: 'beyond-t'; team: string; letter: string; stage: 'raw' | 'levels' }
  | { kind: 'rename'; team: string; letter: string; trial: number; to: 'md' | 'trial-9' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('empty-team' as const), name: fc.constantFrom('Ghost', 'zz_empty', '.hidden') }),
  fc.record({
    kind: fc.constant('empty-letter' as const),
    team: fc.constantFrom(...TEAMS),
    stage: fc.constantFrom(...STAGES),
    letter: fc.constantFrom(...LETTERS),
  }),
  fc.record({
    kind: fc.constant('beyond-t' as const),
    team: fc.constantFrom(...TEAMS),
    letter: fc.constantFrom('I', 'L'),
    stage: fc.constantFrom('raw' as const, 'levels' as const),
  }),
  fc.record({
    kind: fc.constant('rename' as const),
    team: fc.constantFrom(...TEAMS),
    letter: fc.constantFrom('I', 'L'),
    trial: fc.integer({ min: 1, max: 3 }),
    to: fc.constantFrom('md' as const, 'trial-9' as const),
  }),
);

let ws: Workspace;
let scored: string;
let truth: Map<string, string>;
let count = 0;

beforeAll(async () => {
  ws = workspace('sbeval-check-property-');
  scored = await scoredExample(ws);
  truth = resultFiles(scored);
}, 240_000);
afterAll(() => {
  ws.restore();
  rmSync(ws.dir, { recursive: true, force: true });
});

function apply(root: string, o: Op): void {
  if (o.kind === 'empty-team') mkdirSync(join(root, o.name), { recursive: true });
  else if (o.kind === 'empty-letter') mkdirSync(join(root, o.team, o.stage, o.letter), { recursive: true });
  else if (o.kind === 'beyond-t') {
    const dir = join(root, o.team, o.stage, o.letter);
    const ext = o.stage === 'raw' ? '.txt' : '.xml';
    const source = existsSync(dir) ? readdirSync(dir).find((f) => f.endsWith(ext)) : undefined;
    if (source) copyFileSync(join(dir, source), join(dir, `${o.team}_${o.letter}_7${ext}`));
  } else {
    const file = join(root, o.team, 'raw', o.letter, `${o.team}_${o.letter}_${o.trial}.txt`);
    if (existsSync(file)) renameSync(file, o.to === 'md' ? `${file.slice(0, -4)}.md` : join(root, o.team, 'raw', o.letter, `${o.team}_${o.letter}_9.txt`));
  }
}

const withoutManifest = (files: Map<string, string>) => new Map([...files].filter(([name]) => name !== 'manifest.json'));

describe('check exits 1 exactly when a fresh score would write other result files', () => {
  it('after random empty folders, trial files beyond T and renamed files', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 0, maxLength: 3 }), async (ops) => {
        const root = copyOf(scored, join(ws.dir, `case-${count++}`));
        for (const o of ops) apply(root, o);
        const check = await sbeval(['check', root]);
        expect([0, 1]).toContain(check.code);
        await sbeval(['score', root]);
        const same = JSON.stringify([...withoutManifest(resultFiles(root))]) === JSON.stringify([...withoutManifest(truth)]);
        expect(check.code === 0, `${JSON.stringify(ops)}\n${check.stdout}`).toBe(same);
      }),
      {
        seed: 34,
        numRuns: 20,
        examples: [
          [[]],
          [[{ kind: 'empty-team', name: 'Ghost' }]],
          [[{ kind: 'empty-letter', team: 'BlockSmith', stage: 'images', letter: 'Z' }]],
          [[{ kind: 'empty-team', name: '.hidden' }]],
        ],
      },
    );
  }, 600_000);
});
