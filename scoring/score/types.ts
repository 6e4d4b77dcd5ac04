/**
 * Input and output of the scoring chain. The input is what the per-character files hold, already
 * parsed (scoring/formats); the output is every number the official script prints, as decimals.
 */
import type { Decimal } from './decimal.js';
import type { RuleSet } from './rules.js';

/** One trial's value from a stability `raws` entry or a similarity `trials` entry. */
export interface TrialValue {
  /** The trial index read from the tag / image id the official way (NaN when there is none). */
  trial: number;
  /** The name it was read from (tag or image id), for warnings. */
  name: string;
  value: number;
  /** Stability entries: the objects counted at the start (the bootstrap turns perturbed runs' moving counts into scores with it). */
  startingObjects?: number;
}

/** One trial's vector from a diversity file's `trials` (the vector its diversity was computed from). */
export interface TrialVector {
  /** The trial index read from the entry's `trial` name the official way (NaN when there is none). */
  trial: number;
  name: string;
  vector: readonly number[];
}

/** What one team has for one character. `undefined` members mean the file is missing or unreadable. */
export interface CharacterInput {
  stability?: readonly TrialValue[];
  similarity?: readonly TrialValue[];
  diversityRate?: number;
  /**
   * The diversity file's trial vectors (absent when the file is missing). Not used by the official
   * scoring, which takes `diversityRate`; the uncertainty bootstrap recomputes each resample's
   * diversity from them.
   */
  vectors?: readonly TrialVector[];
  /** File paths (or any label) the values came from, named in warnings. */
  sources?: { stability?: string; similarity?: string; diversity?: string };
}

export interface ScoreInput {
  /** Every team folder, baselines and teams without files included (P = teams.length). */
  teams: readonly string[];
  /** `inputs.get(team)?.get(character)`. */
  inputs: ReadonlyMap<string, ReadonlyMap<string, CharacterInput>>;
  /** Trials per character (T, official 10). */
  trials?: number;
}

export interface CharacterWeight {
  character: string;
  weight: Decimal;
  weightStability: Decimal;
  weightSimilarity: Decimal;
  /** 1 under the 2023 rules (not part of the weight). */
  weightDiversity: Decimal;
}

export interface TrialScore {
  team: string;
  character: string;
  trial: number;
  trialScore: Decimal;
  stability: Decimal;
  similarity: Decimal;
  diversity: Decimal;
}

export interface CharacterScore {
  team: string;
  character: string;
  characterScore: Decimal;
  averageStability: Decimal;
  averageSimilarity: Decimal;
  diversity: Decimal;
}

export interface RankedTeam {
  team: string;
  promptScore: Decimal;
  normalizedPromptScore: Decimal;
  /** 1..P in ranking order (the official file never shares a rank). */
  rank: number;
}

export interface ScoreResult {
  rules: RuleSet;
  teams: readonly string[];
  trialsPerCharacter: number;
  weights: CharacterWeight[];
  trials: TrialScore[];
  characters: CharacterScore[];
  /** Prompt score per team, in team order. */
  prompts: Map<string, Decimal>;
  competitionScore: Decimal;
  /** Sorted by normalised score, highest first. */
  ranking: RankedTeam[];
}
