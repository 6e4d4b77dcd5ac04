/**
 * What the bootstrap resamples, read once from what the official scoring read (`ScoreInput`): per
 * competition (one, or one per model folder under the 2025 rules), letter and team, the T trial slots
 * with their stability, similarity and diversity vector, and the cosine distances between those
 * vectors. A resample fills each slot with a trial drawn from the same team × letter (resample.ts).
 *
 * A trial is the entry whose trial index is i (the first one, as the official join takes it); a slot
 * with no entry is a trial that failed before that file (it counts 0, as officially, and a resample
 * can draw it). Entries whose index is outside 1..T, or repeats one, are not trials and appear in no
 * resample. Distances are scipy's cosine distance as the diversity stage computes it
 * (scoring/diversity/cosine.ts).
 */
import { dot, scipyCosineOfDots } from '../diversity/cosine.js';
import { unityStabilityScore } from '../formats/unity-score.js';
import { CHARACTERS, DEFAULT_TRIALS, type RuleSet } from '../score/rules.js';
import type { CharacterInput, ScoreInput, TrialValue, TrialVector } from '../score/types.js';
import { OFFICIAL_TRIALS } from '../stability.js';
import { textWord } from './random.js';

/** One team × letter of one competition; arrays are indexed by trial − 1. */
interface Cell {
  /** NaN for a trial without a stability entry (it counts 0, and nothing in the weight). */
  stability: Float64Array;
  /** 0 for a trial without a similarity entry (as officially). */
  similarity: Float64Array;
  /** The trial has a vector in the diversity file. */
  hasVector: Uint8Array;
  /**
   * distance[i·T + j] between trials i+1 and j+1: 0 on the diagonal (a trial's copy is at distance 0)
   * and for a trial without a vector (the diversity script has no image to pair it with).
   */
  distance: Float64Array;
  /** The diversity file exists (without it diversity is 0, in every resample as officially). */
  diversityFile: boolean;
  /** Per trial, what its perturbed runs (`--robustness N`) let a resample draw, when there are any. */
  physics: Array<PhysicsTable | undefined>;
}

/**
 * The evaluator's best of `tries` trials, each a perturbed run drawn at random, as one draw: its
 * distinct scores ascending, and for each the number of the N^tries equally likely ordered picks of
 * runs whose best is at most that score, (runs ≤ score)^tries. A uniform integer below
 * `picks` = N^tries then gives the best directly (inverse CDF, exact in integers). One score only: that
 * score, no draw.
 */
export interface PhysicsTable {
  scores: Float64Array;
  /** Cumulative counts of picks, ascending; the last is `picks`. */
  atMost: Float64Array;
  /** N^tries (≤ 10000³ = 1e12: exact in a double). */
  picks: number;
}

export function physicsTable(runScores: ArrayLike<number>, tries: number): PhysicsTable {
  const sorted = Float64Array.from(runScores).sort();
  const power = (x: number) => {
    let p = 1;
    for (let k = 0; k < tries; k++) p *= x;
    return p;
  };
  const scores: number[] = [];
  const atMost: number[] = [];
  for (let i = 0; i < sorted.length; i++) {
    if (i + 1 < sorted.length && sorted[i + 1] === sorted[i]) continue;
    scores.push(sorted[i] as number);
    atMost.push(power(i + 1));
  }
  return { scores: Float64Array.from(scores), atMost: Float64Array.from(atMost), picks: power(sorted.length) };
}

interface LetterModel {
  character: string;
  /** Indexed like the competition's teams. */
  cells: Cell[];
}

/**
 * The cells of one competition's letters with data, packed for the bootstrap's inner loop
 * (resample.ts): cell c = i·P + k for the i-th such letter (CHARACTERS order) and team k, its slots
 * at c·T … c·T + T − 1 and its distances at c·T² …. Each Cell's arrays are views into these.
 */
interface PackedCells {
  /** CHARACTERS index of the i-th letter with data. */
  letters: Int32Array;
  stability: Float64Array;
  similarity: Float64Array;
  distance: Float64Array;
  /** Per cell: 1 where diversity counts (the rules score it and the cell has a diversity file). */
  diversity: Uint8Array;
  /** Per slot c·T + trial: the trial's perturbed runs; undefined when no trial of the competition has any. */
  physics: Array<PhysicsTable | undefined> | undefined;
}

export interface CompetitionModel {
  /** The model folder's label; '' for a single competition. */
  label: string;
  teams: readonly string[];
  /** competition team i → index in `UncertaintyModel.teams`. */
  teamIndex: Int32Array;
  /** Per competition team: the word its random streams are seeded from (its label and name, random.ts `textWord`). */
  streamWords: Uint32Array;
  trials: number;
  diversity: boolean;
  /** The diversity script's fixed denominator T(T+1)/2 − T. */
  denominator: number;
  /**
   * T/(T−1): what a resample's diversity is multiplied by. Two slots hold independent uniform draws of
   * the T trials, the same trial with chance 1/T (distance 0), so E[distance] = Σ_{i≠j} d_ij / T² =
   * (T−1)/T · (the folder's mean over distinct pairs) — the scaled diversity is unbiased for the folder's.
   */
  resampledDiversity: number;
  /** Letters in CHARACTERS order; undefined where no team has any file (every score there is 0). */
  letters: Array<LetterModel | undefined>;
  packed: PackedCells;
}

export interface UncertaintyModel {
  /** Every team of every competition, in first-seen order. */
  teams: readonly string[];
  competitions: CompetitionModel[];
  /** Stability trials of the evaluator (best of up to this many; scoring/stability.ts). */
  simulationTrials: number;
  /** Trials with perturbed runs. */
  physicsTrials: number;
  /** What the model noticed (a diversity file whose rate its own vectors do not give, …). */
  notes: string[];
}

/** Moving-object counts of a level's perturbed runs, by competition (index in the list given to `buildModel`), team, letter and trial. */
type PhysicsLookup = (competition: number, team: string, character: string, trial: number) => readonly number[] | undefined;

interface CompetitionData {
  label: string;
  input: ScoreInput;
  rules: RuleSet;
}

interface ModelOptions {
  physics?: PhysicsLookup;
  /** Default the evaluator's 3 (`OFFICIAL_TRIALS`). */
  simulationTrials?: number;
}

/** Index of each trial 1..T: the first entry that has it (`Array.find`, as the official join). */
function firstPerTrial<T extends { trial: number }>(entries: readonly T[] | undefined, t: number): Array<T | undefined> {
  const slots: Array<T | undefined> = new Array(t).fill(undefined);
  for (const e of entries ?? []) {
    if (Number.isInteger(e.trial) && e.trial >= 1 && e.trial <= t && slots[e.trial - 1] === undefined) slots[e.trial - 1] = e;
  }
  return slots;
}

function finite(value: number): number {
  return Number.isFinite(value) ? value : 0;
}

/** Each trial's value (non-finite ones count 0, as officially), `missing` where it has no entry. */
function valuesOf(slots: ReadonlyArray<TrialValue | undefined>, missing: number): Float64Array {
  return Float64Array.from(slots, (e) => (e ? finite(e.value) : missing));
}

function distances(vectors: ReadonlyArray<TrialVector | undefined>, t: number, hasVector: Uint8Array): { distance: Float64Array; odd: boolean } {
  const distance = new Float64Array(t * t);
  let odd = false;
  vectors.forEach((v, i) => {
    if (v) hasVector[i] = 1;
  });
  // Each vector's own dot product once (scipy computes the same double for every pair it is in).
  const own = vectors.map((v) => (v ? dot(v.vector, v.vector) : 0));
  for (let i = 0; i < t; i++) {
    for (let j = i + 1; j < t; j++) {
      const a = vectors[i];
      const b = vectors[j];
      if (!a || !b) continue;
      // Vectors of different lengths would stop the official script; here the pair counts 0 and is noted.
      const same = a.vector.length === b.vector.length;
      if (!same) odd = true;
      const d = same ? scipyCosineOfDots(dot(a.vector, b.vector), own[i] as number, own[j] as number).distance : 0;
      distance[i * t + j] = d;
      distance[j * t + i] = d;
    }
  }
  return { distance, odd };
}

interface CellContext {
  index: number;
  label: string;
  team: string;
  character: string;
  t: number;
  denominator: number;
  options: ModelOptions;
  /** Evaluator trials per level (best of). */
  tries: number;
  notes: string[];
  counts: { physics: number; noCounts: number };
}

function cellOf(c: CharacterInput | undefined, ctx: CellContext): Cell {
  const { t } = ctx;
  const cell: Cell = {
    stability: new Float64Array(0),
    similarity: new Float64Array(0),
    hasVector: new Uint8Array(t),
    distance: new Float64Array(t * t),
    diversityFile: c?.diversityRate !== undefined,
    physics: new Array(t).fill(undefined),
  };
  const stability = firstPerTrial(c?.stability, t);
  cell.stability = valuesOf(stability, Number.NaN);
  cell.similarity = valuesOf(firstPerTrial(c?.similarity, t), 0);
  if (cell.diversityFile) {
    const { distance, odd } = distances(firstPerTrial(c?.vectors, t), t, cell.hasVector);
    cell.distance = distance;
    const where = `${ctx.label ? `${ctx.label}/` : ''}${ctx.team}/diversity/${ctx.character}.json`;
    if (odd) ctx.notes.push(`${where}: vectors of different lengths; those pairs count 0 in every resample`);
    let sum = 0;
    for (let i = 0; i < t; i++) for (let j = i + 1; j < t; j++) sum += distance[i * t + j] as number;
    const own = sum / ctx.denominator;
    const rate = finite(c?.diversityRate ?? 0);
    if (Math.abs(own - rate) > 1e-9 * Math.max(1, Math.abs(rate))) {
      ctx.notes.push(`${where}: diversityRate ${rate} is not what its trials' vectors give (${own}); the resamples recompute diversity from the vectors`);
    }
  }
  stability.forEach((entry, i) => {
    const runs = entry ? ctx.options.physics?.(ctx.index, ctx.team, ctx.character, i + 1) : undefined;
    if (!entry || !runs || runs.length === 0) return;
    if (entry.startingObjects === undefined || entry.startingObjects < 1) {
      ctx.counts.noCounts += 1;
      return;
    }
    const starting = entry.startingObjects;
    cell.physics[i] = physicsTable(
      runs.map((moving) => unityStabilityScore(starting, moving)),
      ctx.tries,
    );
    ctx.counts.physics += 1;
  });
  return cell;
}

/** Packs the cells of the letters with data (see PackedCells) and makes each cell's arrays views into the packed ones. */
function pack(letters: ReadonlyArray<LetterModel | undefined>, p: number, t: number, diversity: boolean): PackedCells {
  const present = letters.flatMap((letter, l) => (letter ? [l] : []));
  const cells = present.length * p;
  const packed: PackedCells = {
    letters: Int32Array.from(present),
    stability: new Float64Array(cells * t),
    similarity: new Float64Array(cells * t),
    distance: new Float64Array(cells * t * t),
    diversity: new Uint8Array(cells),
    physics: undefined,
  };
  present.forEach((l, i) => {
    (letters[l] as LetterModel).cells.forEach((cell, k) => {
      const c = i * p + k;
      const view = <A extends Float64Array>(target: A, own: A, size: number): A => {
        target.set(own, c * size);
        return target.subarray(c * size, (c + 1) * size) as A;
      };
      cell.stability = view(packed.stability, cell.stability, t);
      cell.similarity = view(packed.similarity, cell.similarity, t);
      cell.distance = view(packed.distance, cell.distance, t * t);
      packed.diversity[c] = diversity && cell.diversityFile ? 1 : 0;
      cell.physics.forEach((table, trial) => {
        if (!table) return;
        packed.physics ??= new Array<PhysicsTable | undefined>(cells * t).fill(undefined);
        packed.physics[c * t + trial] = table;
      });
    });
  });
  return packed;
}

function hasAnyFile(c: CharacterInput | undefined): boolean {
  return c !== undefined && (c.stability !== undefined || c.similarity !== undefined || c.diversityRate !== undefined);
}

/** The model of one or more competitions (several: the 2025 model folders, summed per team). */
export function buildModel(competitions: readonly CompetitionData[], options: ModelOptions = {}): UncertaintyModel {
  const teams: string[] = [];
  const notes: string[] = [];
  const counts = { physics: 0, noCounts: 0 };
  const tries = options.simulationTrials ?? OFFICIAL_TRIALS;
  const models = competitions.map(({ label, input, rules }, index): CompetitionModel => {
    const t = input.trials ?? DEFAULT_TRIALS;
    for (const team of input.teams) if (!teams.includes(team)) teams.push(team);
    const denominator = (t * (t + 1)) / 2 - t;
    const letters = CHARACTERS.map((character): LetterModel | undefined => {
      if (!input.teams.some((team) => hasAnyFile(input.inputs.get(team)?.get(character)))) return undefined;
      const cells = input.teams.map((team) =>
        cellOf(input.inputs.get(team)?.get(character), { index, label, team, character, t, denominator, options, tries, notes, counts }),
      );
      return { character, cells };
    });
    const packed = pack(letters, input.teams.length, t, rules.diversity);
    return {
      label,
      teams: input.teams,
      teamIndex: Int32Array.from(input.teams, (team) => teams.indexOf(team)),
      streamWords: Uint32Array.from(input.teams, (team) => textWord(`${label}\u0000${team}`)),
      trials: t,
      diversity: rules.diversity,
      denominator,
      resampledDiversity: t > 1 ? t / (t - 1) : 1,
      letters,
      packed,
    };
  });
  if (counts.noCounts > 0)
    notes.push(
      `${counts.noCounts} level(s) have perturbed runs but their stability entry has no startingObjects (an older evaluator file): their official stability is used in every resample`,
    );
  return { teams, competitions: models, simulationTrials: tries, physicsTrials: counts.physics, notes };
}
