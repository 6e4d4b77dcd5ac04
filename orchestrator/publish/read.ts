import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { parseSimilarityJson } from '../../scoring/formats/similarity.js';
import { parseStabilityJson, type StabilityEntry } from '../../scoring/formats/stability.js';
import type { RecordedVerdict } from '../../viewer/publish/verdict.js';
import { listFiles, stageDir, trialIndexFromName } from '../layout/competition.js';
import { csvFields, trialFates } from '../layout/trial-listing.js';

/**
 * What a published competition shows, read from the files the stages and the results writer wrote —
 * nothing official is computed again: the ranking from `result/prompt_scores_ranks.csv`, its
 * uncertainty from `result/score_intervals.csv` when there is one, every trial and its failure reason
 * from the run's accounting (`result/trials.csv`, or the files: orchestrator/layout/trial-listing.ts),
 * each trial's recorded verdict from `<team>/stability/<C>.json`, its similarity from
 * `<team>/similarity/<C>.json`, its level XML and its image from the stage folders.
 */

/** A CSV the results writer wrote, as its header and rows of text fields. */
export interface CsvTable {
  header: string[];
  rows: string[][];
}

function readCsv(path: string): CsvTable {
  const [header, ...lines] = readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .filter((l) => l.length > 0)
    .map(csvFields);
  return { header: header ?? [], rows: lines };
}

/** One trial of the site. */
export interface PublishedTrial {
  team: string;
  letter: string;
  trial: string;
  /** Its failure reason (empty when none). */
  reason: string;
  /** Its similarity as the similarity file holds it. */
  similarity?: number;
  recorded: RecordedVerdict | null;
  /** Paths of its level XML and image, when the stages wrote them. */
  xml?: string;
  image?: string;
}

export interface PublishedCompetition {
  ranking: CsvTable;
  intervals?: CsvTable;
  trials: PublishedTrial[];
}

function byTrialIndex(names: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of names) {
    const n = trialIndexFromName(name.split(/[\\/]/).at(-1) ?? name);
    if (Number.isFinite(n) && !out.has(String(n))) out.set(String(n), name);
  }
  return out;
}

/** The files of one team's letter by trial number: stability entries, similarities, level XMLs, images (not the `_raw` ones). */
function letterFiles(root: string, team: string, letter: string) {
  const stabilityPath = join(root, team, 'stability', `${letter}.json`);
  const entries = new Map<string, StabilityEntry>();
  if (existsSync(stabilityPath)) {
    const file = parseStabilityJson(readFileSync(stabilityPath, 'utf8'), stabilityPath);
    const tags = byTrialIndex(file.raws.map((r) => r.tag));
    for (const [trial, tag] of tags) entries.set(trial, file.raws.find((r) => r.tag === tag)!);
  }
  const similarityPath = join(root, team, 'similarity', `${letter}.json`);
  const similarities = new Map<string, number>();
  if (existsSync(similarityPath)) {
    const file = parseSimilarityJson(readFileSync(similarityPath, 'utf8'), similarityPath);
    for (const [trial, id] of byTrialIndex(file.trials.map((t) => t.id))) similarities.set(trial, file.trials.find((t) => t.id === id)!.similarity);
  }
  const folder = (stage: 'levels' | 'images', ext: string) =>
    existsSync(join(root, team, stage, letter)) ? listFiles(stageDir(root, team, stage, letter), ext).filter((f) => !f.endsWith('_raw.png')) : [];
  return { entries, similarities, levels: byTrialIndex(folder('levels', '.xml')), images: byTrialIndex(folder('images', '.png')) };
}

export function readCompetition(root: string): PublishedCompetition {
  const result = join(root, 'result');
  const ranking = join(result, 'prompt_scores_ranks.csv');
  if (!existsSync(ranking))
    throw new SbevalError('input', `${ranking} does not exist`, 'publish a scored competition: run `sbeval run <root>` or `sbeval score <root>` first');
  const files = new Map<string, ReturnType<typeof letterFiles>>();
  const trials: PublishedTrial[] = [];
  for (const { team, letter, trial, reason } of trialFates(root)) {
    const key = `${team}\u0000${letter}`;
    if (!files.has(key)) files.set(key, letterFiles(root, team, letter));
    const f = files.get(key)!;
    const entry = f.entries.get(trial);
    const level = f.levels.get(trial);
    const image = f.images.get(trial);
    const similarity = f.similarities.get(trial);
    trials.push({
      team,
      letter,
      trial,
      reason,
      ...(similarity === undefined ? {} : { similarity }),
      recorded: entry ? { score: entry.score, startingObjects: entry.startingObjects, movingObjects: entry.movingObjects } : null,
      ...(level ? { xml: join(root, team, 'levels', letter, level) } : {}),
      ...(image ? { image: join(root, team, 'images', letter, image) } : {}),
    });
  }
  const intervals = join(result, 'score_intervals.csv');
  return { ranking: readCsv(ranking), ...(existsSync(intervals) ? { intervals: readCsv(intervals) } : {}), trials };
}
