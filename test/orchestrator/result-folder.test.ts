import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleSources } from '../helpers/cli.js';
import { snapshot } from './helpers/competition.js';
import { sbevalInProcess as sbeval } from './helpers/in-process-cli.js';
import { copyOf, ok, RANKING_FILES, resultFiles, scoredExample, trialRows, type Workspace, workspace } from './helpers/result-folder.js';

/**
 * The result folder never claims what is not true. Each case is replayed
 * through the commands a user types, on copies of the shipped example (3
 * teams × 5 letters × 3 responses).
 */
let ws: Workspace;
/** The example, evaluated with a model by a plain `sbeval run`: the truth the cases are held to. */
let scored: string;
let truth: Map<string, string>;

const fresh = (name: string) => {
  const root = join(ws.dir, name);
  copyExampleSources(root);
  writeFileSync(join(root, 'sbeval.config.yaml'), 'trials: 3\n');
  return root;
};

beforeAll(async () => {
  ws = workspace('sbeval-result-folder-');
  scored = await scoredExample(ws);
  truth = resultFiles(scored);
}, 240_000);
afterAll(() => {
  ws.restore();
  rmSync(ws.dir, { recursive: true, force: true });
});

describe('case 1: --team and --chars limit the work, never the truth', () => {
  it('a subset that matches nothing is a usage error naming what exists, and nothing is written', async () => {
    const root = copyOf(scored, join(ws.dir, 'typo'));
    const before = snapshot(root);
    const team = await sbeval(['run', root, '--team', 'Nobody']);
    expect(team.code).toBe(2);
    expect(team.stderr.trim().split('\n').at(-1)).toBe(
      `sbeval: [config] --team Nobody: no such team folder in ${root} (the teams are BlockSmith, GridThinkers, PromptPilots)`,
    );
    const chars = await sbeval(['run', root, '--chars', 'Q']);
    expect(chars.code).toBe(2);
    expect(chars.stderr).toMatch(/--chars Q matches no letter with files in .* \(the letters are I,L,O,T,U\)\n$/);
    // Every command that reads the folder, and the config's teams, the same way.
    expect((await sbeval(['extract', root, '--team', 'Nobody'])).code).toBe(2);
    expect((await sbeval(['score', root, '--baseline', 'Nobody'])).stderr).toMatch(/--baseline Nobody: no such team folder/);
    expect(snapshot(root)).toEqual(before);
  }, 120_000);

  it('a subset on a scored folder leaves every team in trials.csv, failures.md, the ranking, the report and the manifest', async () => {
    const root = copyOf(scored, join(ws.dir, 'subset-scored'));
    await ok(['run', root, '--team', 'BlockSmith', '--model', ws.model]);
    expect(resultFiles(root)).toEqual(truth);
    expect(new Set(trialRows(root).map((r) => r[0]))).toEqual(new Set(['BlockSmith', 'GridThinkers', 'PromptPilots']));
    await ok(['run', root, '--chars', 'I', '--model', ws.model]);
    expect(resultFiles(root)).toEqual(truth);
  }, 120_000);

  it('a subset of a fresh folder accounts for every trial and writes no ranking; a plain run then gives the truth', async () => {
    const root = fresh('subset-fresh');
    const run = await ok(['run', root, '--team', 'BlockSmith', '--model', ws.model]);
    expect(run.stdout).toMatch(/30 trial\(s\) outside --team\/--chars were not worked on/);
    const rows = trialRows(root);
    expect(rows).toHaveLength(45);
    const others = rows.filter((r) => r[0] !== 'BlockSmith');
    expect(new Set(others.map((r) => `${r[4]} ${r[5]}`))).toEqual(new Set(['raw not extracted (the response has no drop program yet)', 'raw Code not found.']));
    for (const file of RANKING_FILES) expect(existsSync(join(root, 'result', file)), file).toBe(false);
    const manifest = JSON.parse(readFileSync(join(root, 'result', 'manifest.json'), 'utf8'));
    expect(manifest.score.written).toBe(false);
    expect(manifest.score.reason).toMatch(/^responses not extracted yet \(run sbeval extract\): GridThinkers\/raw\/I\/GridThinkers_I_1\.txt/);
    await ok(['run', root, '--model', ws.model]);
    expect(resultFiles(root)).toEqual(truth);
  }, 120_000);
});

describe('case 2: no stale or impossible results', () => {
  it('score refuses a folder whose images have no similarity, as run does: exit 1, one line, no ranking', async () => {
    const root = fresh('no-similarity');
    for (const stage of ['extract', 'convert', 'simulate']) await ok([stage, root]);
    const score = await sbeval(['score', root]);
    expect(score.code).toBe(1);
    const lines = score.stderr.trim().split('\n');
    expect(lines).toHaveLength(2); // the settings line, then the reason
    expect(lines[1]).toMatch(
      /^sbeval: \[score\] not scored, the folder cannot be scored as it is: images without a similarity file \(run sbeval similarity with a model\): BlockSmith\/images\/I, BlockSmith\/images\/L and 13 more$/,
    );
    // Every trial's fate is written whatever the folder supports (one writer: orchestrator/result/step.ts).
    expect([...resultFiles(root).keys()]).toEqual(['failures.md', 'manifest.json', 'trials.csv']);
    // run, in the same state, refuses the same thing for the same reason.
    const reason = lines[1]!.replace(/^.*cannot be scored as it is: /, '');
    const run = await ok(['run', root]);
    expect(run.stdout).toContain(`score        unavailable not written, the folder cannot be scored as it is: ${reason}`);
    expect([...resultFiles(root).keys()]).toEqual(['failures.md', 'manifest.json', 'trials.csv']);
  }, 120_000);

  it('run without a model keeps a ranking its similarity files still support, and removes it once an image changed', async () => {
    const root = copyOf(scored, join(ws.dir, 'no-model'));
    await ok(['run', root]);
    expect(resultFiles(root)).toEqual(truth);
    expect(trialRows(root).some((r) => r[7] === 'unavailable')).toBe(false);

    // BlockSmith's first I now pictures its first L: the letter's similarity no longer matches its images.
    copyFileSync(join(root, 'BlockSmith', 'images', 'L', 'BlockSmith_L_1.png'), join(root, 'BlockSmith', 'images', 'I', 'BlockSmith_I_1.png'));
    const stale = await ok(['run', root]);
    const kept = ['failures.md', 'manifest.json', 'trials.csv'];
    // Every other file of the scored state goes: the official results, the report and the interval files.
    const removed = [...truth.keys()].filter((f) => !kept.includes(f)).length;
    expect(removed).toBeGreaterThanOrEqual(6);
    expect(stale.stdout).toMatch(
      new RegExp(
        `score +unavailable +not written, the folder cannot be scored as it is: similarity files computed from other images .*BlockSmith/similarity/I\\.json; removed ${removed} result file\\(s\\) of an earlier state`,
      ),
    );
    expect([...resultFiles(root).keys()]).toEqual(kept);
    const rows = trialRows(root).filter((r) => r[4] === 'image');
    expect(rows.filter((r) => r[7] === 'unavailable').map((r) => `${r[0]} ${r[2]}`)).toEqual(['BlockSmith I', 'BlockSmith I', 'BlockSmith I']);
    const check = await sbeval(['check', root]);
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/no ranking: similarity files computed from other images/);

    await ok(['run', root, '--model', ws.model]);
    for (const file of RANKING_FILES) expect(existsSync(join(root, 'result', file)), file).toBe(true);
  }, 180_000);

  it('score refuses a ranking from before a level changed, and removes it', async () => {
    const root = copyOf(scored, join(ws.dir, 'changed-level'));
    // A new response: BlockSmith's first I is now its first L.
    copyFileSync(join(root, 'BlockSmith', 'raw', 'L', 'BlockSmith_L_1.txt'), join(root, 'BlockSmith', 'raw', 'I', 'BlockSmith_I_1.txt'));
    for (const stage of ['extract', 'convert']) await ok([stage, root]);
    const score = await sbeval(['score', root]);
    expect(score.code).toBe(1);
    expect(score.stderr).toMatch(
      /not scored, the folder cannot be scored as it is: levels changed since they were simulated \(run sbeval simulate\): BlockSmith\/levels\/I\/BlockSmith_I_1\.xml; removed result\/constants\.json, .*result\/report\.html, result\/score_intervals\.csv, result\/rank_probabilities\.csv, which described an earlier state of the folder\n$/,
    );
    // The accounting is written again from the folder as it is: the new response's level is not simulated yet.
    expect([...resultFiles(root).keys()]).toEqual(['failures.md', 'manifest.json', 'trials.csv']);
    expect(
      trialRows(root)
        .find((r) => r[0] === 'BlockSmith' && r[2] === 'I' && r[3] === '1')
        ?.slice(4, 6),
    ).toEqual(['level', 'no image (the level is not simulated yet)']);
  }, 120_000);
});

describe('case 3: one reading of the folder layout', () => {
  const nothingWritten = (root: string) => {
    expect(existsSync(join(root, 'result')), 'result/').toBe(false);
    expect(existsSync(join(root, 'logs')), 'logs/').toBe(false);
  };

  it('a team folder one level too deep is refused by the folder check and every stage, with the fix', async () => {
    const root = fresh('nested');
    renameSync(join(root, 'PromptPilots'), join(root, 'unpacked'));
    mkdirSync(join(root, 'PromptPilots'));
    renameSync(join(root, 'unpacked'), join(root, 'PromptPilots', 'PromptPilots'));
    for (const command of ['run', 'extract', 'simulate', 'score', 'check']) {
      const result = await sbeval([command, root, ...(command === 'score' ? ['--rules', '2025'] : [])]);
      expect(result.code, command).toBe(2);
      const lines = result.stderr.trim().split('\n');
      expect(lines, command).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^sbeval: \[input\] .*PromptPilots\/ holds no stage folder but .*PromptPilots\/PromptPilots\/ does \(raw\/\) beside the team folders BlockSmith\/, GridThinkers\/: a team folder one level too deep .* \(move the contents of .*PromptPilots\/PromptPilots\/ up into .*PromptPilots\/, then run again\)$/,
      );
    }
    nothingWritten(root);
  }, 120_000);

  it('a stray folder with raw/ two levels down is refused the same way; hidden, it is ignored', async () => {
    const root = fresh('stray');
    mkdirSync(join(root, 'notes', 'misc', 'raw', 'I'), { recursive: true });
    writeFileSync(join(root, 'notes', 'misc', 'raw', 'I', 'misc_I_1.txt'), 'drop_block("b11", 3)\n');
    const run = await sbeval(['run', root]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /notes\/misc\/ does \(raw\/\) .*otherwise move .*notes\/ out of the competition root or rename it \.notes \(hidden folders are ignored\)\)\n$/,
    );
    nothingWritten(root);
    renameSync(join(root, 'notes'), join(root, '.notes'));
    await ok(['run', root]);
    expect(new Set(trialRows(root).map((r) => r[0]))).toEqual(new Set(['BlockSmith', 'GridThinkers', 'PromptPilots']));
  }, 120_000);

  it('2025: a folder holding team folders beside the model folders is refused', async () => {
    const root = join(ws.dir, 'models');
    for (const model of ['alpha', 'beta']) copyExampleSources(join(root, model), { teams: ['BlockSmith', 'GridThinkers'], letters: ['I'] });
    cpSync(join(root, 'alpha', 'BlockSmith'), join(root, 'BlockSmith'), { recursive: true });
    const score = await sbeval(['score', root]);
    expect(score.code).toBe(2);
    expect(score.stderr).toMatch(
      /alpha\/ holds team folders \(BlockSmith\/, GridThinkers\/\) beside the team folders BlockSmith\/: a folder of teams inside a competition would be a team to one command and a model folder to another \(move .*alpha\/ out of the competition root, or rename it \.alpha/,
    );
    nothingWritten(root);
  }, 60_000);
});

describe('case 7: run writes every official log its stage commands write', () => {
  it('logs/stability_log_<time>.txt: one line per level simulated, as sbeval simulate writes it', () => {
    const logs = readdirSync(join(scored, 'logs')).filter((f) => /^stability_log_.+\.txt$/.test(f));
    expect(logs).toHaveLength(1);
    const lines = readFileSync(join(scored, 'logs', logs[0]!), 'utf8')
      .trimEnd()
      .split('\n');
    const levels = trialRows(scored).filter((r) => r[4] === 'image');
    expect(lines).toHaveLength(levels.length);
    for (const line of lines) expect(line).toMatch(/^\[[^\]]+\] Processing - team: \w+ - character: [A-Z] - trial: \w+_[A-Z]_\d+\.xml - Succeed$/);
  });
});
