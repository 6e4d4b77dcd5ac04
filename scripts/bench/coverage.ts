/**
 * `npm run bench -- coverage`: do the intervals `sbeval score` writes cover what they claim? On
 * synthetic 2024-rules competitions whose truth is known (coverage-design.ts): per design, the truth
 * E[prompt score] and E[normalised score] from fresh competitions, then N competitions, each through
 * the functions `sbeval score` runs for its intervals (buildModel, runBootstrap, summarize;
 * orchestrator/stages/uncertainty.ts) with the product's default resamples, one thread as the
 * command's bootstrap. Counted per competition: each team's 95 % normalised and prompt interval holds
 * the truth (and on which side it misses), all P simultaneous intervals hold at once, the winner's set
 * holds the truly best team, and the interval's width against 2 · 1.96 · the true SD.
 *
 * Standard errors: a share of N competitions has the binomial √(p(1−p)/N); the per-team coverages pool
 * N × P intervals that share competitions (one normalisation), so theirs is the SD of the competitions'
 * own shares / √N (the binomial √(p(1−p)/(NP)) if the teams' intervals were independent).
 * Environment: SBEVAL_BENCH_COVERAGE_N (competitions per design), SBEVAL_BENCH_COVERAGE_TRUTH (fresh
 * competitions for the truth).
 */
import { DEFAULTS } from '../../orchestrator/config/settings.js';
import { runBootstrap, summarize, type UncertaintySummary, Xoshiro128 } from '../../scoring/uncertainty/index.js';
import { DESIGNS, type Design, drawCompetition, estimateTruth, modelOf, officialScores, type Truth } from './coverage-design.js';
import { envInteger } from './env.js';
import type { BenchSuite } from './suite.js';

const COMPETITIONS = envInteger('SBEVAL_BENCH_COVERAGE_N', 1000, 10, 1_000_000);
const TRUTH_COMPETITIONS = envInteger('SBEVAL_BENCH_COVERAGE_TRUTH', 5000, 100, 10_000_000);
const RESAMPLES = DEFAULTS.uncertainty.resamples;
/** The truth's fresh competitions are drawn from stream (design seed, 1), the measured ones from (design seed, 2). */
const TRUTH_STREAM = 1;
const MEASURED_STREAM = 2;
const Z95 = 1.959963984540054;

/** A share with its standard error, the share to the decimal place of the error's first significant digit (two when that digit is 1). */
export function withError(share: number, error: number): string {
  if (!(error > 0)) return `${share} ± 0`;
  const lead = Math.floor(Math.log10(error));
  const digits = error / 10 ** lead < 2 ? 1 : 0;
  const places = Math.max(0, digits - lead);
  return `${share.toFixed(places)} ± ${error.toFixed(places)}`;
}

/** A share counted per competition: its mean and the standard error of that mean. */
class Share {
  private sum = 0;
  private squares = 0;
  private n = 0;

  add(value: number): void {
    this.sum += value;
    this.squares += value * value;
    this.n += 1;
  }

  get mean(): number {
    return this.sum / this.n;
  }

  /** SD of the per-competition values / √n (for 0/1 values: √(p(1−p)/(n−1)) ≈ the binomial SE). */
  get error(): number {
    const n = this.n;
    return Math.sqrt(Math.max(0, (this.squares - n * this.mean ** 2) / (n - 1)) / n);
  }
}

interface Tally {
  normalized: Share;
  prompt: Share;
  joint: Share;
  winnerSet: Share;
  /** Shares of intervals the truth lies above / below. */
  normalizedAbove: Share;
  normalizedBelow: Share;
  promptAbove: Share;
  promptBelow: Share;
  /** Per team: interval width / (2 · 1.96 · true SD), normalised. */
  width: Share;
  /** Per team: (resamples' mean − official score) / bootstrap SD. */
  normalizedShift: Share;
  promptShift: Share;
  /** Per team (official team order) covered normalised / prompt. */
  team: Array<{ normalized: Share; prompt: Share }>;
}

function tallyFor(p: number): Tally {
  const s = () => new Share();
  return {
    normalized: s(),
    prompt: s(),
    joint: s(),
    winnerSet: s(),
    normalizedAbove: s(),
    normalizedBelow: s(),
    promptAbove: s(),
    promptBelow: s(),
    width: s(),
    normalizedShift: s(),
    promptShift: s(),
    team: Array.from({ length: p }, () => ({ normalized: s(), prompt: s() })),
  };
}

/** Adds one competition's intervals against the truth. */
function count(tally: Tally, { summary, shift }: Measured, design: Design, truth: Truth): void {
  for (const x of shift.normalized) tally.normalizedShift.add(x);
  for (const x of shift.prompt) tally.promptShift.add(x);
  const p = design.teams.length;
  let normalized = 0;
  let prompt = 0;
  let joint = true;
  const side = { na: 0, nb: 0, pa: 0, pb: 0 };
  for (const row of summary.teams) {
    const k = design.teams.indexOf(row.team);
    const norm = truth.normalized.mean[k] as number;
    const pr = truth.prompt.mean[k] as number;
    const nCovered = row.normLow <= norm && norm <= row.normHigh;
    const pCovered = row.low <= pr && pr <= row.high;
    normalized += nCovered ? 1 : 0;
    prompt += pCovered ? 1 : 0;
    side.na += norm > row.normHigh ? 1 : 0;
    side.nb += norm < row.normLow ? 1 : 0;
    side.pa += pr > row.high ? 1 : 0;
    side.pb += pr < row.low ? 1 : 0;
    if (!(row.jointLow <= norm && norm <= row.jointHigh)) joint = false;
    tally.team[k]?.normalized.add(nCovered ? 1 : 0);
    tally.team[k]?.prompt.add(pCovered ? 1 : 0);
    tally.width.add((row.normHigh - row.normLow) / (2 * Z95 * (truth.normalized.sd[k] as number)));
  }
  tally.normalized.add(normalized / p);
  tally.prompt.add(prompt / p);
  tally.normalizedAbove.add(side.na / p);
  tally.normalizedBelow.add(side.nb / p);
  tally.promptAbove.add(side.pa / p);
  tally.promptBelow.add(side.pb / p);
  tally.joint.add(joint ? 1 : 0);
  const best = design.teams[truth.normalized.mean.indexOf(Math.max(...truth.normalized.mean))] as string;
  tally.winnerSet.add(summary.winnerSet.includes(best) ? 1 : 0);
}

/** What one competition gives: the summary, and per team how far the resamples' mean lies from the official score, in bootstrap SDs. */
interface Measured {
  summary: UncertaintySummary;
  shift: { normalized: number[]; prompt: number[] };
}

/** (mean − official) / SD of each team's resampled scores. */
function shifts(samples: readonly Float64Array[], official: Float64Array): number[] {
  return samples.map((x, k) => {
    const m = x.reduce((a, b) => a + b, 0) / x.length;
    const sd = Math.sqrt(x.reduce((a, b) => a + (b - m) ** 2, 0) / (x.length - 1));
    return sd > 0 ? (m - (official[k] as number)) / sd : 0;
  });
}

/** One competition drawn, bootstrapped and summarised as `sbeval score` does (bootstrap seed `seed`). */
function measureOne(design: Design, random: Xoshiro128, seed: number): Measured {
  const model = modelOf(drawCompetition(design, random));
  const { prompt, normalized } = officialScores(model);
  const order = design.teams.map((_, k) => k).sort((a, b) => (normalized[b] as number) - (normalized[a] as number) || a - b);
  const official = order.map((k, r) => ({
    team: design.teams[k] as string,
    rank: r + 1,
    promptScore: String(prompt[k]),
    normalizedPromptScore: String(normalized[k]),
  }));
  // The adjacent pairs' letters (the `ranking` option) do not enter the intervals: left out here.
  const result = runBootstrap(model, { resamples: RESAMPLES, seed, ranking: [] });
  return { summary: summarize(result, official), shift: { normalized: shifts(result.normalized, normalized), prompt: shifts(result.prompt, prompt) } };
}

function progress(label: string, total: number): (done: number) => void {
  const start = performance.now();
  const step = Math.max(1, Math.round(total / 10));
  return (done) => {
    if (done % step !== 0 && done !== total) return;
    console.log(`  ${label}: ${done} / ${total} (${((performance.now() - start) / 1000).toFixed(0)} s)`);
  };
}

function teamTable(design: Design, truth: Truth, tally: Tally): void {
  console.log(`  ${design.name}, per team (truth ± its MC error; coverage ± √(p(1−p)/N)):`);
  design.teams.forEach((team, k) => {
    const t = tally.team[k] as { normalized: Share; prompt: Share };
    const norm = withError(truth.normalized.mean[k] as number, truth.normalized.error[k] as number);
    const prompt = withError(truth.prompt.mean[k] as number, truth.prompt.error[k] as number);
    console.log(
      `    ${team}: E[normalised] ${norm} (SD ${(truth.normalized.sd[k] as number).toFixed(2)}), covered ${withError(t.normalized.mean, t.normalized.error)}; E[prompt] ${prompt}, covered ${withError(t.prompt.mean, t.prompt.error)}`,
    );
  });
}

async function runDesign(design: Design, index: number): Promise<Record<string, string | number>> {
  const designSeed = index + 1;
  console.log(`  ${design.name} (${design.description}): truth from ${TRUTH_COMPETITIONS} fresh competitions`);
  const truth = estimateTruth(design, TRUTH_COMPETITIONS, new Xoshiro128(designSeed, TRUTH_STREAM), progress('truth', TRUTH_COMPETITIONS));
  const tally = tallyFor(design.teams.length);
  const random = new Xoshiro128(designSeed, MEASURED_STREAM);
  const tick = progress('competitions', COMPETITIONS);
  for (let c = 0; c < COMPETITIONS; c++) {
    count(tally, measureOne(design, random, c + 1), design, truth);
    tick(c + 1);
  }
  teamTable(design, truth, tally);
  // The truth's error against the interval: its largest MC error as a share of the true SD.
  const truthError = Math.max(...truth.normalized.error.map((e, k) => e / (truth.normalized.sd[k] as number)));
  return {
    design: design.name,
    competitions: COMPETITIONS,
    resamples: RESAMPLES,
    truthCompetitions: TRUTH_COMPETITIONS,
    'truth MC error / SD': truthError.toFixed(3),
    normalized: withError(tally.normalized.mean, tally.normalized.error),
    'normalized above / below': `${tally.normalizedAbove.mean.toFixed(3)} / ${tally.normalizedBelow.mean.toFixed(3)}`,
    prompt: withError(tally.prompt.mean, tally.prompt.error),
    'prompt above / below': `${tally.promptAbove.mean.toFixed(3)} / ${tally.promptBelow.mean.toFixed(3)}`,
    joint: withError(tally.joint.mean, tally.joint.error),
    'winner set': withError(tally.winnerSet.mean, tally.winnerSet.error),
    'width / 3.92 SD': withError(tally.width.mean, tally.width.error),
    'mean − official, SDs (normalized / prompt)': `${withError(tally.normalizedShift.mean, tally.normalizedShift.error)} / ${withError(tally.promptShift.mean, tally.promptShift.error)}`,
  };
}

export const coverageSuite: BenchSuite = {
  name: 'coverage',
  description: `interval coverage on synthetic competitions with known truth (${COMPETITIONS} per design, ${RESAMPLES} resamples)`,
  onlyWhenNamed: true,
  async run() {
    const rows: Array<Record<string, string | number>> = [];
    for (const [i, design] of DESIGNS.entries()) rows.push(await runDesign(design, i));
    return rows;
  },
};
