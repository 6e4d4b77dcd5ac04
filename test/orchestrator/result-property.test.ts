import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleSources } from '../helpers/cli.js';
import { sbevalInProcess as sbeval } from './helpers/in-process-cli.js';
import { resultFiles, type Workspace, workspace } from './helpers/result-folder.js';

/**
 * `result/` is a function of the folder, whatever led to it. A random sequence of
 * `sbeval run` (with and without a model, with `--team`/`--chars` subsets), stage commands (`score`
 * among them), edits of a response and deletions of stage files on a copy of the example, then a plain
 * `sbeval run`, must leave every file of `result/` — the official files, `trials.csv`, `failures.md`,
 * the manifest, and the report (which prints no time) — byte-identical to a fresh `run` on a copy of the
 * same responses. Half the sequences start from a scored copy, so there are results to go stale.
 * fast-check, seeded: three fixed stories and three drawn sequences, about 45 s of CPU (two minutes of
 * wall time on the shared 2-core machine at load 15–20).
 */
const TEAMS = ['BlockSmith', 'GridThinkers'];
const LETTERS = ['I', 'T'];
const STAGES = ['extract', 'convert', 'simulate', 'similarity', 'diversity', 'score'] as const;
const STAGE_FILES = ['intermediate', 'levels', 'images', 'stability', 'similarity', 'diversity'];

type Op =
  | { kind: 'run'; model: boolean; team: string | undefined; chars: string | undefined }
  | { kind: 'stage'; stage: (typeof STAGES)[number] }
  | { kind: 'edit'; team: string; letter: string; trial: number; variant: number }
  | { kind: 'delete'; pick: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('run' as const),
      model: fc.boolean(),
      team: fc.option(fc.constantFrom(...TEAMS), { nil: undefined }),
      chars: fc.option(fc.constantFrom(...LETTERS), { nil: undefined }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('stage' as const), stage: fc.constantFrom(...STAGES) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('edit' as const),
      team: fc.constantFrom(...TEAMS),
      letter: fc.constantFrom(...LETTERS),
      trial: fc.integer({ min: 1, max: 3 }),
      variant: fc.integer({ min: 0, max: 2 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
);

let ws: Workspace;
let count = 0;
/** The example after a plain run with the model: half the sequences start from it (results to go stale). */
let scored: string;
/** A fresh run's result/, by the responses it ran on (most sequences leave some responses as they were). */
const freshResults = new Map<string, Map<string, string>>();

/** The responses and the config, as one key. */
function inputsKey(root: string): string {
  const files = [
    join(root, 'sbeval.config.yaml'),
    ...TEAMS.flatMap((t) =>
      LETTERS.flatMap((l) =>
        existsSync(join(root, t, 'raw', l))
          ? readdirSync(join(root, t, 'raw', l))
              .sort()
              .map((f) => join(root, t, 'raw', l, f))
          : [],
      ),
    ),
  ];
  return JSON.stringify(files.map((f) => [relative(root, f), readFileSync(f, 'utf8')]));
}

beforeAll(async () => {
  ws = workspace('sbeval-result-property-');
  scored = example('scored');
  const run = await sbeval(['run', scored, '--model', ws.model]);
  expect(run.code, run.stderr).toBe(0);
  freshResults.set(inputsKey(scored), resultFiles(scored));
}, 240_000);
afterAll(() => {
  ws.restore();
  rmSync(ws.dir, { recursive: true, force: true });
});

function example(name: string): string {
  const root = join(ws.dir, name);
  copyExampleSources(root, { teams: TEAMS, letters: LETTERS });
  writeFileSync(join(root, 'sbeval.config.yaml'), 'trials: 3\n');
  return root;
}

/** A new response: another letter's (a different level), one without code, or one whose program leaves the grid. */
function edit(root: string, o: Extract<Op, { kind: 'edit' }>): void {
  const file = join(root, o.team, 'raw', o.letter, `${o.team}_${o.letter}_${o.trial}.txt`);
  mkdirSync(join(file, '..'), { recursive: true });
  const other = LETTERS.find((l) => l !== o.letter)!;
  const texts = [
    () => readFileSync(join(root, o.team, 'raw', other, `${o.team}_${other}_1.txt`), 'utf8'),
    () => `The letter ${o.letter} is tall and thin; I will describe it instead of writing code.\n`,
    () => "```python\ndrop_block('b31', 10)\ndrop_block('b31', 21)\n```\n",
  ];
  const source = join(root, o.team, 'raw', other, `${o.team}_${other}_1.txt`);
  writeFileSync(file, o.variant === 0 && !existsSync(source) ? texts[1]!() : texts[o.variant]!());
}

function stageFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(relative(root, path));
    }
  };
  for (const team of TEAMS) for (const stage of STAGE_FILES) walk(join(root, team, stage));
  return files.sort();
}

async function apply(root: string, o: Op): Promise<void> {
  let args: string[] | undefined;
  if (o.kind === 'run')
    args = ['run', root, ...(o.model ? ['--model', ws.model] : []), ...(o.team ? ['--team', o.team] : []), ...(o.chars ? ['--chars', o.chars] : [])];
  else if (o.kind === 'stage') args = [o.stage, root, ...(o.stage === 'similarity' ? ['--model', ws.model] : [])];
  else if (o.kind === 'edit') edit(root, o);
  else {
    const files = stageFiles(root);
    if (files.length > 0) rmSync(join(root, files[o.pick % files.length]!));
  }
  if (!args) return;
  const result = await sbeval(args);
  // 1: `score` on a folder that cannot be scored yet; never a usage or storage error.
  expect([0, 1], `sbeval ${args.join(' ')}: ${result.stderr}`).toContain(result.code);
}

describe('result/ is a function of the folder', () => {
  it('after any sequence of commands, subsets, edits and deletions, a plain run writes what a fresh run writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(op, { minLength: 1, maxLength: 5 }), async (fromScored, ops) => {
        count += 1;
        const history = join(ws.dir, `history-${count}`);
        if (fromScored) cpSync(scored, history, { recursive: true });
        else example(`history-${count}`);
        for (const o of ops) await apply(history, o);
        const final = await sbeval(['run', history, '--model', ws.model]);
        expect(final.code, final.stderr).toBe(0);

        const key = inputsKey(history);
        if (!freshResults.has(key)) {
          const fresh = join(ws.dir, `fresh-${count}`);
          for (const team of TEAMS) cpSync(join(history, team, 'raw'), join(fresh, team, 'raw'), { recursive: true });
          cpSync(join(history, 'sbeval.config.yaml'), join(fresh, 'sbeval.config.yaml'));
          const clean = await sbeval(['run', fresh, '--model', ws.model]);
          expect(clean.code, clean.stderr).toBe(0);
          freshResults.set(key, resultFiles(fresh));
          rmSync(fresh, { recursive: true, force: true });
        }
        const theirs = freshResults.get(key)!;
        const ours = resultFiles(history);
        const story = `${fromScored ? 'from a scored copy' : 'from the responses'}, then ${JSON.stringify(ops)}`;
        expect([...ours.keys()], story).toEqual([...theirs.keys()]);
        for (const [name, text] of theirs) expect(ours.get(name), `result/${name} ${story}`).toBe(text);
        rmSync(history, { recursive: true, force: true });
      }),
      {
        numRuns: 6,
        seed: 2211,
        endOnFailure: true,
        // Three stories run first whatever the seed draws: a response edited so that its level is gone,
        // then work on the other team and a score; a response edited into another level, stage commands, a
        // subset run without the model and a deleted stage file; an edit redone by a --chars run alone.
        examples: [
          [
            true,
            [
              { kind: 'edit', team: 'BlockSmith', letter: 'I', trial: 1, variant: 2 },
              { kind: 'run', model: false, team: 'GridThinkers', chars: undefined },
              { kind: 'stage', stage: 'convert' },
              { kind: 'stage', stage: 'score' },
            ],
          ],
          [
            true,
            [
              { kind: 'edit', team: 'GridThinkers', letter: 'T', trial: 2, variant: 0 },
              { kind: 'stage', stage: 'extract' },
              { kind: 'stage', stage: 'convert' },
              { kind: 'run', model: false, team: undefined, chars: 'I' },
              { kind: 'delete', pick: 7 },
            ],
          ],
          [
            true,
            [
              { kind: 'edit', team: 'BlockSmith', letter: 'I', trial: 3, variant: 0 },
              { kind: 'run', model: true, team: undefined, chars: 'I' },
            ],
          ],
        ],
      },
    );
  }, 600_000);
});
