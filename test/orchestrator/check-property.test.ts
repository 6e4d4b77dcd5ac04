import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleSources } from '../helpers/cli.js';
import { sbevalInProcess as sbeval } from './helpers/in-process-cli.js';
import { copyOf, ok, resultFiles, scoredExample, type Workspace, workspace } from './helpers/result-folder.js';

/**
 * `sbeval check` exits 1 exactly when a fresh `sbeval score` would write other result files. After a
 * scored `run` on a copy of the example (T 3), random additions of empty team, model and letter
 * folders, trial files numbered beyond T and renamed files; then `check`, then `score`: the result files
 * (the manifest by its record of the folder: `comparable`) are the scored ones exactly when `check`
 * said the results still describe the folder. On the example as it is (team folders in the
 * root) and as the 2025 layout (a competition folder per model, orchestrator/layout/root-check.ts): a
 * model folder is one that holds a team folder, so an empty one, or one whose team holds nothing, may
 * or may not be a competition. fast-check, seeded, a few sequences.
 */
const TEAMS = ['BlockSmith', 'GridThinkers', 'PromptPilots'];
const LETTERS = ['I', 'L', 'Z'];
const STAGES = ['raw', 'intermediate', 'levels', 'images'];
/** The model folders of the 2025-layout copy. */
const MODELS = ['alpha_7b', 'beta_3b'];

type Op =
  | { kind: 'empty-team'; name: string }
  | { kind: 'empty-letter'; team: string; stage: string; letter: string }
  | { kind: 'beyond-t'; team: string; letter: string; stage: 'raw' | 'levels' }
  | { kind: 'rename'; team: string; letter: string; trial: number; to: 'md' | 'trial-9' }
  /** In the root: an empty folder, one with an empty team folder, with an empty stage folder, or with an empty letter folder. */
  | { kind: 'empty-model'; name: string; depth: 0 | 1 | 2 | 3 };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('empty-team' as const), name: fc.constantFrom('Ghost', 'zz_empty', '.hidden') }),
  fc.record({
    kind: fc.constant('empty-model' as const),
    name: fc.constantFrom('gamma_1b', 'aa_model', '.hidden_model'),
    depth: fc.constantFrom(0 as const, 1 as const, 2 as const, 3 as const),
  }),
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

/** A scored folder, where its competition folders are (the root, or one per model) and its result files. */
interface Scored {
  root: string;
  competitions: string[];
  truth: Map<string, string>;
}

let ws: Workspace;
let flat: Scored;
let models: Scored;
let count = 0;

/** `<ws>/scored-models`: two teams of the example under two model folders (T 3), after a plain `sbeval run`. */
async function scoredModels(): Promise<Scored> {
  const root = join(ws.dir, 'scored-models');
  for (const model of MODELS) copyExampleSources(join(root, model), { teams: TEAMS.slice(0, 2), letters: ['I', 'L'] });
  writeFileSync(join(root, 'sbeval.config.yaml'), 'rules: 2025\ntrials: 3\n');
  await ok(['run', root, '--model', ws.model]);
  return { root, competitions: MODELS, truth: resultFiles(root) };
}

beforeAll(async () => {
  ws = workspace('sbeval-check-property-');
  const scored = await scoredExample(ws);
  flat = { root: scored, competitions: ['.'], truth: resultFiles(scored) };
  models = await scoredModels();
}, 480_000);
afterAll(() => {
  ws.restore();
  rmSync(ws.dir, { recursive: true, force: true });
});

/** Applies `o` to the copy at `top`; team and letter changes go to its competition folder `competition`. */
function apply(top: string, competition: string, o: Op): void {
  const root = join(top, competition);
  if (o.kind === 'empty-model') mkdirSync(join(top, o.name, ...['Ghost', 'raw', 'I'].slice(0, o.depth)), { recursive: true });
  else if (o.kind === 'empty-team') mkdirSync(join(root, o.name), { recursive: true });
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

/**
 * The result files as a fresh score would write them: the manifest by its record of the folder (its
 * inputs, ranking folders, identity and readiness), not by what differs between the command that wrote
 * it (`run` records its stages' settings) or its outputs' hashes (the other files, compared themselves).
 */
function comparable(files: Map<string, string>): Map<string, string> {
  return new Map(
    [...files].map(([name, text]) => {
      if (name !== 'manifest.json') return [name, text];
      const { inputs, folders, identity, score } = JSON.parse(text) as Record<string, unknown>;
      return [name, JSON.stringify({ inputs, folders, identity, score })];
    }),
  );
}

/** The property on copies of `scored`: check's exit is 0 exactly when a fresh score writes the same result files. */
async function checkAgreesWithScore(scored: Scored, ops: Op[], competition: number): Promise<void> {
  const root = copyOf(scored.root, join(ws.dir, `case-${count++}`));
  const folder = scored.competitions[competition % scored.competitions.length] as string;
  for (const o of ops) apply(root, folder, o);
  const check = await sbeval(['check', root]);
  const score = await sbeval(['score', root]);
  // A folder that is no competition root to either (a team folder inside another folder): both refuse it, with one reason.
  if (check.code === 2) {
    expect(score.code, `${JSON.stringify(ops)} in ${folder}\n${check.stderr}`).toBe(2);
    expect(score.stderr.trim().split('\n').at(-1)).toBe(check.stderr.trim().split('\n').at(-1));
    return;
  }
  expect([0, 1]).toContain(check.code);
  const same = JSON.stringify([...comparable(resultFiles(root))]) === JSON.stringify([...comparable(scored.truth)]);
  expect(check.code === 0, `${JSON.stringify(ops)} in ${folder}\n${check.stdout}`).toBe(same);
}

describe('check exits 1 exactly when a fresh score would write other result files', () => {
  it('after random empty folders, trial files beyond T and renamed files', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 0, maxLength: 3 }), async (ops) => checkAgreesWithScore(flat, ops, 0)),
      {
        seed: 34,
        numRuns: 20,
        examples: [
          [[]],
          [[{ kind: 'empty-team', name: 'Ghost' }]],
          [[{ kind: 'empty-letter', team: 'BlockSmith', stage: 'images', letter: 'Z' }]],
          [[{ kind: 'empty-team', name: '.hidden' }]],
          [[{ kind: 'empty-model', name: 'gamma_1b', depth: 2 }]],
        ],
      },
    );
  }, 600_000);

  it('in a root with a competition folder per model, after random empty model, team and letter folders and trial files', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 0, maxLength: 3 }), fc.nat(), async (ops, competition) => checkAgreesWithScore(models, ops, competition)),
      {
        seed: 35,
        numRuns: 20,
        examples: [
          [[], 0],
          [[{ kind: 'empty-model', name: 'gamma_1b', depth: 0 }], 0],
          [[{ kind: 'empty-model', name: 'gamma_1b', depth: 1 }], 0],
          [[{ kind: 'empty-model', name: 'gamma_1b', depth: 2 }], 0],
          [[{ kind: 'empty-model', name: 'aa_model', depth: 3 }], 1],
          [[{ kind: 'empty-team', name: 'Ghost' }], 1],
        ],
      },
    );
  }, 900_000);
});
