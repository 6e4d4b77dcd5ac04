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
 */
import type { Cell, CompetitionModel, PhysicsTable, UncertaintyModel } from './model.js';
import { Digits, MAX_DIGIT_BASE, Xoshiro128 } from './random.js';

const LETTER_COUNT = 26;
const WEIGHT_FLOOR = 1 / LETTER_COUNT;

/** What one resample drew: per competition, letter (CHARACTERS index) and team, each slot's trial and stability. */
export interface Draws {
  /** [competition][letter][team]: the drawn trial index (0-based) per slot; undefined letters have no data. */
  trial: Array<Array<Int32Array[] | undefined>>;
  /** Same shape: the stability the slot uses (the trial's own, or a perturbed best-of), NaN when the trial has no stability entry. */
  stability: Array<Array<Float64Array[] | undefined>>;
}

interface ResampleScores {
  /** Per team of the model (summed over competitions). */
  prompt: Float64Array;
  normalized: Float64Array;
  /** [competition] letters × competition teams: character scores (row = letter index). */
  character: Float64Array[];
}

export function allocateDraws(model: UncertaintyModel): Draws {
  const shape = <T>(make: (c: CompetitionModel) => T) => model.competitions.map((c) => c.letters.map((l) => (l ? l.cells.map(() => make(c)) : undefined)));
  return { trial: shape((c) => new Int32Array(c.trials)), stability: shape((c) => new Float64Array(c.trials)) };
}

export function allocateScores(model: UncertaintyModel): ResampleScores {
  return {
    prompt: new Float64Array(model.teams.length),
    normalized: new Float64Array(model.teams.length),
    character: model.competitions.map((c) => new Float64Array(LETTER_COUNT * c.teams.length)),
  };
}

/** Salt of the physics stream's seed: any constant that differs from 0. */
const PHYSICS_STREAM = 0x6a09e667;

/**
 * Draws for one resample: the trials from one generator, the perturbed runs from another (seeded
 * apart), so a resample draws the same trials with or without `--robustness` and the two can be
 * compared resample by resample.
 */
class ResampleRandom {
  private readonly rng: Xoshiro128;
  private readonly physics: Xoshiro128;
  private readonly trials: Digits[] = [];
  /** The digit source of the last table size (every level has the same number of runs). */
  private picks: Digits | undefined;
  constructor(seed: number, index: number) {
    this.rng = new Xoshiro128(seed, index);
    this.physics = new Xoshiro128((seed ^ PHYSICS_STREAM) >>> 0, index);
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

/** Draws one team × letter: T trials from its own, each with its stability (its own, or a perturbed best-of). */
function drawCell(cell: Cell, picked: Int32Array, sta: Float64Array, t: number, digits: Digits, random: ResampleRandom): void {
  const own = cell.stability;
  const physics = cell.physics;
  for (let s = 0; s < t; s++) {
    const trial = digits.next();
    picked[s] = trial;
    const table = physics[trial];
    sta[s] = table ? random.best(table) : (own[trial] as number);
  }
}

/** Fills `draws` with resample `index` of `seed` (its own random streams, see random.ts). */
function drawInto(model: UncertaintyModel, seed: number, index: number, draws: Draws): void {
  const random = new ResampleRandom(seed, index);
  for (let m = 0; m < model.competitions.length; m++) {
    const competition = model.competitions[m] as CompetitionModel;
    const digits = random.trialDigits(competition.trials);
    for (let l = 0; l < competition.letters.length; l++) {
      const letter = competition.letters[l];
      if (!letter) continue;
      const trials = draws.trial[m]?.[l] as Int32Array[];
      const stability = draws.stability[m]?.[l] as Float64Array[];
      for (let k = 0; k < letter.cells.length; k++) drawCell(letter.cells[k] as Cell, trials[k] as Int32Array, stability[k] as Float64Array, competition.trials, digits, random);
    }
  }
}

/** The folder as it is: slot s holds trial s with its own stability (the official scores, in doubles). */
export function identityInto(model: UncertaintyModel, draws: Draws): void {
  model.competitions.forEach((competition, m) => {
    competition.letters.forEach((letter, l) => {
      letter?.cells.forEach((cell, k) => {
        const picked = draws.trial[m]?.[l]?.[k] as Int32Array;
        const sta = draws.stability[m]?.[l]?.[k] as Float64Array;
        for (let s = 0; s < competition.trials; s++) {
          picked[s] = s;
          sta[s] = cell.stability[s] as number;
        }
      });
    });
  });
}

/** Resample `index` of `seed`, freshly allocated (tests write it out as a folder). */
function drawResample(model: UncertaintyModel, seed: number, index: number): Draws {
  const draws = allocateDraws(model);
  drawInto(model, seed, index, draws);
  return draws;
}

/** Scratch per competition team: Σsta, Σsim, Σsta·sim and the diversity of one letter. */
interface LetterScratch {
  staSum: Float64Array;
  simSum: Float64Array;
  product: Float64Array;
  diversity: Float64Array;
}

function scratchFor(size: number): LetterScratch {
  return { staSum: new Float64Array(size), simSum: new Float64Array(size), product: new Float64Array(size), diversity: new Float64Array(size) };
}

/**
 * Sums of one team × letter over the resample's slots, into scratch slot k. A trial without an image
 * has similarity 0 and distance 0 to every other (model.ts), so neither needs a test here (adding 0
 * leaves a double unchanged): this is the bootstrap's innermost loop.
 */
function sumCell(cell: Cell, trials: Int32Array, stability: Float64Array, competition: CompetitionModel, k: number, scratch: LetterScratch): void {
  const t = competition.trials;
  const similarity = cell.similarity;
  let staSum = 0;
  let simSum = 0;
  let product = 0;
  for (let s = 0; s < t; s++) {
    const sta = stability[s] as number;
    const sim = similarity[trials[s] as number] as number;
    simSum += sim;
    if (sta === sta) {
      // not NaN: the drawn trial has a stability entry
      staSum += sta;
      product += sta * sim;
    }
  }
  let diversity = 0;
  if (competition.diversity && cell.diversityFile) {
    const distance = cell.distance;
    let sum = 0;
    for (let s = 0; s < t; s++) {
      const row = (trials[s] as number) * t;
      for (let u = s + 1; u < t; u++) sum += distance[row + (trials[u] as number)] as number;
    }
    diversity = sum / competition.denominator;
  }
  scratch.staSum[k] = staSum;
  scratch.simSum[k] = simSum;
  scratch.product[k] = product;
  scratch.diversity[k] = diversity;
}

/** `max(1 − total / n, 1/26)`: one factor of a letter's weight. */
function weightFactor(total: number, n: number): number {
  const w = 1 - total / n;
  return w > WEIGHT_FLOOR ? w : WEIGHT_FLOOR;
}

/** Scores one competition of the resample; with `random`, each cell is drawn right before it is summed (one pass, data still in cache). */
function scoreCompetition(competition: CompetitionModel, m: number, draws: Draws, out: ResampleScores, scratch: LetterScratch, random?: ResampleRandom): void {
  const p = competition.teams.length;
  const t = competition.trials;
  const digits = random?.trialDigits(t);
  const character = out.character[m] as Float64Array;
  character.fill(0);
  for (let l = 0; l < competition.letters.length; l++) {
    const letter = competition.letters[l];
    if (!letter) continue;
    const trials = draws.trial[m]?.[l] as Int32Array[];
    const stability = draws.stability[m]?.[l] as Float64Array[];
    let staTotal = 0;
    let simTotal = 0;
    let divTotal = 0;
    for (let k = 0; k < p; k++) {
      const cell = letter.cells[k] as Cell;
      if (random) drawCell(cell, trials[k] as Int32Array, stability[k] as Float64Array, t, digits as Digits, random);
      sumCell(cell, trials[k] as Int32Array, stability[k] as Float64Array, competition, k, scratch);
      staTotal += scratch.staSum[k] as number;
      simTotal += scratch.simSum[k] as number;
      divTotal += scratch.diversity[k] as number;
    }
    let weight = weightFactor(staTotal, p * t) * weightFactor(simTotal, p * t);
    if (competition.diversity) weight *= weightFactor(divTotal, p);
    for (let k = 0; k < p; k++) {
      const mean = (weight * (scratch.product[k] as number)) / t;
      character[l * p + k] = competition.diversity ? mean * (scratch.diversity[k] as number) : mean;
    }
  }
  for (let k = 0; k < p; k++) {
    let sum = 0;
    for (let l = 0; l < LETTER_COUNT; l++) sum += character[l * p + k] as number;
    const team = competition.teamIndex[k] as number;
    out.prompt[team] = (out.prompt[team] as number) + sum / LETTER_COUNT;
  }
}

/** Scores the drawn resample into `out` (scratch memory is the caller's to reuse, see `resampler`); with `random`, draws it on the way. */
function scoreWith(model: UncertaintyModel, draws: Draws, out: ResampleScores, scratch: LetterScratch, random?: ResampleRandom): void {
  out.prompt.fill(0);
  for (let m = 0; m < model.competitions.length; m++) scoreCompetition(model.competitions[m] as CompetitionModel, m, draws, out, scratch, random);
  let total = 0;
  for (const v of out.prompt) total += v;
  const divisor = total === 0 ? 1 : total;
  for (let i = 0; i < out.prompt.length; i++) out.normalized[i] = ((out.prompt[i] as number) / divisor) * 100;
}

function maxTeams(model: UncertaintyModel): number {
  return Math.max(1, ...model.competitions.map((c) => c.teams.length));
}

/** Scores resample `draws` as they are (the folder as it is, or a resample drawn before). */
export function scoreInto(model: UncertaintyModel, draws: Draws, out: ResampleScores): void {
  scoreWith(model, draws, out, scratchFor(maxTeams(model)));
}

/**
 * The bootstrap's inner loop: resample `index` of `seed` drawn into `draws` and scored into `out`, in
 * one pass (the same draws as `drawInto`, the same scores as `scoreInto`; tested), scratch memory
 * allocated once.
 */
export function resampler(model: UncertaintyModel): (seed: number, index: number, draws: Draws, out: ResampleScores) => void {
  const scratch = scratchFor(maxTeams(model));
  return (seed, index, draws, out) => scoreWith(model, draws, out, scratch, new ResampleRandom(seed, index));
}

/** Resample `index` of `seed`, drawn and scored (freshly allocated). */
export function scoreResample(model: UncertaintyModel, seed: number, index: number): { draws: Draws; scores: ResampleScores } {
  const draws = drawResample(model, seed, index);
  const scores = allocateScores(model);
  scoreInto(model, draws, scores);
  return { draws, scores };
}
