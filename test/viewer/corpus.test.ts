import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Settings } from 'planck';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELD_COUNT } from '../../bridge/frames.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { memorySink } from '../../bridge/memory-sink.js';
import { readTrace, TraceRecorder } from '../../bridge/trace.js';
import { stepsToSimulate } from '../../bridge/window.js';
import type { CorpusIndex } from '../../orchestrator/stages/record.js';
import type { VerifySummary } from '../../orchestrator/stages/verify.js';
import { parseStabilityJson } from '../../scoring/formats/stability.js';
import { REFERENCE_LEVELS, runSbeval } from '../helpers/cli.js';
import { hardLevels } from './make-hard-levels.js';

/**
 * The committed corpus of recorded simulations (test/fixtures/corpus) replays as recorded, and
 * `verify` reports a deliberate physics change and a changed verdict.
 */
const CORPUS = fileURLToPath(new URL('../fixtures/corpus/', import.meta.url));
const TOLERANCE = 1e-4;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbeval-corpus-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function countXml(root: string): number {
  let n = 0;
  for (const e of readdirSync(root, { withFileTypes: true })) {
    if (e.isDirectory()) n += countXml(join(root, e.name));
    else if (e.name.endsWith('.xml')) n += 1;
  }
  return n;
}

describe('the committed corpus', () => {
  it('holds ten distinct hard levels, exactly as the seeded generator writes them', () => {
    const levels = hardLevels();
    expect(new Set(levels.map((l) => l.xml)).size).toBe(levels.length);
    for (const level of levels) {
      expect(readFileSync(join(CORPUS, 'hard-levels', `${level.name}.xml`), 'utf8'), level.name).toBe(level.xml);
    }
  });

  it('holds a trace of every reference level and every hard level', () => {
    const reference = JSON.parse(readFileSync(join(CORPUS, 'reference/corpus.json'), 'utf8')) as CorpusIndex;
    const hard = JSON.parse(readFileSync(join(CORPUS, 'hard/corpus.json'), 'utf8')) as CorpusIndex;
    expect(reference.levels).toHaveLength(countXml(REFERENCE_LEVELS));
    expect(hard.levels).toHaveLength(countXml(join(CORPUS, 'hard-levels')));
    expect(hard.levels.some((l) => l.bodies >= 40)).toBe(true);
    // Stable vs unstable agrees with the Unity evaluator's own results on every reference level.
    for (const version of ['v1', 'v2', 'v3']) {
      for (const c of ['I', 'L', 'U']) {
        const golden = parseStabilityJson(readFileSync(join(REFERENCE_LEVELS, version, 'stability', `${c}.json`), 'utf8'));
        for (const raw of golden.raws) {
          const name = raw.tag.split(/[\\/]/).at(-1)!;
          const entry = reference.levels.find((l) => l.level === `${version}/levels/${c}/${name}`);
          expect(entry, name).toBeDefined();
          expect(entry!.score === 1, name).toBe(raw.score === 1);
        }
      }
    }
  });

  it('sbeval verify replays it as recorded (CI regression check)', async () => {
    const r = await runSbeval(['verify', CORPUS, '--json']);
    const summary = JSON.parse(r.stdout) as VerifySummary;
    const diverged = summary.levels.filter((l) => l.comparison?.agreement === 'diverged').map((l) => l.trace);
    // A failure here means the engine now simulates recorded levels differently: run `sbeval verify
    // test/fixtures/corpus` to see where; if the change is intended, re-record with `npm run corpus:record`.
    expect(diverged).toEqual([]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(summary.levels).toHaveLength(100);
    expect(summary.counts.failed).toBe(0);
    expect(summary.verdictChanges).toBe(0);
  });
});

describe('sbeval verify finds changes', () => {
  const picked = ['reference/v1/levels/L/V1_L_1.sbtrace.gz', 'reference/v1/levels/I/V1_I_1.sbtrace.gz', 'hard/hard_04_stairs.sbtrace.gz'];

  it('reports the first divergence when a physics constant is changed on purpose', async () => {
    const small = join(dir, 'small');
    for (const p of picked) {
      mkdirSync(join(small, p, '..'), { recursive: true });
      copyFileSync(join(CORPUS, p), join(small, p));
    }
    // Box2D's Baumgarte factor (position correction, 0.2 in the evaluator) set to 0.1 for the replay.
    const r = await runSbeval(['verify', small, '--box2d', 'baumgarte=0.1', '--json']);
    const summary = JSON.parse(r.stdout) as VerifySummary;
    expect(summary.counts.diverged).toBe(picked.length);

    // Independently: the same replay in this process, and the first step/body whose pose differs by
    // more than the tolerance.
    const engine = new HeadlessEngine();
    const saved = Settings.baumgarte;
    Settings.baumgarte = 0.1;
    try {
      for (const p of picked) {
        const recorded = await readTrace(join(CORPUS, p));
        const { sink, data } = memorySink();
        await engine.run({ levelId: recorded.header.levelId, xml: recorded.header.xml, settings: recorded.header.settings }, sink);
        const n = recorded.bodies.length;
        const replayed = { states: new Float32Array(recorded.frames.states.length), alive: new Uint8Array(recorded.frames.alive.length) };
        for (const b of data.frames) {
          replayed.states.set(b.states, b.firstStep * n * FIELD_COUNT);
          replayed.alive.set(b.alive, b.firstStep * n);
        }
        let expected: { step: number; body: number } | undefined;
        search: for (let s = 0; s < recorded.frames.stepCount; s++) {
          for (let b = 0; b < n; b++) {
            if (recorded.frames.alive[s * n + b] !== replayed.alive[s * n + b]) {
              expected = { step: s, body: b };
              break search;
            }
            for (let f = 0; f < 3; f++) {
              const i = (s * n + b) * FIELD_COUNT + f;
              if (Math.abs(recorded.frames.states[i]! - replayed.states[i]!) > TOLERANCE) {
                expected = { step: s, body: b };
                break search;
              }
            }
          }
        }
        expect(expected, p).toBeDefined();
        const level = summary.levels.find((l) => l.trace === p)!;
        expect(level.comparison?.agreement).toBe('diverged');
        expect({ step: level.comparison!.firstDivergence!.step, body: level.comparison!.firstDivergence!.body }, p).toEqual(expected);
      }
    } finally {
      Settings.baumgarte = saved;
      await engine.close();
    }

    // The text report names the level, the step and the block.
    const text = await runSbeval(['verify', small, '--box2d', 'baumgarte=0.1']);
    expect(text.stdout).toMatch(/diverged {2}reference\/v1\/levels\/L\/V1_L_1\.sbtrace\.gz: first divergence at step \d+, body #\d+ \w+: (x|y|angle) /);
  });

  it('exits 1 when a recorded verdict no longer holds', async () => {
    // A stable level (Unity score 1) whose recording is altered so that block 0 ends 0.5 to the right:
    // the recording says "moved", the replay says "still".
    const source = await readTrace(join(CORPUS, 'reference/v1/levels/I/V1_I_1.sbtrace.gz'));
    const changedFrom = 400;
    const tampered = join(dir, 'tampered');
    mkdirSync(tampered, { recursive: true });
    const recorder = new TraceRecorder(join(tampered, 'V1_I_1.sbtrace.gz'), {
      job: { levelId: source.header.levelId, xml: source.header.xml, settings: source.header.settings },
      engine: source.header.engine,
      recordedAt: null,
    });
    recorder.loaded(source.bodies, source.dt);
    const states = source.frames.states.slice();
    const n = source.bodies.length;
    for (let s = changedFrom; s < source.frames.stepCount; s++) states[(s * n + 0) * FIELD_COUNT] = states[(s * n + 0) * FIELD_COUNT]! + 0.5;
    recorder.frames({ ...source.frames, states });
    recorder.events(source.events);
    await recorder.finish();

    const r = await runSbeval(['verify', tampered, '--json']);
    expect(r.exitCode).toBe(1);
    const summary = JSON.parse(r.stdout) as VerifySummary;
    expect(summary.verdictChanges).toBe(1);
    const c = summary.levels[0]!.comparison!;
    expect(c.verdictChanged).toBe(true);
    expect(c.recorded.moving).toContain(0);
    expect(c.replayed.moving).toEqual([]);
    expect(c.firstDivergence).toMatchObject({ step: changedFrom, body: 0, field: 'x' });
    expect(c.firstDivergence!.delta).toBeCloseTo(0.5, 4);

    const text = await runSbeval(['verify', tampered]);
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toContain('VERDICT CHANGED');
  });
});

describe('sbeval record', () => {
  it('records a folder of levels reproducibly, with the official verdicts', async () => {
    const levels = join(dir, 'levels');
    mkdirSync(join(levels, 'L'), { recursive: true });
    for (const name of ['V1_L_1.xml', 'V1_L_10.xml']) copyFileSync(join(REFERENCE_LEVELS, 'v1/levels/L', name), join(levels, 'L', name));
    const a = join(dir, 'corpus-a');
    const b = join(dir, 'corpus-b');
    const ra = await runSbeval(['record', levels, '--out', a]);
    expect(ra.exitCode, ra.stderr).toBe(0);
    expect(ra.stdout).toContain('recorded 2 levels');
    const rb = await runSbeval(['record', levels, '--out', b]);
    expect(rb.exitCode, rb.stderr).toBe(0);
    for (const name of ['V1_L_1', 'V1_L_10']) {
      expect(readFileSync(join(a, 'L', `${name}.sbtrace.gz`)).equals(readFileSync(join(b, 'L', `${name}.sbtrace.gz`))), name).toBe(true);
    }
    const index = JSON.parse(readFileSync(join(a, 'corpus.json'), 'utf8')) as CorpusIndex;
    // Golden (stability/L.json): V1_L_1 has 4 of 6 objects moving, V1_L_10 none of 5.
    const l1 = index.levels.find((l) => l.level === 'L/V1_L_1.xml')!;
    const l10 = index.levels.find((l) => l.level === 'L/V1_L_10.xml')!;
    expect(l1.moving).toHaveLength(4);
    expect(l1.bodies).toBe(6);
    expect(l10.moving).toEqual([]);
    expect(l10.score).toBe(1);
    const trace = await readTrace(join(a, 'L', 'V1_L_1.sbtrace.gz'));
    expect(trace.header.xml).toBe(readFileSync(join(levels, 'L', 'V1_L_1.xml'), 'utf8'));
    // Steps 0 … the window's end (bridge/window.ts: 503 for the 10-s window).
    expect(trace.frames.stepCount).toBe(stepsToSimulate(trace.header.settings) + 1);
    expect(trace.frames.stepCount).toBe(504);
  });

  it('fails clearly on a folder without levels', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty, { recursive: true });
    const r = await runSbeval(['record', empty, '--out', join(dir, 'nothing')]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('no .xml levels under');
  });
});
