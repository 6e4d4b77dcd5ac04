import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sbevalInProcess as sbeval } from './helpers/in-process-cli.js';
import { copyOf, ok, RANKING_FILES, scoredExample, trialRows, type Workspace, workspace } from './helpers/result-folder.js';

/**
 * What the result folder may claim (docs/report-truth.md), replayed through the commands a user types on copies of the
 * shipped example (3 teams × 5 letters × 3 responses) scored with a tiny random ViT:
 * - the readiness of `result/` is keyed by the simulation settings digest: levels simulated under other
 *   settings (another `--damage`, `--sim-trials`, engine) do not give a ranking;
 * - every file under `result/` is one the manifest vouches for (`result/robustness.csv` included);
 * - files a stage ignored are counted in the run's final summary.
 */
let ws: Workspace;
let scored: string;

beforeAll(async () => {
  ws = workspace('sbeval-result-gaps-');
  scored = await scoredExample(ws);
}, 240_000);
afterAll(() => {
  ws.restore();
  rmSync(ws.dir, { recursive: true, force: true });
});

const manifestOf = (root: string) =>
  JSON.parse(readFileSync(join(root, 'result', 'manifest.json'), 'utf8')) as {
    score: { written: boolean; reason?: string };
    identity: { simulation: string[] };
    outputs: Record<string, string>;
  };

/** Every file under `result/`, relative to the root (`/`-separated). */
function resultTree(root: string, dir = join(root, 'result')): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? resultTree(root, join(dir, e.name)) : [relative(root, join(dir, e.name)).split(sep).join('/')]))
    .sort();
}

describe('readiness keyed by the simulation settings', () => {
  it('run --team after the config changed the damage: the other teams were simulated under other settings, so no ranking; a full run gives one', async () => {
    const root = copyOf(scored, join(ws.dir, 'subset-damage'));
    writeFileSync(join(root, 'sbeval.config.yaml'), 'trials: 3\ndamage: body\n');
    const run = await ok(['run', root, '--team', 'BlockSmith', '--model', ws.model]);
    expect(run.stdout).toMatch(
      /score +unavailable +not written, the folder cannot be scored as it is: levels simulated with other simulation settings than these \(engine headless, 3 stability trial\(s\), damage body\) \(run sbeval simulate with these settings\): GridThinkers\/levels\/I\/GridThinkers_I_1\.xml/,
    );
    for (const file of RANKING_FILES) expect(existsSync(join(root, 'result', file)), file).toBe(false);
    expect(manifestOf(root).score.written).toBe(false);
    // The accounting agrees: the other teams' levels are not simulated under these settings.
    expect(trialRows(root).filter((r) => r[0] === 'GridThinkers' && r[4] === 'level').length).toBeGreaterThan(0);

    await ok(['run', root, '--model', ws.model]);
    for (const file of RANKING_FILES) expect(existsSync(join(root, 'result', file)), file).toBe(true);
    expect(manifestOf(root).identity.simulation).toHaveLength(1);
  }, 180_000);

  it('score refuses levels simulated with other settings than its own, naming them; with the same settings it scores', async () => {
    const root = copyOf(scored, join(ws.dir, 'score-sim-trials'));
    // One stability trial for one team: images and (here) stability files stay as they were.
    await ok(['simulate', root, '--team', 'BlockSmith', '--sim-trials', '1']);
    const refused = await sbeval(['score', root]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /not scored, the folder cannot be scored as it is: levels simulated with other simulation settings than these \(engine headless, 3 stability trial\(s\), damage contact-point\) \(run sbeval simulate with these settings\): BlockSmith\/levels\/I\/BlockSmith_I_1\.xml/,
    );
    // A score with the one-trial settings refuses the other teams' levels in turn: one folder, one set of settings.
    const mixed = await sbeval(['score', root, '--sim-trials', '1']);
    expect(mixed.code).toBe(1);
    expect(mixed.stderr).toMatch(
      /levels simulated with other simulation settings than these \(engine headless, 1 stability trial\(s\), damage contact-point\) .*GridThinkers\/levels\/I\/GridThinkers_I_1\.xml/,
    );
    await ok(['simulate', root, '--sim-trials', '1']);
    await ok(['score', root, '--sim-trials', '1']);
    expect(manifestOf(root).score.written).toBe(true);
  }, 180_000);
});

describe('every file under result/ is in the manifest', () => {
  it('after run --robustness, after run without it, and after score', async () => {
    const root = copyOf(scored, join(ws.dir, 'robustness'));
    const listed = () => [...Object.keys(manifestOf(root).outputs), 'result/manifest.json'].sort();
    await ok(['run', root, '--robustness', '2', '--model', ws.model]);
    expect(resultTree(root)).toContain('result/robustness.csv');
    expect(resultTree(root)).toEqual(listed());
    expect((await sbeval(['check', root])).code).toBe(0);
    // score keeps what still describes the folder (nothing changed), and vouches for it again.
    await ok(['score', root]);
    expect(resultTree(root)).toContain('result/robustness.csv');
    expect(resultTree(root)).toEqual(listed());
    // A run without --robustness does not leave the perturbed runs' table of another run beside its results.
    await ok(['run', root, '--model', ws.model]);
    expect(resultTree(root)).not.toContain('result/robustness.csv');
    expect(resultTree(root)).toEqual(listed());
    // score --robustness N writes the table from the cached runs, as run does.
    await ok(['score', root, '--robustness', '2']);
    expect(resultTree(root)).toContain('result/robustness.csv');
    expect(resultTree(root)).toEqual(listed());
  }, 240_000);
});

describe('files a stage ignores are counted in the final summary', () => {
  it('run, similarity and diversity: files that are not PNG images (images/) or JSON files (similarity/) are counted, with the log', async () => {
    const root = copyOf(scored, join(ws.dir, 'ignored'));
    writeFileSync(join(root, 'BlockSmith', 'images', 'I', 'notes.txt'), 'not an image\n');
    writeFileSync(join(root, 'GridThinkers', 'images', 'L', 'GridThinkers_L_1.jpg'), 'not a png either\n');
    writeFileSync(join(root, 'PromptPilots', 'similarity', 'notes.md'), 'not a similarity file\n');
    const run = await ok(['run', root, '--model', ws.model]);
    // Repeated at the end with the run's other warnings (the notes per file scroll by during the stage).
    expect(run.stdout).toMatch(
      /\n {2}- similarity: 2 file\(s\) ignored: not a PNG image \(BlockSmith\/images\/I\/notes\.txt, GridThinkers\/images\/L\/GridThinkers_L_1\.jpg\) — see .*logs\/similarity_log_[^ ]+\.txt\n/,
    );
    expect(run.stdout).toMatch(
      /\n {2}- diversity: 1 file\(s\) ignored: not a JSON file \(PromptPilots\/similarity\/notes\.md\) — see .*logs\/diversity_log_[^ ]+\.txt\n/,
    );
    // The stage commands' summaries count them the same way.
    const similarity = await ok(['similarity', root, '--model', ws.model]);
    expect(similarity.stdout).toMatch(
      /\n {2}2 file\(s\) ignored: not a PNG image \(BlockSmith\/images\/I\/notes\.txt, GridThinkers\/images\/L\/GridThinkers_L_1\.jpg\) — see .*logs\/similarity_log_[^ ]+\.txt\n/,
    );
    const diversity = await ok(['diversity', root]);
    expect(diversity.stdout).toMatch(
      /\n {2}1 file\(s\) ignored: not a JSON file \(PromptPilots\/similarity\/notes\.md\) — see .*logs\/diversity_log_[^ ]+\.txt\n/,
    );
  }, 180_000);
});
