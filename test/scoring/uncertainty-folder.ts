/**
 * Competition folders for the uncertainty tests and benchmark, from per-trial values held in memory,
 * written with sbeval's official writers: stability (evaluator format), similarity (script format,
 * 26 probabilities and, under 2025 rules, a CLS vector) and diversity computed from the similarity
 * file as the diversity stage does. A bootstrap resample is written the same way, with slot s holding
 * the drawn trial's data named trial s — the folder the resample stands for.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { computeDiversity, diversityJson } from '../../scoring/diversity/diversity.js';
import { type ImageClassification, similarityFile, stabilityTag, writeSimilarityJson, writeStabilityJson } from '../../scoring/formats/index.js';
import { unityStabilityScore } from '../../scoring/formats/unity-score.js';
import { CHARACTERS } from '../../scoring/score/rules.js';
import type { Draws } from '../../scoring/uncertainty/index.js';
import { prng } from './write-team.js';

export interface TrialSpec {
  /** null: the level never got a verdict (no stability entry). */
  stability: { startingObjects: number; movingObjects: number } | null;
  /** null: no image (no similarity entry, no vector). */
  probabilities: number[] | null;
  /** 2025: the CLS vector. */
  cls?: number[];
}

/** team → letter → trials 1..T. */
export type CompetitionSpec = Map<string, Map<string, Array<TrialSpec>>>;

export interface RandomOptions {
  teams: readonly string[];
  letters: readonly string[];
  trials: number;
  seed: number;
  /** Share of trials without a level (and so without an image). */
  failed?: number;
  /** Share of trials with a level but no image. */
  noImage?: number;
  /** CLS vector length (2025 files); none by default. */
  cls?: number;
  /** Per team, a factor on the target probability (to make a team strong or weak). */
  strength?: (team: string) => number;
}

export function randomCompetition(options: RandomOptions): CompetitionSpec {
  const random = prng(options.seed);
  const spec: CompetitionSpec = new Map();
  for (const team of options.teams) {
    const letters = new Map<string, TrialSpec[]>();
    const strength = options.strength?.(team) ?? 1;
    for (const letter of options.letters) {
      const target = letter.charCodeAt(0) - 65;
      letters.set(
        letter,
        Array.from({ length: options.trials }, (): TrialSpec => {
          if (random() < (options.failed ?? 0)) return { stability: null, probabilities: null };
          const startingObjects = 1 + Math.floor(random() * 12);
          const movingObjects = random() < 0.5 ? 0 : Math.floor(random() * (startingObjects + 1));
          if (random() < (options.noImage ?? 0)) return { stability: { startingObjects, movingObjects }, probabilities: null };
          const raw = Array.from({ length: 26 }, () => random());
          raw[target] = (raw[target] as number) + 8 * strength * random();
          const sum = raw.reduce((a, b) => a + b, 0);
          const probabilities = raw.map((x) => Math.fround(x / sum));
          const trial: TrialSpec = { stability: { startingObjects, movingObjects }, probabilities };
          if (options.cls) trial.cls = Array.from({ length: options.cls }, () => Math.fround(random() * 2 - 1));
          return trial;
        }),
      );
    }
    spec.set(team, letters);
  }
  return spec;
}

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

/** Writes one competition folder (`dir/<team>/{stability,similarity,diversity}/<C>.json`). */
export function writeCompetition(dir: string, spec: CompetitionSpec, options: { rules: 2024 | 2025; trials: number }): void {
  for (const [team, letters] of spec) {
    mkdirSync(join(dir, team), { recursive: true });
    for (const [letter, trials] of letters) {
      const entries = trials.flatMap((t, i) =>
        t.stability
          ? [
              {
                tag: stabilityTag(team, letter, `${team}_${letter}_${i + 1}.xml`),
                score: unityStabilityScore(t.stability.startingObjects, t.stability.movingObjects),
                ...t.stability,
              },
            ]
          : [],
      );
      write(join(dir, team, 'stability', `${letter}.json`), writeStabilityJson(entries));
      const images = trials.flatMap((t, i): ImageClassification[] =>
        t.probabilities ? [{ id: `${team}_${letter}_${i + 1}.png`, probabilities: t.probabilities, ...(t.cls ? { clsEmbedding: t.cls } : {}) }] : [],
      );
      const similarity = similarityFile(letter, images);
      write(join(dir, team, 'similarity', `${letter}.json`), writeSimilarityJson(similarity));
      write(join(dir, team, 'diversity', `${letter}.json`), diversityJson(computeDiversity(similarity, options.rules, options.trials)));
    }
  }
}

/** Moving objects that give `score` with `startingObjects` (a perturbed run's verdict, written as the evaluator would). */
function movingFor(startingObjects: number, score: number): number {
  for (let moving = 0; moving <= startingObjects; moving++) if (unityStabilityScore(startingObjects, moving) === score) return moving;
  throw new Error(`no moving count gives ${score} with ${startingObjects} objects`);
}

/**
 * The spec of one resample of competition `m` of a model: slot s of each team × letter takes the drawn
 * trial's data, with the stability the draw used (its own, or a perturbed run's best-of).
 */
export function resampleSpec(spec: CompetitionSpec, teams: readonly string[], draws: Draws, m: number): CompetitionSpec {
  const out: CompetitionSpec = new Map();
  for (const [team, letters] of spec) {
    const k = teams.indexOf(team);
    const resampled = new Map<string, TrialSpec[]>();
    for (const [letter, trials] of letters) {
      const l = CHARACTERS.indexOf(letter);
      const picked = draws.trial[m]?.[l]?.[k];
      const stability = draws.stability[m]?.[l]?.[k];
      if (!picked || !stability) throw new Error(`no draw for ${team} ${letter}`);
      resampled.set(
        letter,
        Array.from(picked, (trial, s): TrialSpec => {
          const source = trials[trial] as TrialSpec;
          const score = stability[s] as number;
          const level =
            source.stability && !Number.isNaN(score)
              ? { startingObjects: source.stability.startingObjects, movingObjects: movingFor(source.stability.startingObjects, score) }
              : null;
          return { ...source, stability: level };
        }),
      );
    }
    out.set(team, resampled);
  }
  return out;
}
