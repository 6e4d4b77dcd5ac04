import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listFiles, listTeams, stageDir, trialBaseName } from '../../orchestrator/layout/competition.js';
import { parseSimilarityJson } from '../../scoring/formats/similarity.js';
import { parseStabilityJson } from '../../scoring/formats/stability.js';

/**
 * The official per-level numbers the folder holds, keyed `team/C/name`: stability and similarity,
 * read with the official formats' readers. Missing files simply leave gaps; a file that cannot be
 * read is skipped (the stage that wrote it reports its own problems). The judges' scores are read by
 * results.ts (one loader for the judge files).
 */
interface LevelScores {
  team: string;
  character: string;
  name: string;
  stability?: number;
  similarity?: number;
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

export function readLevelScores(root: string): Map<string, LevelScores> {
  const scores = new Map<string, LevelScores>();
  const entry = (team: string, character: string, name: string): LevelScores => {
    const key = `${team}/${character}/${name}`;
    let e = scores.get(key);
    if (!e) scores.set(key, (e = { team, character, name }));
    return e;
  };
  for (const team of listTeams(root)) {
    for (const file of listFiles(stageDir(root, team, 'stability'), '.json')) {
      const character = trialBaseName(file);
      for (const raw of tryRead(join(stageDir(root, team, 'stability'), file), parseStabilityJson)?.raws ?? [])
        entry(team, character, trialBaseName(lastPart(raw.tag))).stability = raw.score;
    }
    for (const file of listFiles(stageDir(root, team, 'similarity'), '.json')) {
      const character = trialBaseName(file);
      for (const t of tryRead(join(stageDir(root, team, 'similarity'), file), parseSimilarityJson)?.trials ?? [])
        entry(team, character, trialBaseName(lastPart(t.id))).similarity = t.similarity;
    }
  }
  return scores;
}
