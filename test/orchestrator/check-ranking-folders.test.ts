import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sbevalInProcess as sbeval } from './helpers/in-process-cli.js';
import { copyOf, ok, scoredExample, type Workspace, workspace } from './helpers/result-folder.js';

/**
 * `sbeval check` asks what `score` and `run` ask: the manifest records the folders that decide the
 * ranking (competition, team and letter folders, empty ones included), and `check` asks the folder's
 * readiness with the config's simulation settings. So an empty team or letter folder, or levels
 * simulated again with other settings, make `check` exit 1 — and a fresh `score` then indeed writes
 * other result files or refuses. On copies of the example scored by a plain `run`.
 */
let ws: Workspace;
let scored: string;

beforeAll(async () => {
  ws = workspace('sbeval-check-folders-');
  scored = await scoredExample(ws);
}, 240_000);
afterAll(() => {
  ws.restore();
  rmSync(ws.dir, { recursive: true, force: true });
});

const ranks = (root: string) => readFileSync(join(root, 'result', 'prompt_scores_ranks.csv'), 'utf8');
const trials = (root: string) => readFileSync(join(root, 'result', 'trials.csv'), 'utf8');

describe('check sees what decides the ranking', () => {
  it('the scored example is current', async () => {
    const check = await sbeval(['check', scored]);
    expect(check.code, check.stdout).toBe(0);
    expect(JSON.parse(readFileSync(join(scored, 'result', 'manifest.json'), 'utf8')).folders.teams).toEqual(['BlockSmith', 'GridThinkers', 'PromptPilots']);
  }, 60_000);

  it('an empty team folder: check exits 1 naming it, and score moves every normalized score', async () => {
    const root = copyOf(scored, join(ws.dir, 'ghost'));
    const before = ranks(root);
    mkdirSync(join(root, 'Ghost'));
    const check = await sbeval(['check', root]);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/\n {2}folders added: Ghost\n/);
    await ok(['score', root]);
    expect(ranks(root)).not.toBe(before);
    expect(ranks(root)).toMatch(/^"Ghost",/m);
    expect((await sbeval(['check', root])).code).toBe(0);
  }, 120_000);

  it('an empty letter folder: check exits 1 naming it, and the accounting gains its trials', async () => {
    const root = copyOf(scored, join(ws.dir, 'letter'));
    const before = trials(root);
    mkdirSync(join(root, 'BlockSmith', 'raw', 'Z'));
    const check = await sbeval(['check', root]);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('folders added: BlockSmith/raw/Z');
    await ok(['score', root]);
    expect(trials(root).split('\n').length).toBeGreaterThan(before.split('\n').length);
  }, 120_000);

  it('levels simulated again with other settings, every stage file byte-identical: check and score agree', async () => {
    const root = copyOf(scored, join(ws.dir, 'sim-trials'));
    await ok(['simulate', root, '--sim-trials', '1']);
    const check = await sbeval(['check', root]);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/the folder cannot be scored now: levels simulated with other simulation settings/);
    const score = await sbeval(['score', root]);
    expect(score.code).toBe(1);
  }, 120_000);

  it('a run with another engine than the config’s, nothing changed since: check says so, naming both settings, as score refuses', async () => {
    const root = copyOf(scored, join(ws.dir, 'engine'));
    await ok(['run', root, '--engine', 'headless-ws', '--workers', '1']);
    const check = await sbeval(['check', root]);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(
      /^result\/ holds what sbeval run wrote from these \d+ unchanged input file\(s\), but with other simulation settings than the configuration's\n/,
    );
    expect(check.stdout).toContain(
      '\n  written with engine headless-ws, 3 stability trial(s), damage contact-point; the configuration gives engine headless, 3 stability trial(s), damage contact-point:',
    );
    expect(check.stdout).not.toContain('does not describe the folder any more');
    expect((await sbeval(['score', root])).code).toBe(1);

    // The same settings given to score: recorded in its manifest, so check names them again.
    await ok(['score', root, '--engine', 'headless-ws']);
    const after = await sbeval(['check', root]);
    expect(after.code).toBe(1);
    expect(after.stdout).toMatch(/^result\/ holds what sbeval score wrote from these \d+ unchanged input file\(s\)/);
  }, 240_000);
});
