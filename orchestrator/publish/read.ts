import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { parseStabilityJson, type StabilityEntry } from '../../scoring/formats/stability.js';
import { restoreCsvText } from '../../scoring/formats/text-escape.js';
import type { RecordedVerdict } from '../../viewer/publish/verdict.js';
import { listFiles, stageDir, trialIndexFromName } from '../layout/competition.js';
import { csvFields } from '../layout/trial-listing.js';

/**
 * What a published competition shows, read from the files the stages and the results writer wrote —
 * nothing official is computed again: the ranking from `result/prompt_scores_ranks.csv`, its
 * uncertainty from `result/score_intervals.csv` when there is one, every trial from
 * `result/trials.csv` (its stage and failure reason), each trial's recorded verdict from
 * `<team>/stability/<C>.json`, its level XML and its image from the stage folders.
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
    .map((l) => csvFields(l).map(restoreCsvText));
  return { header: header ?? [], rows: lines };
}

/** One trial of the site. */
export interface PublishedTrial {
  team: string;
  letter: string;
  trial: string;
  /** `result/trials.csv`: the stage the trial reached, its failure reason (empty when none), its scores as written. */
  stage: string;
  reason: string;
  stability: string;
  similarity: string;
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

/** The files of one team's letter by trial number: stability entries, level XMLs, images (not the `_raw` ones). */
function letterFiles(root: string, team: string, letter: string) {
  const stabilityPath = join(root, team, 'stability', `${letter}.json`);
  const entries = new Map<string, StabilityEntry>();
  if (existsSync(stabilityPath)) {
    const file = parseStabilityJson(readFileSync(stabilityPath, 'utf8'), stabilityPath);
    const tags = byTrialIndex(file.raws.map((r) => r.tag));
    for (const [trial, tag] of tags) entries.set(trial, file.raws.find((r) => r.tag === tag)!);
  }
  const folder = (stage: 'levels' | 'images', ext: string) =>
    existsSync(join(root, team, stage, letter)) ? listFiles(stageDir(root, team, stage, letter), ext).filter((f) => !f.endsWith('_raw.png')) : [];
  return { entries, levels: byTrialIndex(folder('levels', '.xml')), images: byTrialIndex(folder('images', '.png')) };
}

const column = (table: CsvTable, name: string): number => {
  const i = table.header.indexOf(name);
  if (i < 0) throw new SbevalError('input', `the results file has no column ${name}`, 'score the folder again with this sbeval (sbeval score)');
  return i;
};

export function readCompetition(root: string): PublishedCompetition {
  const result = join(root, 'result');
  const need = (name: string) => {
    const path = join(result, name);
    if (!existsSync(path))
      throw new SbevalError('input', `${path} does not exist`, 'publish a scored competition: run `sbeval run <root>` or `sbeval score <root>` first');
    return readCsv(path);
  };
  const ranking = need('prompt_scores_ranks.csv');
  const table = need('trials.csv');
  const at = (name: string) => column(table, name);
  const files = new Map<string, ReturnType<typeof letterFiles>>();
  const trials: PublishedTrial[] = [];
  // 2025 rules also list a row per model; the site shows the folder's own trials (the unlabelled rows), as the viewer's listing does.
  for (const row of table.rows.filter((r) => (r[at('model')] ?? '') === '')) {
    const [team, letter, trial] = [row[at('team')]!, row[at('letter')]!, row[at('trial')]!];
    const key = `${team}\u0000${letter}`;
    if (!files.has(key)) files.set(key, letterFiles(root, team, letter));
    const f = files.get(key)!;
    const entry = f.entries.get(trial);
    const level = f.levels.get(trial);
    const image = f.images.get(trial);
    trials.push({
      team,
      letter,
      trial,
      stage: row[at('stage_reached')] ?? '',
      reason: row[at('reason')] ?? '',
      stability: row[at('stability')] ?? '',
      similarity: row[at('similarity')] ?? '',
      recorded: entry ? { score: entry.score, startingObjects: entry.startingObjects, movingObjects: entry.movingObjects } : null,
      ...(level ? { xml: join(root, team, 'levels', letter, level) } : {}),
      ...(image ? { image: join(root, team, 'images', letter, image) } : {}),
    });
  }
  const intervals = existsSync(join(result, 'score_intervals.csv')) ? readCsv(join(result, 'score_intervals.csv')) : undefined;
  return { ranking, ...(intervals ? { intervals } : {}), trials };
}
