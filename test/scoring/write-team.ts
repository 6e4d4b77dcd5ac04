/**
 * Writes a team's per-character files in the official formats from plain per-trial values, for
 * tests that construct their own competitions.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DiversityFile, similarityFile, stabilityTag, writeDiversityJson, writeSimilarityJson, writeStabilityJson } from '../../scoring/formats/index.js';
import { countsFor } from './golden-competition.js';

export interface CharacterSpec {
  /** Stability per trial 1..n (float32 values the evaluator can produce); `null` = no level. */
  stability: Array<number | null>;
  /** Target-letter probability per trial (float32); `null` = no image. */
  similarity: Array<number | null>;
  /** diversityRate; `undefined` = no diversity file. */
  diversity?: number;
}

export type TeamSpec = Record<string, CharacterSpec>;

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

export function writeTeam(dir: string, team: string, spec: TeamSpec): void {
  mkdirSync(join(dir, team), { recursive: true });
  for (const [character, c] of Object.entries(spec)) {
    const entries = c.stability.flatMap((score, i) =>
      score === null ? [] : [{ tag: stabilityTag(team, character, `${team}_${character}_${i + 1}.xml`), score, ...countsFor(score) }],
    );
    write(join(dir, team, 'stability', `${character}.json`), writeStabilityJson(entries));
    const images = c.similarity.flatMap((p, i) => {
      if (p === null) return [];
      const rest = Math.fround((1 - p) / 25);
      return [
        { id: `${team}_${character}_${i + 1}.png`, probabilities: Array.from({ length: 26 }, (_, k) => (k === character.charCodeAt(0) - 65 ? p : rest)) },
      ];
    });
    write(join(dir, team, 'similarity', `${character}.json`), writeSimilarityJson(similarityFile(character, images)));
    if (c.diversity !== undefined) {
      const file: DiversityFile = {
        diversityRate: c.diversity,
        trials: images.map((im) => ({ trial: im.id.split('.')[0] as string, vector: im.probabilities })),
        diversities: [],
        count: images.length,
      };
      write(join(dir, team, 'diversity', `${character}.json`), writeDiversityJson(file));
    }
  }
}

/** Seeded PRNG: the engine's own mulberry32 (one implementation in the project). */
export { mulberry32 as prng } from '../../bridge/headless/order.js';
