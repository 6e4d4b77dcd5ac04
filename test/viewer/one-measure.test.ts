import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELD_COUNT } from '../../bridge/frames.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { evaluateLevel, type LevelEvaluation, traceOfTrialOne } from '../../orchestrator/machine/index.js';
import { EnginePool } from '../../orchestrator/pool/index.js';
import { runSimulateStage } from '../../orchestrator/stages/simulate.js';
import { type Explanation, explainFrames } from '../../scoring/explain.js';
import { parseStabilityJson, type StabilityEntry } from '../../scoring/formats/stability.js';
import { OFFICIAL_RULE } from '../../scoring/stability.js';
import type { ViewerMeta } from '../../viewer/page-data.js';
import { startViewer, type ViewerServer } from '../../viewer/server.js';
import { openTraceFile } from '../../viewer/trace-source.js';
import { type TrialData, viewerFrames, viewerMeta } from '../../viewer/trial.js';
import { REFERENCE_LEVELS, runSbeval } from '../helpers/cli.js';

/**
 * One set of numbers per trial (docs/trial-numbers.md): `sbeval level --trace`, `sbeval explain`, the viewer
 * and the stability JSON say the same about one trial — the stream's step count, the window's start
 * and last read step, every counted block's last read step and displacement, which blocks moved, the
 * score. On 04b30a7 they did not: `explain` and the viewer measured displacement from step 0, the
 * verdict from step 1 (V1_L_1's block #5: 2.233 in `level`, 2.235 in `explain`; V3_L_3's block #1,
 * which already moves on step 1: 3.884 and 3.752), and the viewer said 515 steps where `explain` said 503.
 *
 * Held on every reference level (calibration/reference-levels, 90) and the hard corpus levels (10), each
 * recorded as `sbeval level --trace` records it, and on every recorded trace of the corpus
 * (test/fixtures/corpus) against its recorded verdict; then once through the real commands.
 */
const CORPUS = fileURLToPath(new URL('../fixtures/corpus/', import.meta.url));
const REFERENCE = REFERENCE_LEVELS;

interface Numbers {
  steps: { stream: number; windowStart: number; windowEnd: number };
  /** Counted bodies: id → [last read step, displacement, moved]. */
  bodies: Array<[number, number, number, boolean]>;
  moving: number;
  counted: number;
  score: number;
}

/** What `sbeval level` computes (and prints with --json) for trial 1. */
function ofLevel(evaluation: LevelEvaluation): Numbers {
  const measure = evaluation.measures[0]!;
  const verdict = evaluation.trials[0]!;
  const moving = new Set(verdict.moving);
  return {
    steps: { stream: measure.streamSteps, windowStart: measure.windowStart, windowEnd: measure.windowEnd },
    bodies: measure.objects.filter((o) => o.counted).map((o) => [o.id, o.lastStep, o.displacement, moving.has(o.id)]),
    moving: verdict.movingObjects,
    counted: verdict.startingObjects,
    score: verdict.score,
  };
}

function ofExplain(e: Explanation): Numbers {
  return {
    steps: { stream: e.streamSteps, windowStart: e.windowStart, windowEnd: e.windowEnd },
    bodies: e.bodies.filter((b) => b.counted).map((b) => [b.id, b.lastStep, b.finalDisplacement, b.moved]),
    moving: e.moving,
    counted: e.counted,
    score: e.score,
  };
}

/** The viewer's own numbers: the meta's steps and the displacement table it sends (float32) at each body's last read step. */
function ofViewer(meta: ViewerMeta, frames: Uint8Array): Numbers {
  const cells = meta.stepCount * meta.bodyCount;
  const table = cells * FIELD_COUNT * 4 + cells;
  const e = meta.explanation;
  return {
    steps: { stream: meta.stepCount, windowStart: meta.windowStart, windowEnd: meta.windowEnd },
    bodies: e.bodies
      .filter((b) => b.counted)
      .map((b) => [
        b.id,
        b.lastStep,
        new DataView(frames.buffer, frames.byteOffset).getFloat32(table + (b.lastStep * meta.bodyCount + b.id) * 4, true),
        b.moved,
      ]),
    moving: e.moving,
    counted: e.counted,
    score: e.score,
  };
}

/** The viewer's table is float32 on the wire: compare the others' displacements as float32 too. */
const asSent = (n: Numbers): Numbers => ({ ...n, bodies: n.bodies.map(([id, last, d, moved]) => [id, last, Math.fround(d), moved]) });

function explainTrace(trial: TrialData): Explanation {
  return explainFrames({
    levelId: trial.levelId,
    dt: trial.dt,
    bodies: trial.bodies,
    frames: trial.frames,
    events: trial.events,
    windowSteps: trial.settings.windowSteps,
  });
}

/** `<dir>/**\/*.xml` (or `.sbtrace.gz`), sorted. */
function filesUnder(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path, suffix));
    else if (entry.name.endsWith(suffix)) out.push(path);
  }
  return out.sort();
}

const referenceLevels = filesUnder(REFERENCE, '.xml').filter((p) => /[\\/]levels[\\/]/.test(p));
const hardLevels = filesUnder(join(CORPUS, 'hard-levels'), '.xml');

let work: string;
/** Stability JSON entries of every level (one trial each), by file name. */
const stabilityJson = new Map<string, StabilityEntry>();

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sbeval-one-measure-'));
  // One competition folder with every level; `sbeval simulate --sim-trials 1` writes its stability JSON.
  const root = join(work, 'competition');
  for (const file of referenceLevels) {
    const letter = basename(join(file, '..'));
    mkdirSync(join(root, 'ref', 'levels', letter), { recursive: true });
    cpSync(file, join(root, 'ref', 'levels', letter, basename(file)));
  }
  mkdirSync(join(root, 'hard', 'levels', 'H'), { recursive: true });
  for (const file of hardLevels) cpSync(file, join(root, 'hard', 'levels', 'H', basename(file)));
  await runSimulateStage({ root, trials: 1, workers: 2 });
  for (const team of ['ref', 'hard']) {
    for (const file of readdirSync(join(root, team, 'stability'))) {
      for (const raw of parseStabilityJson(readFileSync(join(root, team, 'stability', file), 'utf8')).raws) {
        stabilityJson.set(basename(raw.tag.replace(/\\/g, '/')), raw);
      }
    }
  }
}, 900_000);

describe('level, explain, viewer and the stability JSON give one set of numbers per trial', { timeout: 900_000 }, () => {
  it('on the reference and hard corpus levels, each recorded as `sbeval level --trace` records it', async () => {
    expect(referenceLevels).toHaveLength(90);
    expect(hardLevels).toHaveLength(10);
    const pool = new EnginePool({ engines: [new HeadlessEngine()] });
    let bodies = 0;
    for (const file of [...referenceLevels, ...hardLevels]) {
      const name = basename(file);
      const trace = join(work, `${name}.sbtrace`);
      // `sbeval level <file> --trace <trace> --sim-trials 1`: trial 1 recorded as it runs, with the capture.
      const tee = traceOfTrialOne(trace);
      const level = ofLevel(
        await evaluateLevel(pool, file, await readFile(file, 'utf8'), {
          trials: 1,
          damage: 'contact-point',
          rule: OFFICIAL_RULE,
          capture: true,
          rawImages: false,
          tee,
        }),
      );
      const trial = await openTraceFile(trace);
      const explained = ofExplain(explainTrace(trial));
      const viewer = ofViewer(viewerMeta(trial), viewerFrames(trial));
      expect(explained, name).toEqual(level);
      expect(viewer, name).toEqual(asSent(level));
      // The stream holds the capture's steps too (0…514); the window reads steps 1…503.
      expect(level.steps, name).toEqual({ stream: 515, windowStart: 1, windowEnd: 503 });
      const json = stabilityJson.get(name);
      expect(json, name).toBeDefined();
      expect([json!.score, json!.movingObjects, json!.startingObjects], name).toEqual([level.score, level.moving, level.counted]);
      bodies += level.bodies.length;
    }
    await pool.close();
    expect(bodies).toBeGreaterThan(300);
  });

  it('on every recorded trace of the corpus, against the verdict recorded with it', async () => {
    let traces = 0;
    const pool = new EnginePool({ engines: [new HeadlessEngine()] });
    for (const set of ['reference', 'hard']) {
      const index = JSON.parse(readFileSync(join(CORPUS, set, 'corpus.json'), 'utf8')) as {
        levels: Array<{ trace: string; score: number; moving: number[]; steps: number }>;
      };
      for (const entry of index.levels) {
        const trial = await openTraceFile(join(CORPUS, set, entry.trace));
        const explained = ofExplain(explainTrace(trial));
        const viewer = ofViewer(viewerMeta(trial), viewerFrames(trial));
        expect(viewer, entry.trace).toEqual(asSent(explained));
        expect(explained.steps, entry.trace).toEqual({ stream: entry.steps, windowStart: 1, windowEnd: 503 });
        expect([explained.score, explained.bodies.filter((b) => b[3]).map((b) => b[0])], entry.trace).toEqual([entry.score, entry.moving]);
        // `sbeval level` on the trace's own level and settings (no capture) recomputes the same numbers.
        const level = ofLevel(
          await evaluateLevel(pool, entry.trace, trial.xml!, {
            trials: 1,
            damage: trial.settings.damage,
            rule: OFFICIAL_RULE,
            capture: false,
            rawImages: false,
          }),
        );
        expect(level, entry.trace).toEqual(explained);
        traces += 1;
      }
    }
    await pool.close();
    expect(traces).toBe(100);
  });
});

describe('the commands a user types say the same numbers', { timeout: 300_000 }, () => {
  let server: ViewerServer | undefined;
  afterAll(async () => {
    await server?.close();
  });

  it('sbeval level --trace --json, sbeval explain --json, the viewer over HTTP and sbeval simulate on V1_L_1 and V3_L_3', async () => {
    for (const [version, name] of [
      ['v1', 'V1_L_1'],
      ['v3', 'V3_L_3'],
    ] as const) {
      const xml = join(REFERENCE, version, 'levels', 'L', `${name}.xml`);
      const trace = join(work, `${name}.cli.sbtrace.gz`);
      const level = await runSbeval(['level', xml, '--trace', trace, '--sim-trials', '1', '--json']);
      expect(level.exitCode, level.stderr).toBe(0);
      const printed = JSON.parse(level.stdout) as {
        steps: Numbers['steps'];
        objects: Array<{ id: number; lastStep: number; displacement: number; moving: boolean }>;
        trials: Array<{ score: number; movingObjects: number }>;
      };
      const explain = await runSbeval(['explain', trace, '--json']);
      expect(explain.exitCode, explain.stderr).toBe(0);
      const e = JSON.parse(explain.stdout) as Explanation;
      expect(ofExplain(e)).toEqual({
        steps: printed.steps,
        bodies: printed.objects.map((o) => [o.id, o.lastStep, o.displacement, o.moving]),
        moving: printed.trials[0]!.movingObjects,
        counted: printed.objects.length,
        score: printed.trials[0]!.score,
      });
      // The text outputs print the same step numbers and, to 3 decimals, the same displacements.
      const text = await runSbeval(['explain', trace]);
      const levelText = await runSbeval(['level', xml, '--sim-trials', '1']);
      const stepsLine = `window: start positions on step 1, last on step 503 (10.06 s)`;
      expect(levelText.stdout).toContain(stepsLine);
      expect(text.stdout).toContain(stepsLine);
      for (const o of printed.objects) {
        expect(levelText.stdout).toContain(o.displacement.toFixed(3));
        expect(text.stdout).toContain(`${o.moving ? 'MOVED' : 'still'} ${o.displacement.toFixed(3)}`);
      }
      // The viewer over HTTP: the page's status line and chart come from these.
      server = await startViewer({ source: { kind: 'trial', title: name, load: () => openTraceFile(trace) } });
      const meta = (await (await fetch(new URL('/api/trial/main/meta', server.url))).json()) as ViewerMeta;
      const frames = Buffer.from(await (await fetch(new URL('/api/trial/main/frames', server.url))).arrayBuffer());
      expect(ofViewer(meta, frames)).toEqual(asSent(ofExplain(e)));
      expect(meta.steps).toContain(stepsLine);
      expect(meta.steps).toContain('stream: 515 steps (0…514)');
      await server.close();
      server = undefined;
      // The stability JSON of `sbeval simulate --sim-trials 1` on a folder holding the level.
      const root = mkdtempSync(join(tmpdir(), 'sbeval-one-measure-cli-'));
      mkdirSync(join(root, 'team', 'levels', 'L'), { recursive: true });
      cpSync(xml, join(root, 'team', 'levels', 'L', `${name}.xml`));
      const simulate = await runSbeval(['simulate', root, '--sim-trials', '1', '--workers', '1']);
      expect(simulate.exitCode, simulate.stderr).toBe(0);
      expect(existsSync(join(root, 'team', 'stability', 'L.json'))).toBe(true);
      const [raw] = parseStabilityJson(readFileSync(join(root, 'team', 'stability', 'L.json'), 'utf8')).raws;
      expect([raw!.score, raw!.movingObjects, raw!.startingObjects]).toEqual([e.score, e.moving, e.counted]);
    }
  });
});
