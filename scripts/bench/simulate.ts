import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SIMULATION } from '../../bridge/engine.js';
import { encodeMaskPng, encodePng } from '../../bridge/headless/png.js';
import { maskToRgba } from '../../bridge/headless/render.js';
import { levelSeed, simulateTrial } from '../../bridge/headless/run.js';
import { useIslandSolver } from '../../bridge/headless/solver.js';
import { WorkerEngine } from '../../bridge/headless/worker-engine.js';
import { parseLevelXml } from '../../levels/xml-read.js';
import { runSimulateStage } from '../../orchestrator/stages/simulate.js';
import { benchMix, hardSet, MIX_BANDS, type NamedLevel, referenceLevels } from './mix.js';
import type { BenchSuite } from './suite.js';

/**
 * `sbeval simulate` throughput (the evaluator's up-to-3 trials + image + PNG, files on disk), every
 * figure a ratio measured in this one run:
 *
 * - on the bench mix (scripts/bench/mix.ts: 500 generated competition levels shaped like real LLM
 *   levels + the 90 reference levels) and, separately, on the hard set (40 seeded levels of 20–60
 *   blocks);
 * - with 1 and 2 engines (worker threads): the scaling;
 * - with the exact shortcuts (default) and without them (`HeadlessEngine({ shortcuts: false })`:
 *   planck's own island solver, every step, Unity's RGBA PNG through sharp — the engine before them):
 *   the speed-up, at identical verdicts (the stability files are compared);
 * - against the Unity evaluator's estimated 3–5 s per level (10 s of game time per trial at ×10 time
 *   scale plus the 10 s image run at ×5, one physics step per rendered frame:
 *   reference/science-birds-evaluator.md §6).
 *
 * Also: the main thread's CPU per level (Linux: /proc), the 1-minute load average before each
 * measurement (on a shared machine the absolute rates move with it; the ratios are what carries over),
 * and the cost split of one trial in this thread (steps, rendering, PNG), before and after.
 *
 * `npm run bench -- simulate-scaling` is the quick part: the default engine only, 1 and 2 engines on
 * the mix and on the hard set, alternated over two rounds (best of the two per setting), with the
 * scaling ratio.
 */
const UNITY_SECONDS_PER_LEVEL = { low: 3, high: 5 };

function writeCompetition(root: string, levels: readonly NamedLevel[]): void {
  for (const l of levels) {
    const dir = join(root, l.team, 'levels', l.character);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${l.name}.xml`), l.xml);
  }
}

/** CPU seconds of this process's main thread so far (Linux), or NaN elsewhere. */
function mainThreadCpu(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

interface StageRun {
  /** 1-minute load average when the measurement started. */
  load: number;
  seconds: number;
  levels: number;
  mainCpuMs: number;
  stability: string;
}

/** The simulate stage over `levels` with `workers` worker-thread engines (started before the clock). */
async function timeStage(levels: readonly NamedLevel[], workers: number, shortcuts: boolean): Promise<StageRun> {
  const root = mkdtempSync(join(tmpdir(), 'sbeval-bench-simulate-'));
  const engines = Array.from({ length: workers }, () => new WorkerEngine(undefined, { shortcuts }));
  try {
    writeCompetition(root, levels);
    await Promise.all(engines.map((e) => e.started()));
    const load = loadavg()[0] as number;
    const cpu0 = mainThreadCpu();
    const started = performance.now();
    const summary = await runSimulateStage({ root, engines });
    const seconds = (performance.now() - started) / 1000;
    const mainCpuMs = ((mainThreadCpu() - cpu0) * 1000) / levels.length;
    // The verdicts, to check both engines agree (stability files of every team, in name order).
    const teams = [...new Set(levels.map((l) => l.team))].sort();
    const stability = teams
      .map((team) =>
        summary.characters
          .filter((c) => c.startsWith(`${team}/`))
          .sort()
          .map((c) => readFileSync(join(root, team, 'stability', `${c.split('/')[1]}.json`), 'utf8'))
          .join(''),
      )
      .join('');
    return { load, seconds, levels: summary.succeeded, mainCpuMs, stability };
  } finally {
    await Promise.all(engines.map((e) => e.close()));
    rmSync(root, { recursive: true, force: true });
  }
}

/** The bench's level sets: the mix (with its measured band shares in the name) and the hard set. */
function levelSets(): Array<{ name: string; levels: NamedLevel[] }> {
  const mix = [...benchMix(), ...referenceLevels()];
  const hard = hardSet();
  const generated = mix.filter((l) => l.team === 'mix');
  const blocks = (l: NamedLevel) => parseLevelXml(l.xml).objects.length;
  const shares = MIX_BANDS.map(
    (b) => `${Math.round((100 * generated.filter((l) => blocks(l) >= b.min && blocks(l) <= b.max).length) / generated.length)}% ${b.min}–${b.max}`,
  ).join(', ');
  const hardBlocks = hard.map(blocks);
  return [
    { name: `mix (${generated.length} generated: ${shares}; + ${mix.length - generated.length} reference)`, levels: mix },
    { name: `hard set (${hard.length} levels, ${Math.min(...hardBlocks)}–${Math.max(...hardBlocks)} blocks)`, levels: hard },
  ];
}

function unity(perSecond: number): string {
  return `${Math.round(perSecond * UNITY_SECONDS_PER_LEVEL.low)}–${Math.round(perSecond * UNITY_SECONDS_PER_LEVEL.high)}× faster than Unity`;
}

export const simulateSuite: BenchSuite = {
  name: 'simulate',
  description:
    'sbeval simulate on the bench mix (500 generated + 90 reference levels) and the hard set (20–60 blocks): 1 vs 2 engines, with vs without the exact shortcuts, vs Unity at 3–5 s/level',
  async run() {
    const sets = levelSets();
    const mix = sets[0]!.levels;
    const rows: Array<Record<string, string | number>> = [];
    for (const set of sets) {
      const runs = new Map<string, StageRun>();
      for (const shortcuts of [false, true]) {
        for (const workers of [1, 2]) runs.set(`${shortcuts}/${workers}`, await timeStage(set.levels, workers, shortcuts));
      }
      const rate = (r: StageRun) => r.levels / r.seconds;
      const before = runs.get('false/1')!;
      const beforeStability = before.stability;
      for (const [key, r] of runs) {
        const [shortcuts, workers] = key.split('/') as [string, string];
        const one = runs.get(`${shortcuts}/1`)!;
        rows.push({
          what: set.name,
          engine: shortcuts === 'true' ? 'shortcuts (default)' : 'without shortcuts',
          engines: Number(workers),
          levels: r.levels,
          seconds: Number(r.seconds.toFixed(2)),
          levelsPerSecond: Number(rate(r).toFixed(1)),
          scaling: `${(rate(r) / rate(one)).toFixed(2)}× over 1 engine`,
          vsWithout: `${(rate(r) / rate(runs.get(`false/${workers}`)!)).toFixed(2)}×`,
          mainThreadMsPerLevel: Number(r.mainCpuMs.toFixed(2)),
          load: Number(r.load.toFixed(2)),
          verdicts: r.stability === beforeStability ? 'identical' : 'DIFFERENT',
          vsUnity: unity(rate(r)),
        });
      }
      if (before.levels !== set.levels.length) rows.push({ what: set.name, engine: `${set.levels.length - before.levels} level(s) failed` });
    }

    // Cost split of one trial with capture, in this thread (no worker, no disk): before and after.
    const sample = mix.filter((_, i) => i % 10 === 0);
    for (const shortcuts of [false, true]) {
      useIslandSolver(shortcuts ? 'wasm' : 'planck');
      let simMs = 0;
      let pngMs = 0;
      for (const l of sample) {
        const level = parseLevelXml(l.xml);
        const t0 = performance.now();
        const images = simulateTrial(level, levelSeed(l.xml), { ...DEFAULT_SIMULATION }, { loaded() {}, frames() {}, events() {} }, undefined, undefined, {
          stopWhenResting: shortcuts,
        });
        const t1 = performance.now();
        if (shortcuts) encodeMaskPng(images!.image);
        else await encodePng(maskToRgba(images!.image));
        pngMs += performance.now() - t1;
        simMs += t1 - t0;
      }
      rows.push({
        what: `one trial in this thread (${sample.length} mix levels): 514 steps + render`,
        engine: shortcuts ? 'shortcuts (default)' : 'without shortcuts',
        engines: 0,
        levels: sample.length,
        msPerLevel: Number((simMs / sample.length).toFixed(2)),
        pngMsPerLevel: Number((pngMs / sample.length).toFixed(2)),
      });
    }
    useIslandSolver('wasm');
    return rows;
  },
};

export const simulateScalingSuite: BenchSuite = {
  name: 'simulate-scaling',
  description:
    'sbeval simulate with the default engine: levels/s with 1 and 2 engines on the bench mix and on the hard set (20–60 blocks), and the scaling; best of 2 alternated rounds',
  onlyWhenNamed: true,
  async run() {
    const rows: Array<Record<string, string | number>> = [];
    for (const set of levelSets()) {
      const best = new Map<number, StageRun>();
      for (let round = 0; round < 2; round++) {
        for (const workers of [1, 2]) {
          const r = await timeStage(set.levels, workers, true);
          const previous = best.get(workers);
          if (!previous || r.levels / r.seconds > previous.levels / previous.seconds) best.set(workers, r);
          if (previous && previous.stability !== r.stability) throw new Error(`${set.name}: two runs with ${workers} engine(s) gave different stability files`);
        }
      }
      const one = best.get(1)!;
      const two = best.get(2)!;
      const rate = (r: StageRun) => r.levels / r.seconds;
      for (const [workers, r] of best) {
        rows.push({
          what: set.name,
          engines: workers,
          levels: r.levels,
          seconds: Number(r.seconds.toFixed(2)),
          levelsPerSecond: Number(rate(r).toFixed(1)),
          scaling: `${(rate(r) / rate(one)).toFixed(2)}× over 1 engine`,
          mainThreadMsPerLevel: Number(r.mainCpuMs.toFixed(2)),
          verdicts: r.stability === one.stability ? 'identical' : 'DIFFERENT',
          load: Number(r.load.toFixed(2)),
        });
      }
      if (two.levels !== set.levels.length)
        rows.push({ what: set.name, engines: 2, levels: two.levels, verdicts: `${set.levels.length - two.levels} level(s) failed` });
    }
    return rows;
  },
};
