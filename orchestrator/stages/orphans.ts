import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256 } from '../../core/hash.js';
import { listCharacters, listFiles, listTeams, type StageFilter, stageDir, trialBaseName } from '../layout/competition.js';
import type { ProgressSink } from '../progress/types.js';
import { readLevelCache } from './level-cache.js';

/**
 * Outputs of the simulate stage whose level is gone. An edited response whose program no longer converts
 * loses its level XML (the convert stage removes a stale output), but its image and its letter's
 * stability file stayed, so the similarity and the score still counted a trial that no longer exists —
 * a folder a run from scratch would never hold. In a team whose levels come from sbeval's own stages (it
 * has a `levels/` folder), an image without its level (or beside a level whose current XML failed to
 * load) and a stability file of a letter without levels are removed. A folder of official images or per-letter files without `levels/` is left as it is.
 */
interface RemovedOrphans {
  images: string[];
  stability: string[];
}

const wanted = (list: readonly string[] | undefined, name: string) => !list || list.length === 0 || list.includes(name);

/** `X_raw.png` is the raw screenshot of level `X`. */
function levelBase(image: string): string {
  const base = trialBaseName(image);
  return base.endsWith('_raw') ? base.slice(0, -'_raw'.length) : base;
}

/** The level's current XML failed to load (its cache says so): an image beside it is from an earlier XML. */
function failedToLoad(root: string, team: string, character: string, base: string): boolean {
  const file = `${base}.xml`;
  const cache = readLevelCache(root, team, character, file);
  if (cache === undefined || cache.outcome.ok) return false;
  try {
    return cache.xmlSha256 === sha256(readFileSync(join(stageDir(root, team, 'levels', character), file), 'utf8'));
  } catch {
    return false;
  }
}

export async function removeOrphanLevelOutputs(root: string, filter: StageFilter, progress: ProgressSink, stage: string): Promise<RemovedOrphans> {
  const removed: RemovedOrphans = { images: [], stability: [] };
  for (const team of listTeams(root)) {
    if (!wanted(filter.teams, team) || !existsSync(stageDir(root, team, 'levels'))) continue;
    const levelLetters = new Set(listCharacters(root, team, 'levels'));
    for (const character of existsSync(stageDir(root, team, 'images')) ? listCharacters(root, team, 'images') : []) {
      if (!wanted(filter.characters, character)) continue;
      const levels = levelLetters.has(character) ? new Set(listFiles(stageDir(root, team, 'levels', character), '.xml').map(trialBaseName)) : new Set<string>();
      for (const image of listFiles(stageDir(root, team, 'images', character), '.png')) {
        if (levels.has(levelBase(image)) && !failedToLoad(root, team, character, levelBase(image))) continue;
        await rm(join(stageDir(root, team, 'images', character), image), { force: true });
        removed.images.push(`${team}/images/${character}/${image}`);
      }
    }
    for (const file of listFiles(stageDir(root, team, 'stability'), '.json')) {
      const character = file.slice(0, -'.json'.length);
      if (!/^[A-Z]$/.test(character) || !wanted(filter.characters, character)) continue;
      if (levelLetters.has(character) && listFiles(stageDir(root, team, 'levels', character), '.xml').length > 0) continue;
      await rm(join(stageDir(root, team, 'stability'), file), { force: true });
      removed.stability.push(`${team}/stability/${file}`);
    }
  }
  for (const path of [...removed.images, ...removed.stability]) progress.note(stage, `${path} removed: its level is gone`);
  return removed;
}
