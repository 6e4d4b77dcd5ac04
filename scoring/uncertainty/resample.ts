/**
 * One bootstrap resample: draw, then score.
 *
 * Draw: for every competition, letter and team, slot s = 1..T takes a trial drawn uniformly, with
 * replacement, from that team's own T trials of that letter (a failed trial can be drawn: failing is
 * part of a prompt's result). With perturbed runs (`--robustness N`), the drawn trial's stability is
 * the evaluator's best of up to `simulationTrials` trials, each a perturbed run drawn at random —
 * what another run of the evaluator on that level could have scored (drawn in one step from the
 * distribution of that best, model.ts `physicsTable`).
 *
 * Score: the official chain (scoring/score/compute.ts) on that resample, as if its files were on disk
 * with slot s named trial s: weights over all teams' resampled entries, `trial = weight·sta·sim`,
 * `character = Σtrial/T·div`, `prompt = Σcharacter/26`, summed over model folders, normalised by the
 * total. Diversity is recomputed from the slots' vectors as the diversity script would on that
 * resample's similarity files (pairs s < t in slot order over the fixed denominator): a trial drawn
 * twice appears as two identical images, whose distance is 0 (scipy's cosine of a vector with itself),
 * so duplicates lower diversity exactly as a copied image would. Doubles here, not the official
 * 20-digit decimals: test/scoring/uncertainty.test.ts writes resamples out as folders and checks that
 * sbeval's official scorer gives the same scores (to 1e-12) and ranks.
 *
 * The bootstrap then corrects what duplicates do: a slot pair holds the same trial with chance 1/T,
 * so a resample's expected diversity is (T−1)/T of the folder's, and every cell's resampled diversity
 * is multiplied by T/(T−1) before it enters the weights and scores (model.ts `resampledDiversity`).
 *
 * Speed: the bootstrap runs this 2000 times over 260 team × letter cells (docs/uncertainty.md, Cost),
 * so it works on the model's packed arrays (model.ts `PackedCells`) and on packed draws, with a
 * team's trial indices drawn in one loop per letter, and allocates nothing per resample.
 */
import type { CompetitionModel, PhysicsTable, UncertaintyModel } from './model.js';
import { Digits, MAX_DIGIT_BASE, streamSeed, Xoshiro128 } from './random.js';

const LETTER_COUNT = 26;
const WEIGHT_FLOOR = 1 / LETTER_COUNT;

/** One competition's draws, packed like its cells (model.ts `PackedCells`): slot s of cell c at c·T + s. */
interface PackedDraws {
  /** The drawn trial index (0-based). */
  trial: Int32Array;
  /** The stability the slot uses (the trial's own, or a perturbed best-of), NaN when the trial has no stability entry. */
  stability: Float64Array;
}

/** What one resample drew: per competition, letter (CHARACTERS index) and team, each slot's trial and stability. */
export interface Draws {
  /** [competition][letter][team]: the drawn trial index (0-based) per slot; undefined letters have no data. */
  trial: Array<Array<Int32Array[] | undefined>>;
  /** Same shape: the stability the slot uses (the trial's own, or a perturbed best-of), NaN when the trial has no stability entry. */
  stability: Array<Array<Float64Array[] | undefined>>;
  /** [competition]: the same numbers packed (the arrays above are views into these). */
  packed: PackedDraws[];
}

export interface ResampleScores {
  /** Per team of the model (summed over competitions). */
  prompt: Float64Array;
  normalized: Float64Array;
  /** [competition] per competition team: its prompt score in that competition alone. */
  competitionPrompt: Float64Array[];
  /** [competition] letters × competition teams: character scores (row = letter index). */
  character: Float64Array[];
}

export function allocateDraws(model: UncertaintyModel): Draws {
  const packed = model.competitions.map((c): PackedDraws => {
    const size = c.packed.letters.length * c.teams.length * c.trials;
    return { trial: new Int32Array(size), stability: new Float64Array(size) };
  });
  const views = <A extends Int32Array | Float64Array>(pick: (d: PackedDraws) => A) =>
    model.competitions.map((c, m) => {
      const t = c.trials;
      const p = c.teams.length;
      const out: Array<A[] | undefined> = new Array(LETTER_COUNT).fill(undefined);
      c.packed.letters.forEach((l, i) => {
        out[l] = c.teams.map((_, k) => pick(packed[m] as PackedDraws).subarray((i * p + k) * t, (i * p + k + 1) * t) as A);
      });
      return out;
    });
  return { trial: views((d) => d.trial), stability: views((d) => d.stability), packed };
}

export function allocateScores(model: UncertaintyModel): ResampleScores {
  return {
    prompt: new Float64Array(model.teams.length),
    normalized: new Float64Array(model.teams.length),
    competitionPrompt: model.competitions.map((c) => new Float64Array(c.teams.length)),
    character: model.competitions.map((c) => new Float64Array(LETTER_COUNT * c.teams.length)),
  };
}

/** Salt of the physics stream's seed: any constant that differs from 0. */
const PHYSICS_STREAM = 0x6a09e667;

/**
 * Draws for one team of one resample: the trials from one generator, the perturbed runs from another
 * (seeded apart), so a resample draws the same trials with or without `--robustness` and the two can
 * be compared resample by resample. Both are seeded from (seed, the team's own word, resample index)
 * (random.ts), so a team's draws do not depend on which other teams the folder holds. Reseeded per
 * team: the bootstrap's loop allocates it once.
 */
class ResampleRandom {
  private readonly rng = new Xoshiro128(0);
  private readonly physics = new Xoshiro128(0);
  private readonly trials: Digits[] = [];
  /** The digit source of the last table size (every level has the same number of runs). */
  private picks: Digits | undefined;
  /** Where the draws of letters without data go (drawn all the same, see drawCompetition). */
  scratch = new Int32Array(0);

  /** The streams of one team (`word`, model.ts `streamWords`) in resample `index` of `seed`. */
  start(seed: number, word: number, index: number): void {
    const own = streamSeed(seed, word);
    this.rng.reseed(own, index);
    this.physics.reseed((own ^ PHYSICS_STREAM) >>> 0, index);
    for (const d of this.trials) d?.reset();
    this.picks?.reset();
  }

  trialDigits(t: number): Digits {
    let d = this.trials[t];
    if (!d) this.trials[t] = d = new Digits(this.rng, t);
    return d;
  }

  /** The best of `tries` perturbed runs drawn at random (physicsTable: one draw, inverse CDF). */
  best(table: PhysicsTable): number {
    const { scores, atMost, picks } = table;
    if (scores.length === 1) return scores[0] as number;
    // N^tries above 2^30 (more than 1023 runs): a 53-bit uniform double instead of exact digits.
    let u: number;
    if (picks <= MAX_DIGIT_BASE) {
      if (this.picks?.n !== picks) this.picks = new Digits(this.physics, picks);
      u = this.picks.next();
    } else u = Math.floor(this.physics.uniform() * picks);
    // Counted without an early exit: u is random, so a loop that stops at the first bound mispredicts.
    let i = 0;
    for (let j = 0; j < atMost.length - 1; j++) i += u >= (atMost[j] as number) ? 1 : 0;
    return scores[i] as number;
  }
}

/**
 * Draws every cell of one competition, team by team from the team's own streams: T trials for each of
 * the 26 letters in CHARACTERS order (a letter no team has data for is drawn and the draw dropped, so
 * which letters other teams have does not move this team's draws), then each slot's stability — the
 * trial's own, or with perturbed runs a best-of drawn from the team's physics stream in letter and
 * slot order.
 */
function drawCompetition(competition: CompetitionModel, out: PackedDraws, random: ResampleRandom, seed: number, index: number, ownStability: boolean): void {
  const { packed: cells, trials: t, streamWords } = competition;
  const p = competition.teams.length;
  const { trial, stability } = out;
  const own = cells.stability;
  const physics = cells.physics;
  const letters = cells.letters;
  if (random.scratch.length < t) random.scratch = new Int32Array(t);
  for (let k = 0; k < p; k++) {
    random.start(seed, streamWords[k] as number, index);
    const digits = random.trialDigits(t);
    for (let l = 0, i = 0; l < LETTER_COUNT; l++) {
      if (i < letters.length && letters[i] === l) {
        digits.fill(trial, (i * p + k) * t, t);
        i += 1;
      } else digits.fill(random.scratch, 0, t);
    }
    // The bootstrap's own loop reads a trial's own stability where it reads its similarity (slotSums).
    if (!physics && !ownStability) continue;
    for (let i = 0; i < letters.length; i++) {
      const base = (i * p + k) * t;
      if (!physics) {
        for (let j = base; j < base + t; j++) stability[j] = own[base + (trial[j] as number)] as number;
        continue;
      }
      for (let j = base; j < base + t; j++) {
        const at = base + (trial[j] as number);
        const table = physics[at];
        stability[j] = table ? random.best(table) : (own[at] as number);
      }
    }
  }
}

/**
 * Fills `draws` with resample `index` of `seed` (its own random streams, see random.ts). Without
 * `ownStability` a competition without perturbed runs gets its trials only (the scoring reads each
 * slot's stability from its trial, slotSums): the bootstrap's loop skips a pass it does not need.
 */
function drawInto(model: UncertaintyModel, seed: number, index: number, draws: Draws, random: ResampleRandom, ownStability = true): void {
  model.competitions.forEach((c, m) => drawCompetition(c, draws.packed[m] as PackedDraws, random, seed, index, ownStability));
}

/** The folder as it is: slot s holds trial s with its own stability (the official scores, in doubles). */
export function identityInto(model: UncertaintyModel, draws: Draws): void {
  model.competitions.forEach((c, m) => {
    const out = draws.packed[m] as PackedDraws;
    for (let j = 0; j < out.trial.length; j++) out.trial[j] = j % c.trials;
    out.stability.set(c.packed.stability);
  });
}

/** Resample `index` of `seed`, freshly allocated (tests write it out as a folder). */
function drawResample(model: UncertaintyModel, seed: number, index: number): Draws {
  const draws = allocateDraws(model);
  drawInto(model, seed, index, draws, new ResampleRandom());
  return draws;
}

/**
 * Per cell of one competition (packed order): Σ stability, Σ similarity, Σ stability·similarity and
 * the diversity of the resample's slots. Each step below is one pass over a whole competition: a
 * few loops that run long, which the JIT compiles once, early in the bootstrap.
 */
interface CellSums {
  sta: Float64Array;
  sim: Float64Array;
  product: Float64Array;
  diversity: Float64Array;
}

function sumsFor(competition: CompetitionModel): CellSums {
  const cells = competition.packed.letters.length * competition.teams.length;
  return { sta: new Float64Array(cells), sim: new Float64Array(cells), product: new Float64Array(cells), diversity: new Float64Array(cells) };
}

/** `max(1 − total / n, 1/26)`: one factor of a letter's weight. */
function weightFactor(total: number, n: number): number {
  const w = 1 - total / n;
  // biome-ignore lint/complexity/useMathMinMax: a NaN weight falls to the floor here; Math.max would keep the NaN.
  return w > WEIGHT_FLOOR ? w : WEIGHT_FLOOR;
}

/**
 * Σsta, Σsim and Σsta·sim of every cell's slots. A trial without an image has similarity 0 (model.ts),
 * so it needs no test here (adding 0 leaves a double unchanged); a trial without a stability entry
 * (NaN) counts in neither stability sum. Without perturbed runs a slot's stability is its trial's own,
 * read here beside its similarity (`own`: the draws then hold none, see `resampler`).
 */
function slotSums(similarity: Float64Array, own: Float64Array | undefined, draws: PackedDraws, t: number, out: CellSums): void {
  const { trial, stability } = draws;
  for (let c = 0, base = 0; c < out.sta.length; c++, base += t) {
    let staSum = 0;
    let simSum = 0;
    let product = 0;
    for (let j = base; j < base + t; j++) {
      const at = base + (trial[j] as number);
      const sta = (own ? own[at] : stability[j]) as number;
      const sim = similarity[at] as number;
      simSum += sim;
      if (!Number.isNaN(sta)) {
        staSum += sta;
        product += sta * sim;
      }
    }
    out.sta[c] = staSum;
    out.sim[c] = simSum;
    out.product[c] = product;
  }
}

/**
 * Diversity of cell c over the drawn slots: Σ over slot pairs s < u of the distance between their
 * trials, over the fixed denominator (slot order, as the script pairs the resample's files).
 */
function cellDiversity(distance: Float64Array, trial: Int32Array, c: number, t: number, denominator: number): number {
  const base = c * t;
  const rows = c * t * t;
  let sum = 0;
  for (let s = 0; s < t; s++) {
    const row = rows + (trial[base + s] as number) * t;
    for (let u = s + 1; u < t; u++) sum += distance[row + (trial[base + u] as number)] as number;
  }
  return sum / denominator;
}

/**
 * `cellDiversity` of four cells c … c + 3 at once into out[c …]: each sum in the same order as alone
 * (the same doubles), the four chains of additions interleaved so that the processor overlaps them
 * (a single chain waits on each addition: the bootstrap's most expensive loop).
 */
function fourDiversities(distance: Float64Array, trial: Int32Array, c: number, t: number, denominator: number, out: Float64Array): void {
  const b0 = c * t;
  const tt = t * t;
  const r0 = c * tt;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  for (let s = 0; s < t; s++) {
    const w0 = r0 + (trial[b0 + s] as number) * t;
    const w1 = r0 + tt + (trial[b0 + t + s] as number) * t;
    const w2 = r0 + 2 * tt + (trial[b0 + 2 * t + s] as number) * t;
    const w3 = r0 + 3 * tt + (trial[b0 + 3 * t + s] as number) * t;
    for (let u = s + 1; u < t; u++) {
      s0 += distance[w0 + (trial[b0 + u] as number)] as number;
      s1 += distance[w1 + (trial[b0 + t + u] as number)] as number;
      s2 += distance[w2 + (trial[b0 + 2 * t + u] as number)] as number;
      s3 += distance[w3 + (trial[b0 + 3 * t + u] as number)] as number;
    }
  }
  out[c] = s0 / denominator;
  out[c + 1] = s1 / denominator;
  out[c + 2] = s2 / denominator;
  out[c + 3] = s3 / denominator;
}

/** The diversity of every cell into `out` (0 where it does not count), four cells at a time where all four count. */
function diversities(competition: CompetitionModel, trial: Int32Array, out: Float64Array): void {
  const { distance, diversity } = competition.packed;
  const t = competition.trials;
  const d = competition.denominator;
  let c = 0;
  for (; c + 4 <= out.length; c += 4) {
    if ((diversity[c] as number) + (diversity[c + 1] as number) + (diversity[c + 2] as number) + (diversity[c + 3] as number) === 4)
      fourDiversities(distance, trial, c, t, d, out);
    else for (let k = c; k < c + 4; k++) out[k] = diversity[k] === 1 ? cellDiversity(distance, trial, k, t, d) : 0;
  }
  for (; c < out.length; c++) out[c] = diversity[c] === 1 ? cellDiversity(distance, trial, c, t, d) : 0;
}

/** Each letter's weight from every team's sums, and the teams' character scores (rows of letters without data stay 0). */
function characterScores(competition: CompetitionModel, sums: CellSums, character: Float64Array): void {
  const p = competition.teams.length;
  const t = competition.trials;
  const { letters } = competition.packed;
  for (let i = 0; i < letters.length; i++) {
    let staTotal = 0;
    let simTotal = 0;
    let divTotal = 0;
    for (let c = i * p; c < (i + 1) * p; c++) {
      staTotal += sums.sta[c] as number;
      simTotal += sums.sim[c] as number;
      divTotal += sums.diversity[c] as number;
    }
    let weight = weightFactor(staTotal, p * t) * weightFactor(simTotal, p * t);
    if (competition.diversity) weight *= weightFactor(divTotal, p);
    const row = (letters[i] as number) * p;
    for (let k = 0; k < p; k++) {
      const mean = (weight * (sums.product[i * p + k] as number)) / t;
      character[row + k] = competition.diversity ? mean * (sums.diversity[i * p + k] as number) : mean;
    }
  }
}

/** Scores competition m of the drawn resample into its character and prompt scores, and adds the prompt scores to the teams' totals. */
function scoreCompetition(competition: CompetitionModel, m: number, draws: PackedDraws, out: ResampleScores, sums: CellSums, corrected: boolean): void {
  const p = competition.teams.length;
  const character = out.character[m] as Float64Array;
  const own = out.competitionPrompt[m] as Float64Array;
  const { packed } = competition;
  slotSums(packed.similarity, packed.physics ? undefined : packed.stability, draws, competition.trials, sums);
  diversities(competition, draws.trial, sums.diversity);
  if (corrected && competition.diversity) {
    const scale = competition.resampledDiversity;
    const d = sums.diversity;
    for (let c = 0; c < d.length; c++) d[c] = (d[c] as number) * scale;
  }
  character.fill(0);
  characterScores(competition, sums, character);
  for (let k = 0; k < p; k++) {
    let sum = 0;
    for (let l = 0; l < LETTER_COUNT; l++) sum += character[l * p + k] as number;
    const team = competition.teamIndex[k] as number;
    own[k] = sum / LETTER_COUNT;
    out.prompt[team] = (out.prompt[team] as number) + (own[k] as number);
  }
}

/** Scratch memory of `scoreWith`: per competition, its cells' sums. */
type Scratch = CellSums[];

function scratchFor(model: UncertaintyModel): Scratch {
  return model.competitions.map(sumsFor);
}

/** Scores the drawn resample into `out` (scratch memory is the caller's to reuse, see `resampler`). */
function scoreWith(model: UncertaintyModel, draws: Draws, out: ResampleScores, scratch: Scratch, corrected: boolean): void {
  out.prompt.fill(0);
  for (let m = 0; m < model.competitions.length; m++)
    scoreCompetition(model.competitions[m] as CompetitionModel, m, draws.packed[m] as PackedDraws, out, scratch[m] as CellSums, corrected);
  normalizeInto(out.prompt, out.normalized);
}

/** Prompt scores normalised by their sum, ·100 (as officially; a zero sum leaves them 0). */
export function normalizeInto(prompt: Float64Array, out: Float64Array): void {
  let total = 0;
  for (const v of prompt) total += v;
  const divisor = total === 0 ? 1 : total;
  for (let i = 0; i < prompt.length; i++) out[i] = ((prompt[i] as number) / divisor) * 100;
}

/**
 * Scores resample `draws` as they are: the folder as it is, or a resample drawn before — as the
 * official scorer scores the resample's files, or (`corrected`) as the bootstrap does, with each
 * cell's resampled diversity × T/(T−1) (model.ts `resampledDiversity`).
 */
export function scoreInto(model: UncertaintyModel, draws: Draws, out: ResampleScores, corrected = false): void {
  scoreWith(model, draws, out, scratchFor(model), corrected);
}

/**
 * The bootstrap's inner loop: resample `index` of `seed` drawn into `draws` and scored into `out`
 * (the same trials as `drawInto`, the same scores as `scoreInto` corrected), scratch memory allocated once.
 */
export function resampler(model: UncertaintyModel): (seed: number, index: number, draws: Draws, out: ResampleScores) => void {
  const scratch = scratchFor(model);
  const random = new ResampleRandom();
  return (seed, index, draws, out) => {
    drawInto(model, seed, index, draws, random, false);
    scoreWith(model, draws, out, scratch, true);
  };
}

/** Resample `index` of `seed`, drawn and scored (freshly allocated; `corrected` as `scoreInto`). */
export function scoreResample(model: UncertaintyModel, seed: number, index: number, corrected = false): { draws: Draws; scores: ResampleScores } {
  const draws = drawResample(model, seed, index);
  const scores = allocateScores(model);
  scoreInto(model, draws, scores, corrected);
  return { draws, scores };
}
