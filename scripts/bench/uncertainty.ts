/**
 * `npm run bench -- uncertainty`: what the ranking's uncertainty (2000 bootstrap resamples, on by
 * default) adds to `sbeval score` on a full-size competition — 10 teams × 26 letters × 10 trials, the
 * 2024 size. Runs alternate off / on; medians.
 *
 * - The command a user types, `sbeval score <root>` (bin/sbeval.js, the built CLI, a process each),
 *   on a folder as a run leaves it: images (Unity's own renders of the reference levels, as in the
 *   report suite), stability, similarity and diversity files. The thumbnail cache is warm (a second
 *   score: the shortest a real score gets). And the command on a folder without images (no gallery).
 * - The score stage in this process on the same folders: with images, and without (no gallery: the
 *   baseline is as short as it gets, the worst case for the added share) under the 2024 rules
 *   (26-d softmax vectors), the 2025 rules (768-d CLS vectors), and with perturbed physics (20 runs
 *   per level).
 * - Each on / off pair is timed back to back (alternating), so both see the same load; `on / off` is
 *   the median of the rounds' ratios. On a folder this size the resamples run in a worker thread while
 *   the official scoring runs (orchestrator/stages/uncertainty.ts), so wall time can hide what CPU time
 *   (every thread) shows. The command starts that thread before it reads the folder; in this process
 *   the thread is kept between scorings (uncertainty-thread.ts), so after the first "on" round the
 *   in-process rows see it with its code compiled, as a second scoring in one process does.
 * - The bootstrap alone, and how far the 95 % bounds move between seeds at 2000 resamples (as a share
 *   of the interval's width, the worst team): the Monte-Carlo noise the default leaves.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LevelRobustnessResult } from '../../orchestrator/stages/robustness.js';
import { loadCompetition } from '../../orchestrator/stages/score.js';
import { computeDiversity, diversityJson } from '../../scoring/diversity/diversity.js';
import { parseSimilarityJson } from '../../scoring/formats/index.js';
import { summarizeRobustness } from '../../scoring/robustness.js';
import { plain, scoreCompetition } from '../../scoring/score/index.js';
import { RULE_SETS } from '../../scoring/score/rules.js';
import { buildModel, runBootstrap, summarize } from '../../scoring/uncertainty/index.js';
import { type CompetitionSpec, randomCompetition, writeCompetition } from '../../test/scoring/uncertainty-folder.js';
import { writeReportCompetition } from './report.js';
import type { BenchSuite } from './suite.js';

const TEAMS = Array.from({ length: 10 }, (_, i) => `team${String(i).padStart(2, '0')}`);
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('');
const TRIALS = 10;
const RESAMPLES = 2000;
/** Rounds per comparison (the shared 2-core machine's load moves the times by ±10–20 % between runs). */
const REPS = 9;
const RUNS = 20;
const CLI = fileURLToPath(new URL('../../bin/sbeval.js', import.meta.url));

/**
 * The built modules (dist/, what the CLI runs) for the in-process rows: from the sources, the
 * bootstrap's worker thread would first load tsx and compile the modules it runs.
 */
async function built() {
  const load = <T>(path: string) => import(new URL(`../../dist/${path}`, import.meta.url).href) as Promise<T>;
  return {
    runScoreStage: (await load<typeof import('../../orchestrator/stages/score-stage.js')>('orchestrator/stages/score-stage.js')).runScoreStage,
    sampleInThread: (await load<typeof import('../../orchestrator/stages/uncertainty-thread.js')>('orchestrator/stages/uncertainty-thread.js')).sampleInThread,
  };
}
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

interface Cost {
  wall: number;
  /** CPU seconds of the process, every thread (libuv's pool, libvips) included. */
  cpu: number;
}

async function cost(run: () => Promise<unknown>): Promise<Cost> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  await run();
  const used = process.cpuUsage(cpu);
  return { wall: (performance.now() - start) / 1000, cpu: (used.user + used.system) / 1e6 };
}

/** A hook for the child process: its own CPU time (every thread), printed at exit. */
const CPU_HOOK = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('CPU_SECONDS '+(u.user+u.system)/1e6+'\\n')})`;

/** `sbeval score` as a user runs it (bin/sbeval.js, dist/), in its own process. */
function cliCost(args: string[]): Cost {
  const start = performance.now();
  const run = spawnSync(process.execPath, ['--import', CPU_HOOK, CLI, ...args], { encoding: 'utf8' });
  const wall = (performance.now() - start) / 1000;
  if (run.status !== 0) throw new Error(`sbeval ${args.join(' ')} failed: ${run.stderr}`);
  const cpu = Number(/CPU_SECONDS ([\d.e-]+)/.exec(run.stderr)?.[1]);
  return { wall, cpu };
}

/** 20 perturbed runs per level, moving counts spread over 0..starting (synthetic, seeded by position). */
function perturbedRuns(spec: CompetitionSpec): LevelRobustnessResult[] {
  const out: LevelRobustnessResult[] = [];
  for (const [team, letters] of spec) {
    for (const [character, trials] of letters) {
      trials.forEach((t, i) => {
        if (!t.stability) return;
        const starting = t.stability.startingObjects;
        const moving = Array.from({ length: RUNS }, (_, k) => ((k * 7 + i * 3) % 5 === 0 ? (k + i) % (starting + 1) : 0));
        const base = `${team}_${character}_${i + 1}`;
        out.push({ team, character, file: `${base}.xml`, base, model: undefined, officialScore: 1, robustness: summarizeRobustness(moving, 1), moving });
      });
    }
  }
  return out;
}

/** The worst move of a 95 % bound between seeds 1..5, as a share of that team's interval width. */
function seedSpread(root: string): number {
  const { input } = loadCompetition(root, RULE_SETS['2024'], { trials: TRIALS });
  const model = buildModel([{ label: '', input, rules: RULE_SETS['2024'] }]);
  // The official rows the command reports against: the intervals are placed about their scores.
  const official = scoreCompetition(input, RULE_SETS['2024']).ranking.map((r) => ({
    team: r.team,
    rank: r.rank,
    promptScore: plain(r.promptScore),
    normalizedPromptScore: plain(r.normalizedPromptScore),
  }));
  const runs = [1, 2, 3, 4, 5].map((seed) => summarize(runBootstrap(model, { resamples: RESAMPLES, seed, ranking: input.teams }), official));
  let worst = 0;
  input.teams.forEach((_, i) => {
    const lows = runs.map((r) => r.teams[i]!.normLow);
    const highs = runs.map((r) => r.teams[i]!.normHigh);
    const width = median(runs.map((r) => r.teams[i]!.normHigh - r.teams[i]!.normLow));
    worst = Math.max(worst, (Math.max(...lows) - Math.min(...lows)) / width, (Math.max(...highs) - Math.min(...highs)) / width);
  });
  return worst;
}

/** The report suite's folder (images, stability, similarity), with diversity files computed from its similarity files. */
function folderWithImages(root: string): void {
  writeReportCompetition(root);
  for (const team of readdirSync(root)) {
    for (const file of readdirSync(join(root, team, 'similarity'))) {
      const similarity = parseSimilarityJson(readFileSync(join(root, team, 'similarity', file), 'utf8'));
      writeFileSync(join(root, team, 'diversity', file), diversityJson(computeDiversity(similarity, 2024, TRIALS)));
    }
  }
}

type Row = Record<string, string | number>;

/**
 * REPS alternating rounds of off, on (and an extra variant) after a warm-up; one row per comparison:
 * the medians of wall and CPU seconds, and the median of the rounds' on / off ratios (a round's two
 * runs follow each other, so they see about the same load).
 */
async function offOn(label: string, run: (enabled: boolean) => Promise<Cost>, rows: Row[], extra?: { name: string; run: () => Promise<Cost> }): Promise<void> {
  await run(false); // warm-up: module loading, JIT, thumbnail cache
  const off: Cost[] = [];
  const variants: Array<{ name: string; costs: Cost[] }> = [{ name: 'on', costs: [] }, ...(extra ? [{ name: extra.name, costs: [] }] : [])];
  for (let k = 0; k < REPS; k++) {
    off.push(await run(false));
    (variants[0] as { costs: Cost[] }).costs.push(await run(true));
    if (extra) (variants[1] as { costs: Cost[] }).costs.push(await extra.run());
  }
  const med = (list: Cost[], key: keyof Cost) => median(list.map((c) => c[key]));
  const ratio = (list: Cost[], key: keyof Cost) => median(list.map((c, k) => c[key] / (off[k] as Cost)[key]));
  for (const { name, costs } of variants) {
    rows.push({
      case: `${label}: uncertainty ${name} / off`,
      'off wall (s)': Number(med(off, 'wall').toFixed(3)),
      'on wall (s)': Number(med(costs, 'wall').toFixed(3)),
      'on / off wall': Number(ratio(costs, 'wall').toFixed(3)),
      'off CPU (s)': Number(med(off, 'cpu').toFixed(3)),
      'on CPU (s)': Number(med(costs, 'cpu').toFixed(3)),
      'on / off CPU': Number(ratio(costs, 'cpu').toFixed(3)),
    });
  }
}

export const uncertaintySuite: BenchSuite = {
  name: 'uncertainty',
  description: `what ${RESAMPLES} bootstrap resamples add to sbeval score: ${TEAMS.length} teams × ${LETTERS.length} letters × ${TRIALS} trials`,
  async run() {
    const rows: Row[] = [{ case: 'load average at the start (1 min)', value: Number(loadavg()[0]!.toFixed(2)) }];
    const { runScoreStage, sampleInThread } = await built();
    const withImages = mkdtempSync(join(tmpdir(), 'sbeval-bench-uncertainty-'));
    try {
      folderWithImages(withImages);
      const cli = async (enabled: boolean) => cliCost(['score', withImages, '--rules', '2024', ...(enabled ? [] : ['--uncertainty', 'off'])]);
      await offOn('sbeval score (the command; images, warm thumbnail cache)', cli, rows);
      await offOn(
        'score stage in this process (images, warm cache)',
        (enabled) => cost(() => runScoreStage({ root: withImages, rules: '2024', trials: TRIALS, uncertainty: { enabled, resamples: RESAMPLES, seed: 1 } })),
        rows,
      );
    } finally {
      rmSync(withImages, { recursive: true, force: true });
    }
    for (const { rules, cls } of [
      { rules: '2024' as const, cls: undefined },
      { rules: '2025' as const, cls: 768 },
    ]) {
      const root = mkdtempSync(join(tmpdir(), 'sbeval-bench-uncertainty-'));
      try {
        const spec = randomCompetition({ teams: TEAMS, letters: LETTERS, trials: TRIALS, seed: 2024, failed: 0.1, noImage: 0.05, ...(cls ? { cls } : {}) });
        writeCompetition(root, spec, { rules: rules === '2024' ? 2024 : 2025, trials: TRIALS });
        const physics = { runs: RUNS, simulationTrials: 3, levels: perturbedRuns(spec) };
        if (rules === '2024') {
          const command = async (enabled: boolean) => cliCost(['score', root, '--rules', '2024', ...(enabled ? [] : ['--uncertainty', 'off'])]);
          await offOn('sbeval score (the command; no images)', command, rows);
        }
        const score = (enabled: boolean, withPhysics = false) =>
          cost(() =>
            runScoreStage({ root, rules, trials: TRIALS, uncertainty: { enabled, resamples: RESAMPLES, seed: 1 }, ...(withPhysics ? { physics } : {}) }),
          );
        const vectors = cls ? `${cls}-d CLS vectors` : '26-d softmax vectors';
        await offOn(
          `score stage in this process, no images, ${rules} rules (${vectors})`,
          score,
          rows,
          rules === '2024' ? { name: `on, physics from ${RUNS} perturbed runs`, run: () => score(true, true) } : undefined,
        );
        if (rules === '2024') {
          const { input } = loadCompetition(root, RULE_SETS['2024'], { trials: TRIALS });
          const model = buildModel([{ label: '', input, rules: RULE_SETS['2024'] }]);
          const alone: Cost[] = [];
          for (let k = 0; k < REPS; k++) alone.push(await cost(async () => runBootstrap(model, { resamples: RESAMPLES, seed: 1, ranking: input.teams })));
          rows.push({
            case: `the bootstrap alone, ${RESAMPLES} resamples (this thread, warm)`,
            'on wall (s)': Number(median(alone.map((c) => c.wall)).toFixed(3)),
            'on CPU (s)': Number(median(alone.map((c) => c.cpu)).toFixed(3)),
          });
          // What a worker thread costs by itself (uncertainty.ts THREAD_MIN_WORK): start, this model in, 1 resample, samples back.
          const thread: Cost[] = [];
          for (let k = 0; k < REPS; k++) {
            let started: ReturnType<typeof sampleInThread> | undefined;
            thread.push(await cost(() => (started = sampleInThread({ model, options: { resamples: 1, seed: 1 } })).samples));
            started?.cancel(); // the next one starts its own thread (the score stage's is kept between bootstraps)
          }
          rows.push({
            case: 'a worker thread alone: start, this model in, 1 resample, back',
            'on wall (s)': Number(median(thread.map((c) => c.wall)).toFixed(3)),
            'on CPU (s)': Number(median(thread.map((c) => c.cpu)).toFixed(3)),
          });
          rows.push({ case: '95 % bounds between seeds 1–5: worst move / interval width (%)', value: Number((seedSpread(root) * 100).toFixed(1)) });
        }
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    }
    rows.push({ case: 'load average at the end (1 min)', value: Number(loadavg()[0]!.toFixed(2)) });
    return rows;
  },
};
