/**
 * Builds a competition folder in the official per-character formats from a published
 * trial_scores.csv (golden/scoring/<year>/), so the real `sbeval score` can be run on it.
 *
 * - stability/<C>.json: Unity format; tag = the evaluator's level path; counts chosen so that the
 *   evaluator's own float32 formula gives the published score.
 * - similarity/<C>.json: Python format; the target probability is the published similarity, the
 *   other 25 share the rest (only the target is scored).
 * - diversity/<C>.json (2024): Python format with the published diversityRate; the vectors are the
 *   similarity vectors, the pair list their cosine distances (the rate is the published one, not a
 *   recomputation: the per-trial vectors of the competition are not public).
 * Trials whose stability and similarity are both 0 get no entry at all (a level that was never
 * built), which also exercises "missing trial = 0".
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type DiversityFile,
  type StabilityEntry,
  similarityFile,
  stabilityTag,
  unityStabilityScore,
  writeDiversityJson,
  writeSimilarityJson,
  writeStabilityJson,
} from '../../scoring/formats/index.js';

/** Minimal RFC 4180 reader for the published CSV files (quoted cells, CRLF or LF). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

export interface PublishedTrial {
  team: string;
  character: string;
  trial: number;
  stability: string;
  similarity: string;
  diversity: string | undefined;
}

export function readPublishedTrials(text: string): PublishedTrial[] {
  const [header, ...rows] = parseCsv(text);
  const col = (name: string) => header?.indexOf(name) ?? -1;
  const [team, character, trial, sta, sim, div] = ['teamName', 'character', 'trial', 'stabilityScore', 'similarityScore', 'diversityScore'].map(col);
  return rows.map((r) => ({
    team: r[team as number] as string,
    character: r[character as number] as string,
    trial: Number(r[trial as number]),
    stability: r[sta as number] as string,
    similarity: r[sim as number] as string,
    diversity: (div as number) >= 0 ? r[div as number] : undefined,
  }));
}

/** Object counts (starting, moving) for which the evaluator's float32 formula gives `score`. */
export function countsFor(score: number): { startingObjects: number; movingObjects: number } {
  for (let starting = 1; starting <= 200; starting++) {
    for (let moving = 0; moving <= starting; moving++) {
      if (unityStabilityScore(starting, moving) === score) return { startingObjects: starting, movingObjects: moving };
    }
  }
  throw new Error(`no object counts give the stability ${score}`);
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  a.forEach((x, i) => {
    const y = b[i] ?? 0;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  });
  return Math.min(Math.max(1 - ab / Math.sqrt(aa * bb), 0), 2);
}

export interface BuildOptions {
  /** Write diversity files (2024 format). */
  diversity: boolean;
}

/** Writes `<root>/<team>/{stability,similarity,diversity}/<C>.json` for every team of the CSV. */
export function buildCompetition(root: string, trials: readonly PublishedTrial[], options: BuildOptions): { teams: string[] } {
  const groups = new Map<string, PublishedTrial[]>();
  const teams: string[] = [];
  for (const t of trials) {
    if (!teams.includes(t.team)) teams.push(t.team);
    const key = `${t.team}\u0000${t.character}`;
    groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  for (const team of teams) mkdirSync(join(root, team), { recursive: true });
  for (const group of groups.values()) {
    const { team, character } = group[0] as PublishedTrial;
    const kept = group.filter((t) => Number(t.stability) !== 0 || Number(t.similarity) !== 0);
    const diversityRate = Number(group[0]?.diversity ?? 0);
    if (kept.length === 0 && diversityRate === 0) continue;
    const stability: StabilityEntry[] = kept.map((t) => {
      const score = Number(t.stability);
      if (Math.fround(score) !== score) throw new Error(`${team} ${character} ${t.trial}: stability ${t.stability} is not a float32`);
      return { tag: stabilityTag(team, character, `${team}_${character}_${t.trial}.xml`), score, ...countsFor(score) };
    });
    const images = kept.map((t) => {
      const target = Number(t.similarity);
      if (Math.fround(target) !== target) throw new Error(`${team} ${character} ${t.trial}: similarity ${t.similarity} is not a float32`);
      const rest = Math.fround((1 - target) / 25);
      const probabilities = Array.from({ length: 26 }, (_, i) => (i === character.charCodeAt(0) - 65 ? target : rest));
      return { id: `${team}_${character}_${t.trial}.png`, probabilities };
    });
    const similarity = similarityFile(character, images);
    write(join(root, team, 'stability', `${character}.json`), writeStabilityJson(stability));
    write(join(root, team, 'similarity', `${character}.json`), writeSimilarityJson(similarity));
    if (options.diversity) {
      const vectors = similarity.similarities.map((s) => ({ trial: s.id.split('.')[0] as string, vector: s.raws.map((r) => r.softmax_prob) }));
      const diversities = [];
      for (let i = 0; i < vectors.length; i++) {
        for (let j = i + 1; j < vectors.length; j++) {
          const a = vectors[i] as (typeof vectors)[number];
          const b = vectors[j] as (typeof vectors)[number];
          diversities.push({ pair: { trial1: a.trial, trial2: b.trial }, distance: cosine(a.vector, b.vector) });
        }
      }
      const file: DiversityFile = { diversityRate, trials: vectors, diversities, count: vectors.length };
      write(join(root, team, 'diversity', `${character}.json`), writeDiversityJson(file));
    }
  }
  return { teams };
}

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}
