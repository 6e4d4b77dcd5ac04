import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSimilarityJson } from '../../scoring/formats/similarity.js';
import { parseStabilityJson } from '../../scoring/formats/stability.js';
import { listFiles, listTeams, resultDir, stageDir, trialBaseName } from '../layout/competition.js';
import { readRubricFile } from './rubric-stage.js';
import { restoreCsvText } from '../../scoring/formats/text-escape.js';

/**
 * Every per-level number the folder holds, keyed `team/C/name`: the official stability and
 * similarity (read with the official formats' readers), the rubric judge's score
 * (`<team>/judge-rubric/<C>.json`) and each ordering perspective's mean score per level
 * (`result/judge-order/<perspective>/levels.csv`). Missing files simply leave gaps; a file that
 * cannot be read is skipped (the stage that wrote it reports its own problems).
 */
export interface LevelScores {
  team: string;
  character: string;
  name: string;
  stability?: number;
  similarity?: number;
  rubric?: number;
  /** perspective → mean ordering score of the level (10 / 7.5 / 5 / 2.5 scale). */
  order: Record<string, number>;
}

const lastPart = (tag: string) => tag.split(/[\\/]/).at(-1) ?? tag;

function tryRead<T>(path: string, parse: (text: string, source: string) => T): T | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return parse(readFileSync(path, 'utf8'), path);
  } catch {
    return undefined;
  }
}

/** Order perspectives with results in the folder. */
export function orderPerspectives(root: string): string[] {
  const dir = join(resultDir(root), 'judge-order');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'levels.csv')))
    .map((e) => e.name)
    .sort();
}

/**
 * One RFC 4180 line (quoted fields with doubled quotes; no line breaks inside fields), as sbeval wrote
 * it: a text field it neutralized against formula injection gets its text back (text-escape.ts).
 */
export function csvFields(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let value = '';
      i += 1;
      while (i < line.length) {
        if (line[i] === '"' && line[i + 1] === '"') {
          value += '"';
          i += 2;
        } else if (line[i] === '"') {
          i += 1;
          break;
        } else value += line[i++];
      }
      out.push(restoreCsvText(value));
      i += 1; // the comma
    } else {
      const end = line.indexOf(',', i);
      out.push(restoreCsvText(line.slice(i, end < 0 ? line.length : end)));
      i = end < 0 ? line.length + 1 : end + 1;
    }
  }
  return out;
}

export function readLevelScores(root: string): Map<string, LevelScores> {
  const scores = new Map<string, LevelScores>();
  const entry = (team: string, character: string, name: string): LevelScores => {
    const key = `${team}/${character}/${name}`;
    let e = scores.get(key);
    if (!e) scores.set(key, (e = { team, character, name, order: {} }));
    return e;
  };
  for (const team of listTeams(root)) {
    for (const file of listFiles(stageDir(root, team, 'stability'), '.json')) {
      const character = trialBaseName(file);
      for (const raw of tryRead(join(stageDir(root, team, 'stability'), file), parseStabilityJson)?.raws ?? []) entry(team, character, trialBaseName(lastPart(raw.tag))).stability = raw.score;
    }
    for (const file of listFiles(stageDir(root, team, 'similarity'), '.json')) {
      const character = trialBaseName(file);
      for (const t of tryRead(join(stageDir(root, team, 'similarity'), file), parseSimilarityJson)?.trials ?? []) entry(team, character, trialBaseName(lastPart(t.id))).similarity = t.similarity;
    }
    const rubricDir = join(root, team, 'judge-rubric');
    for (const file of listFiles(rubricDir, '.json')) {
      const doc = readRubricFile(join(rubricDir, file));
      for (const t of doc?.trials ?? []) if (typeof t.score === 'number') entry(team, doc!.character, t.name).rubric = t.score;
    }
  }
  for (const perspective of orderPerspectives(root)) {
    const lines = readFileSync(join(resultDir(root), 'judge-order', perspective, 'levels.csv'), 'utf8').split('\n').slice(1).filter(Boolean);
    for (const line of lines) {
      const [team, letter, , name, , mean] = csvFields(line);
      if (!team || !letter || !name || mean === undefined || mean === '') continue;
      entry(team, letter, name).order[perspective] = Number(mean);
    }
  }
  return scores;
}
