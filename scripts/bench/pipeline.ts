/**
 * `npm run bench -- pipeline`: the whole `sbeval run` on a generated competition of 10 teams × 26
 * letters × 10 trials (2,600 responses, the 2024 size), headless engine in worker threads (one per
 * core), similarity with a ViT-B/16-sized random model (scripts/make-random-vit.ts; the competition
 * model's shape), 2024 rules. Reports, per stage, the work done and levels (or files) per second, then
 * a second run over the finished folder (everything already done: the cost of resuming). With headless
 * engines the run classifies the images after the levels (orchestrator/run/context.ts
 * `overlapByDefault`); in an overlapped run the "similarity during the levels" row counts the images
 * classified before the similarity stage began.
 *
 * The responses are seeded (same folder on every machine): prose plus a fenced block of 4–40
 * `drop_block` calls over the 20-slot grid, with ~6% answers without code and towers that sometimes
 * break the height boundary, so every stage sees realistic failures.
 */

import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { mulberry32 as prng } from '../../bridge/headless/order.js';
import { resolveSettings } from '../../orchestrator/config/index.js';
import { listTrialFiles } from '../../orchestrator/layout/competition.js';
import type { ProgressSink, TickOutcome } from '../../orchestrator/progress/types.js';
import { runCompetition } from '../../orchestrator/run/index.js';
import { readModelInfo } from '../../orchestrator/stages/model.js';
import { VitClassifier } from '../../scoring/similarity/classifier.js';
import { decodePngToRgb } from '../../scoring/similarity/decode.js';
import { preprocessRgb } from '../../scoring/similarity/preprocess.js';
import { envInteger } from './env.js';
import type { BenchSuite } from './suite.js';
import { modelPath } from './vit.js';

/**
 * Teams in the generated competition: 10 (the 2,600-response bench) unless `SBEVAL_BENCH_TEAMS` says
 * fewer — a shorter run of the same bench for iterating on a shared machine (compare ratios within one run).
 */
const TEAMS = envInteger('SBEVAL_BENCH_TEAMS', 10, 1, 10);
/**
 * `SBEVAL_BENCH_OVERLAP=on,off`: one fresh run per listed order, each on its own copy of the competition
 * (on = similarity overlapped with the levels; off = similarity after every level, the headless default), to
 * compare them within one bench run. Default: the run's default only.
 */
const ORDERS = benchOrders(process.env.SBEVAL_BENCH_OVERLAP);

function benchOrders(value: string | undefined): Array<boolean | undefined> {
  if (value === undefined || value === '') return [undefined];
  return value.split(',').map((v) => {
    if (v === 'on') return true;
    if (v === 'off') return false;
    throw new Error(`SBEVAL_BENCH_OVERLAP lists on and/or off, got ${v}`);
  });
}
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const TRIALS = 10;
const BLOCKS = ['b11', 'b31', 'b13'] as const;

function response(random: () => number, letter: string): string {
  if (random() < 0.06) return `I would build the letter ${letter} as a tall structure with a wide base, but I cannot write code for it.`;
  const calls: string[] = [];
  const count = 4 + Math.floor(random() * 37);
  const centre = 3 + Math.floor(random() * 14);
  for (let i = 0; i < count; i += 1) {
    const block = BLOCKS[Math.floor(random() * BLOCKS.length)]!;
    const x = Math.max(0, Math.min(19, centre + Math.floor((random() - 0.5) * 8)));
    calls.push(`drop_block('${block}', ${x})`);
  }
  return `Here is a structure that looks like the letter ${letter}:\n\n\`\`\`python\n${calls.join('\n')}\n\`\`\`\n\nThe stems are built first, then the bars.`;
}

export function writeCompetition(root: string, seed = 2024, teams = TEAMS): number {
  const random = prng(seed);
  let files = 0;
  for (let t = 0; t < teams; t += 1) {
    const team = `team${String(t).padStart(2, '0')}`;
    for (const letter of LETTERS) {
      const dir = join(root, team, 'raw', letter);
      mkdirSync(dir, { recursive: true });
      for (let n = 1; n <= TRIALS; n += 1) {
        writeFileSync(join(dir, `${team}_${letter}_${n}.txt`), response(random, letter));
        files += 1;
      }
    }
  }
  writeFileSync(join(root, 'sbeval.config.yaml'), 'rules: 2024\n');
  return files;
}

/** Start/end time and counts per stage, from the progress events every stage reports. */
class StageClock implements ProgressSink {
  readonly stages = new Map<string, { started: number; ended: number; ok: number; failed: number; skipped: number }>();
  start(stage: string): void {
    const existing = this.stages.get(stage);
    if (existing) existing.ended = 0;
    else this.stages.set(stage, { started: performance.now(), ended: 0, ok: 0, failed: 0, skipped: 0 });
  }
  tick(stage: string, outcome: TickOutcome): void {
    const s = this.stages.get(stage);
    if (s) s[outcome] += 1;
  }
  note(): void {}
  end(stage: string): void {
    const s = this.stages.get(stage);
    if (s) s.ended = performance.now();
  }
}

async function timedRun(root: string, model: string, label: string, overlapSimilarity?: boolean): Promise<Array<Record<string, string | number>>> {
  const clock = new StageClock();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const report = await runCompetition({
    config: resolveSettings(root, { model, workers: availableParallelism() }),
    progress: clock,
    ...(overlapSimilarity !== undefined ? { overlapSimilarity } : {}),
  });
  const cpuSeconds = (() => {
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / 1e6;
  })();
  const total = (performance.now() - started) / 1000;
  const rows: Array<Record<string, string | number>> = [];
  for (const [stage, s] of clock.stages) {
    const seconds = ((s.ended || performance.now()) - s.started) / 1000;
    const worked = s.ok + s.failed;
    rows.push({
      run: label,
      stage,
      items: s.ok + s.failed + s.skipped,
      ok: s.ok,
      failed: s.failed,
      alreadyDone: s.skipped,
      seconds: Number(seconds.toFixed(2)),
      perSecond: seconds > 0 ? Number(((worked || s.skipped) / seconds).toFixed(1)) : 0,
    });
  }
  // Images the run's classifier finished while the levels were still simulated (run/context.ts): the
  // similarity stage row above then only shows what was left after the levels.
  const prefetch = readFileSync(report.runLog, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"similarity-prefetch"'))
    .map((line) => JSON.parse(line) as { started: number; classified: number });
  for (const p of prefetch)
    rows.push({
      run: label,
      stage: 'similarity during the levels',
      items: p.started,
      ok: p.classified,
      failed: '-',
      alreadyDone: '-',
      seconds: '-',
      perSecond: '-',
    });
  // Where the time went: each stage's end from the run log, as seconds since the run began.
  const log = readFileSync(report.runLog, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { time: string; type: string; stage?: string });
  const begin = Date.parse(log[0]!.time);
  let previous = begin;
  for (const entry of log) {
    if (entry.type !== 'stage-end' && entry.type !== 'run-end') continue;
    const at = Date.parse(entry.time);
    rows.push({
      run: label,
      stage: `${entry.type === 'run-end' ? 'run end' : `${entry.stage} ended`} (+s since the previous)`,
      items: '-',
      ok: '-',
      failed: '-',
      alreadyDone: '-',
      seconds: Number(((at - begin) / 1000).toFixed(2)),
      perSecond: Number(((at - previous) / 1000).toFixed(2)),
    });
    previous = at;
  }
  rows.push({
    run: label,
    stage: 'CPU seconds of the process (all threads)',
    items: '-',
    ok: '-',
    failed: '-',
    alreadyDone: '-',
    seconds: Number(cpuSeconds.toFixed(1)),
    perSecond: '-',
  });
  const score = report.stages.find((s) => s.stage === 'score');
  rows.push({
    run: label,
    stage: 'whole run',
    items: report.levels.total,
    ok: report.levels.total - report.levels.failed,
    failed: report.levels.failed,
    alreadyDone: report.levels.cached,
    seconds: Number(total.toFixed(2)),
    perSecond: Number((report.levels.total / total).toFixed(1)),
  });
  if (score?.status !== 'done') throw new Error(`the score stage did not run: ${score?.detail ?? 'missing'}`);
  return rows;
}

export const pipelineSuite: BenchSuite = {
  name: 'pipeline',
  description: `sbeval run end to end: ${TEAMS} teams × 26 letters × ${TRIALS} trials, headless engine (${availableParallelism()} workers), ViT-B/16-sized random model, 2024 rules; then the same command again (resume with nothing left)`,
  async run() {
    const model = modelPath();
    const root = mkdtempSync(join(tmpdir(), 'sbeval-bench-pipeline-'));
    try {
      writeCompetition(root);
      const rows: Array<Record<string, string | number>> = [];
      for (const [index, order] of ORDERS.entries()) {
        // Each order on its own untouched copy of the competition.
        const folder = index === ORDERS.length - 1 ? root : join(root, '..', `${basename(root)}-${index}`);
        if (folder !== root) cpSync(root, folder, { recursive: true });
        try {
          const label = order === undefined ? 'fresh' : `fresh, overlap ${order ? 'on' : 'off'}`;
          const fresh = await timedRun(folder, model, label, order);
          rows.push(...fresh, ...(await againstSession(folder, model, fresh)));
        } finally {
          if (folder !== root) rmSync(folder, { recursive: true, force: true });
        }
      }
      rows.push(...(await timedRun(root, model, 'resume')));
      return rows;
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
};

/** Distinct images of the run measured on the bare session (the ViT's own rate, default threads and batch). */
const SESSION_SAMPLE = 40;

/**
 * The run against the session it is bound by, in the same bench run: the bare onnxruntime session's
 * images/s on a sample of the run's own images (preprocessed in memory, default threads and batch), and
 * the bound 1.2 × images ÷ that rate + 60 s (the target for the whole run, docs/benchmarks.md).
 */
async function againstSession(root: string, model: string, fresh: Array<Record<string, string | number>>): Promise<Array<Record<string, string | number>>> {
  const info = readModelInfo(model);
  const seen = new Set<string>();
  const tensors: Float32Array[] = [];
  for (const file of listTrialFiles(root, 'images', {}, '.png')) {
    if (tensors.length >= SESSION_SAMPLE) break;
    const png = readFileSync(file.path);
    const digest = createHash('sha256').update(png).digest('hex');
    if (seen.has(digest)) continue;
    seen.add(digest);
    tensors.push(preprocessRgb(await decodePngToRgb(png), info.preprocessor).tensor);
  }
  const session = await VitClassifier.create(model, info, {});
  let rate: number;
  try {
    await session.classifyAll(tensors.slice(0, session.batchSize));
    const fresh = tensors.map((t) => {
      const copy = t.slice();
      copy[0] = copy[0]! + 1e-3; // not the warm-up's inputs
      return copy;
    });
    const started = performance.now();
    await session.classifyAll(fresh);
    rate = fresh.length / ((performance.now() - started) / 1000);
  } finally {
    await session.close();
  }
  const similarity = fresh.find((r) => r.stage === 'similarity');
  const whole = fresh.find((r) => r.stage === 'whole run');
  const label = String(whole?.run ?? 'fresh');
  const images = Number(similarity?.items ?? 0);
  const seconds = Number(whole?.seconds ?? 0);
  const bound = (1.2 * images) / rate + 60;
  return [
    {
      run: 'bare session',
      stage: `ViT on ${tensors.length} of the run's images`,
      items: tensors.length,
      ok: '-',
      failed: '-',
      alreadyDone: '-',
      seconds: Number((tensors.length / rate).toFixed(2)),
      perSecond: Number(rate.toFixed(2)),
    },
    {
      run: 'target',
      stage: `1.2 × ${images} images ÷ ${rate.toFixed(2)}/s + 60 s`,
      items: images,
      ok: '-',
      failed: '-',
      alreadyDone: '-',
      seconds: Number(bound.toFixed(1)),
      perSecond: '-',
    },
    {
      run: `${label} / target`,
      stage: seconds <= bound ? 'met' : 'missed',
      items: '-',
      ok: '-',
      failed: '-',
      alreadyDone: '-',
      seconds: `${((100 * seconds) / bound).toFixed(1)}%`,
      perSecond: '-',
    },
  ];
}
