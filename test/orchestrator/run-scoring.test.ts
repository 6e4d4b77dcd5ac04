import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { readTrace } from '../../bridge/trace.js';
import { GENERATE_STAGE } from '../../llm/generate/run-stage.js';
import { resolveSettings } from '../../orchestrator/config/index.js';
import type { EngineFactory } from '../../orchestrator/pool/index.js';
import { runCompetition } from '../../orchestrator/run/index.js';
import { parseDiversityJson } from '../../scoring/formats/diversity.js';
import { parseSimilarityJson } from '../../scoring/formats/similarity.js';
import { formatUnityFloat } from '../../scoring/formats/unity-float.js';
import { trialStability } from '../../scoring/stability.js';
import { writeRandomVit } from '../../scripts/make-random-vit.js';
import { FakeOllama } from '../helpers/fake-ollama.js';
import { exampleCopy, snapshot } from './helpers/competition.js';

/**
 * `sbeval run` with a similarity model: similarity, diversity and the official score files follow the
 * level stages, the report carries the failure accounting, `trials.csv` carries each trial's
 * similarity, and a second run changes nothing. Also the 2025 layout with a folder per model.
 * The model is a tiny random ViT in the Hugging Face layout converted to ONNX (the real weights are
 * not available here); its numbers are meaningless, the files and the plumbing are what is tested.
 */
let model: string;
const inProcess: EngineFactory = async (slot, generation) => new HeadlessEngine(`headless-${slot}-${generation}`);
const list = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => !f.startsWith('.'))
        .sort()
    : [];

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'sbeval-tiny-vit-'));
  model = writeRandomVit(dir, { layers: 1, hidden: 32, heads: 2, intermediate: 64, image: 32, patch: 16, labels: 26, seed: 5 }).onnx;
});

describe('sbeval run with a similarity model', () => {
  it('scores the competition, puts the failure accounting in the report, and is idempotent', async () => {
    const root = exampleCopy({ config: 'rules: 2024\ntrials: 3\n' });
    const config = resolveSettings(root, { model, workers: 2 });
    const report = await runCompetition({ config, engineFactory: inProcess });
    expect(report.similarity).toBe(true);
    expect(report.stages.map((s) => `${s.stage}:${s.status}`)).toEqual([
      'extract:done',
      'convert:done',
      'stability:done',
      'similarity:done',
      'diversity:done',
      'accounting:done',
      'score:done',
      'uncertainty:done',
      'report:done',
    ]);
    const result = join(root, 'result');
    for (const file of [
      'constants.json',
      'trial_scores.csv',
      'character_scores.csv',
      'prompt_scores_ranks.csv',
      'report.md',
      'report.html',
      'trials.csv',
      'failures.md',
    ]) {
      expect(existsSync(join(result, file)), file).toBe(true);
    }
    const failures = readFileSync(join(result, 'failures.md'), 'utf8')
      .replace(/^## Failure accounting\n\n/, '')
      .trim();
    const reportMd = readFileSync(join(result, 'report.md'), 'utf8');
    expect(reportMd).toContain('Failure accounting');
    for (const line of failures.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| team'))) expect(reportMd).toContain(line);
    expect(readFileSync(join(result, 'report.html'), 'utf8')).toContain('Code not found.');

    // trials.csv: the similarity of every trial with an image is the one in the similarity file.
    const rows = readFileSync(join(result, 'trials.csv'), 'utf8')
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    let compared = 0;
    for (const team of ['BlockSmith', 'GridThinkers', 'PromptPilots']) {
      for (const file of list(join(root, team, 'similarity'))) {
        const letter = file.replace('.json', '');
        const sim = parseSimilarityJson(readFileSync(join(root, team, 'similarity', file), 'utf8'));
        for (const t of sim.trials) {
          const trial = t.id.replace(/^.*_(\d+)\.png$/, '$1');
          const row = rows.find((r) => r[0] === team && r[2] === letter && r[3] === trial);
          expect(row?.[7], `${team} ${letter} ${trial}`).toBe(String(t.similarity));
          compared += 1;
        }
        expect(parseDiversityJson(readFileSync(join(root, team, 'diversity', file), 'utf8')).trials.length).toBe(sim.count);
      }
    }
    expect(compared).toBe(rows.filter((r) => r[4] === 'image').length);
    expect(rows.filter((r) => r[4] !== 'image').every((r) => r[7] === '')).toBe(true);

    const before = snapshot(root);
    const again = await runCompetition({ config: resolveSettings(root, { model, workers: 2 }), engineFactory: inProcess });
    expect(again.levels.simulated).toBe(0);
    expect(again.levels.cached).toBe(rows.filter((r) => r[4] === 'image').length);
    const after = snapshot(root);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [file, hash] of before) expect(after.get(file), file).toBe(hash);

    // A warning is printed where it occurs and listed in the report, which is built after it.
    writeFileSync(join(root, 'BlockSmith', 'stability', 'notes.txt'), 'a stray file\n');
    const notes: string[] = [];
    const progress = { start() {}, tick() {}, end() {}, note: (stage: string, message: string) => void notes.push(`${stage}: ${message}`) };
    const third = await runCompetition({ config: resolveSettings(root, { model, workers: 2 }), engineFactory: inProcess, progress });
    const stray = third.warnings.filter((w) => w.message.includes('notes.txt'));
    expect(stray).toHaveLength(1);
    expect(notes.filter((n) => n.includes('notes.txt'))).toHaveLength(1);
    expect(readFileSync(join(result, 'report.md'), 'utf8')).toMatch(/## Warnings\n\n- `extra-file` .*notes\.txt/);
    expect(readFileSync(join(result, 'report.html'), 'utf8')).toMatch(/<li><code>extra-file<\/code>[^<]*notes\.txt/);
  }, 240_000);

  it('runs the 2025 layout with a competition folder per model and scores across models', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sbeval-run-models-'));
    const source = exampleCopy({ teams: ['BlockSmith', 'PromptPilots'], letters: ['I', 'L'] });
    for (const folder of ['alpha_7b', 'beta_3b']) {
      mkdirSync(join(root, folder));
      for (const team of ['BlockSmith', 'PromptPilots']) cpSync(join(source, team), join(root, folder, team), { recursive: true });
    }
    // The second model lost one response: its row must say so.
    rmSync(join(root, 'beta_3b', 'BlockSmith', 'raw', 'I', 'BlockSmith_I_2.txt'));
    writeFileSync(join(root, 'sbeval.config.yaml'), 'rules: 2025\ntrials: 3\nmodels: ["alpha:7b", "beta:3b"]\n');
    const report = await runCompetition({ config: resolveSettings(root, { model, workers: 2 }), engineFactory: inProcess });
    expect(report.stages.filter((s) => s.stage === 'similarity').map((s) => s.model)).toEqual(['alpha_7b', 'beta_3b']);
    expect(report.stages.slice(-3)).toMatchObject([
      { stage: 'score', status: 'done' },
      // The bootstrap over both model folders, summed per team as the 2025 totals are.
      { stage: 'uncertainty', status: 'done' },
      { stage: 'report', status: 'done' },
    ]);
    for (const folder of ['alpha_7b', 'beta_3b']) {
      expect(list(join(root, folder, 'BlockSmith', 'stability'))).toEqual(['I.json', 'L.json']);
      expect(existsSync(join(root, folder, 'result', 'prompt_scores_ranks.csv'))).toBe(true);
      // 2025 similarity files carry the CLS embedding the 2025 diversity uses.
      const sim = parseSimilarityJson(readFileSync(join(root, folder, 'BlockSmith', 'similarity', 'I.json'), 'utf8'));
      expect(sim.similarities.every((s) => Array.isArray(s.cls_embedding) && s.cls_embedding.length === 32)).toBe(true);
    }
    expect(existsSync(join(root, 'result', 'prompt_scores_ranks.csv'))).toBe(true);
    expect(readFileSync(join(root, 'result', 'score_intervals.csv'), 'utf8').split('\n')[0]).toBe(
      'team,promptScore,low,high,normalizedPromptScore,normLow,normHigh',
    );
    // Each model folder's own ranking gets its intervals too (from the same resamples).
    for (const folder of ['alpha_7b', 'beta_3b'])
      expect(readFileSync(join(root, folder, 'result', 'score_intervals.csv'), 'utf8').split('\n')[0]).toBe(
        'team,promptScore,low,high,normalizedPromptScore,normLow,normHigh',
      );
    const rows = readFileSync(join(root, 'result', 'trials.csv'), 'utf8')
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    // 2 models × 2 teams × 2 letters × 3 trials.
    expect(rows).toHaveLength(24);
    expect(new Set(rows.map((r) => r[1]))).toEqual(new Set(['alpha_7b', 'beta_3b']));
    expect(rows.find((r) => r[1] === 'beta_3b' && r[0] === 'BlockSmith' && r[2] === 'I' && r[3] === '2')?.slice(4, 6)).toEqual([
      'none',
      'no response (the trial was never generated)',
    ]);
    expect(rows.find((r) => r[1] === 'alpha_7b' && r[0] === 'BlockSmith' && r[2] === 'I' && r[3] === '2')?.[4]).toBe('image');
    expect(readFileSync(join(root, 'result', 'failures.md'), 'utf8')).toMatch(/\| model \| team \|/);
  }, 240_000);
});

describe('sbeval run --traces', () => {
  it('records every simulated trial as a trace that reads back to the level, its trial and the stability verdict', async () => {
    const root = exampleCopy({ teams: ['GridThinkers'], letters: ['I', 'O'] });
    const report = await runCompetition({ config: resolveSettings(root, { traces: true, workers: 2 }), engineFactory: inProcess });
    const simulated = report.trials.filter((t) => t.stageReached === 'image');
    expect(simulated.length).toBeGreaterThan(0);
    for (const row of simulated) {
      const base = `GridThinkers_${row.letter}_${row.trial}`;
      const dir = join(root, 'GridThinkers', 'traces', row.letter);
      const files = list(dir).filter((f) => f.startsWith(`${base}.`));
      // One trace per trial that ran: trial 1, and more while the level was not fully stable.
      const stable = row.stability === '1.0';
      expect(files[0]).toBe(`${base}.trial1.sbtrace`);
      if (stable) expect(files).toEqual([`${base}.trial1.sbtrace`]);
      const trace = await readTrace(join(dir, files[0]!));
      expect(trace.complete).toBe(true);
      expect(trace.header.levelId).toBe(`GridThinkers/${row.letter}/${base}`);
      expect(trace.header.xml).toBe(readFileSync(join(root, 'GridThinkers', 'levels', row.letter, `${base}.xml`), 'utf8'));
      expect(trace.header.settings.trial).toBe(1);
      // Trial 1 renders the image: the trace holds the same PNG as images/.
      expect(Buffer.from(trace.capture!.png).equals(readFileSync(join(root, 'GridThinkers', 'images', row.letter, `${base}.png`)))).toBe(true);
      // The verdict recomputed from the recorded frames equals the trial's (first trial when it was the only one).
      if (stable) {
        const verdict = trialStability(trace.bodies, [trace.frames], trace.events);
        expect(formatUnityFloat(verdict.score)).toBe(row.stability);
      }
    }
    // A second run keeps the traces byte for byte (no times in them) and records nothing new.
    const before = snapshot(root);
    await runCompetition({ config: resolveSettings(root, { traces: true, workers: 2 }), engineFactory: inProcess });
    const after = snapshot(root);
    for (const [file, hash] of before) expect(after.get(file), file).toBe(hash);
    expect([...after.keys()]).toEqual([...before.keys()]);
  }, 120_000);
});

describe('sbeval run with a configured submission', () => {
  it('is refused before anything is written when the caller gives runCompetition no generate stage', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sbeval-run-no-generate-'));
    writeFileSync(
      join(root, 'sbeval.config.yaml'),
      'rules: 2024\ncharacters: A\ntrials: 1\nmodels: [m1]\nhosts: ["http://127.0.0.1:9"]\nsubmissions:\n  - team: zero_shot\n    file: "builtin:zero-shot"\n',
    );
    await expect(runCompetition({ config: resolveSettings(root, { workers: 1 }), engineFactory: inProcess })).rejects.toThrow(
      /the config lists submissions, but this caller gave runCompetition no generate stage/,
    );
    expect(list(root)).toEqual(['sbeval.config.yaml']);
  });

  it('generates the responses through Ollama first, then evaluates them; a second run asks nothing again', async () => {
    const server = await new FakeOllama({ models: ['m1'] }).start();
    try {
      const root = mkdtempSync(join(tmpdir(), 'sbeval-run-generate-'));
      writeFileSync(
        join(root, 'sbeval.config.yaml'),
        `rules: 2024\ncharacters: A-C\ntrials: 2\nmodels: [m1]\nhosts: ["${server.url}"]\nsubmissions:\n  - team: zero_shot\n    file: "builtin:zero-shot"\n`,
      );
      const report = await runCompetition({ config: resolveSettings(root, { workers: 2 }), engineFactory: inProcess, generate: GENERATE_STAGE });
      expect(report.stages[0]).toMatchObject({ stage: 'generate', status: 'done' });
      const answered = server.calls.filter((c) => c.outcome === 'ok').length;
      expect(answered).toBe(6);
      for (const c of ['A', 'B', 'C']) expect(list(join(root, 'zero_shot', 'raw', c))).toEqual([`zero_shot_${c}_1.txt`, `zero_shot_${c}_2.txt`]);
      // Every generated trial is accounted for, none as "never generated".
      expect(report.trials).toHaveLength(6);
      expect(report.trials.every((t) => t.stageReached !== 'none')).toBe(true);

      const before = snapshot(root);
      await runCompetition({ config: resolveSettings(root, { workers: 2 }), engineFactory: inProcess, generate: GENERATE_STAGE });
      expect(server.calls.filter((c) => c.outcome === 'ok').length).toBe(answered);
      const after = snapshot(root);
      for (const [file, hash] of before) expect(after.get(file), file).toBe(hash);
    } finally {
      await server.stop();
    }
  }, 120_000);
});

describe('sbeval run when engines keep failing one level', () => {
  it('records the level as an engine failure, holds its character file back, and the next run completes it', async () => {
    const root = exampleCopy({ teams: ['BlockSmith'], letters: ['I', 'L'] });
    const victim = 'BlockSmith/I/BlockSmith_I_2';
    // Engines that lose their connection whenever they get this one level (an engine fault, not a level error).
    const flaky: EngineFactory = async (slot, generation) => {
      const engine = new HeadlessEngine(`flaky-${slot}-${generation}`);
      const run = engine.run.bind(engine);
      engine.run = async (job, sink, signal) => {
        if (job.levelId === victim) throw new Error('connection reset by peer');
        return run(job, sink, signal);
      };
      return engine;
    };
    writeFileSync(join(root, 'sbeval.config.yaml'), 'trials: 3\nlimits:\n  engineRetries: 1\n');
    const first = await runCompetition({ config: resolveSettings(root, { workers: 2 }), engineFactory: flaky });
    const row = first.trials.find((t) => t.letter === 'I' && t.trial === '2')!;
    expect(row.stageReached).toBe('level');
    expect(row.reason).toMatch(/connection reset by peer \(after 1 retry on other engines\)/);
    expect(first.stages.find((s) => s.stage === 'stability')).toMatchObject({ status: 'failed' });
    expect(list(join(root, 'BlockSmith', 'stability'))).toEqual(['L.json']);
    // The retry went to the other engine.
    const lines = readFileSync(first.runLog, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const attempts = lines.filter((l) => l.type === 'pool.attempt-start' && l.levelId === victim).map((l) => l.engineId);
    expect(new Set(attempts).size).toBe(2);

    const second = await runCompetition({ config: resolveSettings(root, { workers: 2 }), engineFactory: inProcess });
    expect(second.levels.simulated).toBe(1);
    expect(second.trials.find((t) => t.letter === 'I' && t.trial === '2')!.stageReached).toBe('image');
    expect(list(join(root, 'BlockSmith', 'stability'))).toEqual(['I.json', 'L.json']);
    expect(second.stages.find((s) => s.stage === 'stability')).toMatchObject({ status: 'done' });
  }, 120_000);
});
