/**
 * Synthetic 2024-rules competitions whose truth is known, for the coverage benchmark (coverage.ts).
 *
 * A design fixes, per team × letter, the distribution of one trial: a failure rate (no level: no
 * stability entry, no image), a chance the level stands (stability 1; otherwise a partial collapse,
 * 1 − moving/starting as the evaluator stores it) and a softmax vector of 26 probabilities: logits 0
 * plus the cell's advantage on the target letter, every logit with Gaussian noise per trial. The
 * target's probability is the similarity; the vector is also the diversity vector, as under the 2024
 * rules (scoring/diversity/diversity.ts). A competition draws T trials of every cell independently.
 *
 * The truth a bootstrap interval should cover is the expectation over fresh competitions of each
 * team's prompt and normalised score, estimated from many fresh draws (`estimateTruth`), each scored
 * by sbeval's double-precision scoring of the folder as it is (the bootstrap's own scorer with every
 * slot holding its own trial; it agrees with the exact scorer to 1e-12, test/bench/coverage.test.ts).
 */
import { cosineDistance } from '../../scoring/diversity/cosine.js';
import { diversityFile } from '../../scoring/formats/diversity.js';
import { unityStabilityScore } from '../../scoring/formats/unity-score.js';
import { CHARACTERS, RULE_SETS } from '../../scoring/score/rules.js';
import type { CharacterInput, ScoreInput, TrialValue, TrialVector } from '../../scoring/score/types.js';
import { buildModel, type UncertaintyModel, Xoshiro128 } from '../../scoring/uncertainty/index.js';
import { allocateDraws, allocateScores, identityInto, scoreInto } from '../../scoring/uncertainty/resample.js';

/** One team × letter: how one trial comes out. */
export interface CellParams {
  /** Chance the trial has no level (and so no image). */
  failure: number;
  /** Chance a level stands (stability 1). */
  stands: number;
  /** The target letter's mean logit above the other 25 (which are 0). */
  advantage: number;
}

export interface Design {
  name: string;
  description: string;
  teams: readonly string[];
  trials: number;
  /** SD of the per-trial Gaussian noise on every logit. */
  noise: number;
  /** cells[team][letter], letters in CHARACTERS order. */
  cells: CellParams[][];
}

interface DesignSpec {
  name: string;
  description: string;
  /** Per team: its quality (the design's teams are named after their index). */
  qualities: readonly number[];
  /** The seed of the letters' difficulties and the cells' own effects. */
  seed: number;
  trials?: number;
  noise?: number;
}

const logistic = (x: number) => 1 / (1 + Math.exp(-x));

/** A standard normal draw (Box–Muller on two 53-bit uniforms). */
export function gaussian(random: Xoshiro128): number {
  const u = 1 - random.uniform();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random.uniform());
}

/**
 * A design from team qualities: a letter's difficulty d ~ N(0, 0.5²) (all teams), a cell's own effects
 * e ~ N(0, 0.3²); failure = logistic(−2.2 − 0.5q + e) (≈ 10 % for q = 0), stands = logistic(0.3 + q − d + e),
 * advantage = 2.5 + q − d + e. Higher quality: fewer failures, more standing levels, more recognisable letters.
 */
export function makeDesign(spec: DesignSpec): Design {
  const random = new Xoshiro128(spec.seed, 0);
  const difficulty = CHARACTERS.map(() => 0.5 * gaussian(random));
  const cells = spec.qualities.map((q) =>
    difficulty.map((d) => ({
      failure: logistic(-2.2 - 0.8 * q + 0.3 * gaussian(random)),
      stands: logistic(0.3 + 1.5 * q - d + 0.3 * gaussian(random)),
      advantage: 2 + 0.5 * q - d + 0.3 * gaussian(random),
    })),
  );
  return {
    name: spec.name,
    description: spec.description,
    teams: spec.qualities.map((_, i) => `team${String(i + 1).padStart(2, '0')}`),
    trials: spec.trials ?? 10,
    noise: spec.noise ?? 1,
    cells,
  };
}

/** The benchmark's two designs. */
export const DESIGNS: readonly Design[] = [
  makeDesign({ name: 'P=5 separated', description: 'P = 5, qualities −1.2, −0.6, 0, 0.6, 1.2', qualities: [-1.2, -0.6, 0, 0.6, 1.2], seed: 11 }),
  makeDesign({
    name: 'P=10 close',
    description: 'P = 10, qualities evenly from −0.2 to 0.2',
    qualities: Array.from({ length: 10 }, (_, i) => -0.2 + (0.4 * i) / 9),
    seed: 12,
  }),
];

/** One trial's softmax vector (float32 as the similarity file holds it). */
function softmax(target: number, advantage: number, noise: number, random: Xoshiro128): number[] {
  const logits = CHARACTERS.map((_, i) => (i === target ? advantage : 0) + noise * gaussian(random));
  const top = Math.max(...logits);
  const exps = logits.map((x) => Math.exp(x - top));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((x) => Math.fround(x / sum));
}

/** One cell's T trials: its stability and similarity entries and its diversity vectors (failed trials have none). */
function drawCell(cell: CellParams, team: string, letter: number, design: Design, random: Xoshiro128): CharacterInput {
  const stability: TrialValue[] = [];
  const similarity: TrialValue[] = [];
  const vectors: TrialVector[] = [];
  const character = CHARACTERS[letter] as string;
  for (let trial = 1; trial <= design.trials; trial++) {
    if (random.uniform() < cell.failure) continue;
    const name = `${team}_${character}_${trial}`;
    const startingObjects = 3 + Math.floor(random.uniform() * 10);
    const moving = random.uniform() < cell.stands ? 0 : 1 + Math.floor(random.uniform() * startingObjects);
    stability.push({ trial, name, value: unityStabilityScore(startingObjects, moving), startingObjects });
    const vector = softmax(letter, cell.advantage, design.noise, random);
    similarity.push({ trial, name, value: vector[letter] as number });
    vectors.push({ trial, name, vector });
  }
  const rate = diversityFile(
    vectors.map((v) => ({ trial: String(v.trial), vector: [...v.vector] })),
    cosineDistance,
    design.trials,
  ).diversityRate;
  return { stability, similarity, vectors, diversityRate: rate };
}

/** One competition: every team × letter's T trials drawn from the design. */
export function drawCompetition(design: Design, random: Xoshiro128): ScoreInput {
  const inputs = new Map<string, Map<string, CharacterInput>>();
  design.teams.forEach((team, k) => {
    const letters = new Map<string, CharacterInput>();
    CHARACTERS.forEach((character, l) => letters.set(character, drawCell(design.cells[k]?.[l] as CellParams, team, l, design, random)));
    inputs.set(team, letters);
  });
  return { teams: design.teams, inputs, trials: design.trials };
}

/** The bootstrap's model of a competition, as `sbeval score` builds it (2024 rules). */
export function modelOf(input: ScoreInput): UncertaintyModel {
  return buildModel([{ label: '', input, rules: RULE_SETS['2024'] }]);
}

/** A competition's prompt and normalised scores, in doubles (the bootstrap's scorer on the folder as it is). */
export function officialScores(model: UncertaintyModel): { prompt: Float64Array; normalized: Float64Array } {
  const draws = allocateDraws(model);
  const scores = allocateScores(model);
  identityInto(model, draws);
  scoreInto(model, draws, scores);
  return { prompt: scores.prompt, normalized: scores.normalized };
}

/** Per team, the mean over fresh competitions, its SD, and the mean's Monte-Carlo standard error. */
export interface Moments {
  mean: Float64Array;
  sd: Float64Array;
  error: Float64Array;
}

export interface Truth {
  competitions: number;
  prompt: Moments;
  normalized: Moments;
}

function moments(sum: Float64Array, squares: Float64Array, n: number): Moments {
  const mean = sum.map((s) => s / n);
  const sd = squares.map((q, i) => Math.sqrt(Math.max(0, (q - n * (mean[i] as number) ** 2) / (n - 1))));
  return { mean, sd, error: sd.map((s) => s / Math.sqrt(n)) };
}

/** E[prompt score] and E[normalised score] per team from `competitions` fresh competitions drawn from `random`. */
export function estimateTruth(design: Design, competitions: number, random: Xoshiro128, progress?: (done: number) => void): Truth {
  const p = design.teams.length;
  const sums = { prompt: new Float64Array(p), promptSquares: new Float64Array(p), normalized: new Float64Array(p), normalizedSquares: new Float64Array(p) };
  for (let c = 0; c < competitions; c++) {
    const { prompt, normalized } = officialScores(modelOf(drawCompetition(design, random)));
    for (let k = 0; k < p; k++) {
      sums.prompt[k] = (sums.prompt[k] as number) + (prompt[k] as number);
      sums.promptSquares[k] = (sums.promptSquares[k] as number) + (prompt[k] as number) ** 2;
      sums.normalized[k] = (sums.normalized[k] as number) + (normalized[k] as number);
      sums.normalizedSquares[k] = (sums.normalizedSquares[k] as number) + (normalized[k] as number) ** 2;
    }
    progress?.(c + 1);
  }
  return {
    competitions,
    prompt: moments(sums.prompt, sums.promptSquares, competitions),
    normalized: moments(sums.normalized, sums.normalizedSquares, competitions),
  };
}
