/**
 * The report's gallery of one competition folder (scoring/report/gallery.ts draws it): for every trial,
 * its image's thumbnail (orchestrator/report/thumbnail.ts), its stability and similarity from the
 * official per-letter files (joined by trial number, as the scoring joins them), and for a trial
 * without an image the reason from the run's accounting — or, without one, from the files
 * (orchestrator/report/fates.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parseSimilarityJson } from '../../scoring/formats/similarity.js';
import { parseStabilityJson } from '../../scoring/formats/stability.js';
import type { Gallery, GalleryTrial } from '../../scoring/report/index.js';
import { listFiles, resultDir, stageDir, trialBaseName, trialIndexFromName } from '../layout/competition.js';
import { folderFates, type TrialFate } from './fates.js';
import { THUMBNAIL_SIZE, thumbnailDataUri } from './thumbnail.js';

interface GalleryOptions {
  /** Team folders, in the order the gallery lists them. */
  teams: readonly string[];
  /** Trials per letter (T): trials 1..T without any file are shown as never generated. */
  trials: number;
  /** The drop function's name (`drop_block`, 2023 `ab_drop`), for reasons read from the files. */
  prefix: string;
  /** The run's accounting for this folder (every trial's fate); without it the files are read. */
  fates?: readonly TrialFate[];
  /** The folder the report is written to, for links to the full images (default `<dir>/result`). */
  reportDir?: string;
  /** Where thumbnails are cached (default `dir`: `<dir>/.sbeval/thumbnails/`). */
  cacheRoot?: string;
  /** Thumbnails made at once (sharp decodes on libuv's thread pool). */
  concurrency?: number;
}

interface CollectedGallery {
  gallery: Gallery;
  /** Images that exist but could not be read or decoded (shown as blanks with the error). */
  unreadable: Array<{ path: string; message: string }>;
}

type PerTrial = Map<string, number>;

/** `trial number (or base name)` → value, first entry per trial as the scoring's `Array.find`. */
function perTrial(entries: ReadonlyArray<{ name: string; value: number }>): PerTrial {
  const out: PerTrial = new Map();
  for (const e of entries) {
    const file = e.name.split(/[\\/]/).at(-1) ?? e.name;
    const n = trialIndexFromName(file);
    const key = Number.isFinite(n) ? String(n) : trialBaseName(file);
    if (!out.has(key)) out.set(key, e.value);
  }
  return out;
}

function readPerTrial(path: string, kind: 'stability' | 'similarity'): PerTrial {
  if (!existsSync(path)) return new Map();
  try {
    const text = readFileSync(path, 'utf8');
    if (kind === 'stability') return perTrial(parseStabilityJson(text, path).raws.map((r) => ({ name: r.tag, value: r.score })));
    return perTrial(parseSimilarityJson(text, path).trials.map((t) => ({ name: t.id, value: t.similarity })));
  } catch {
    // The score stage reports unreadable files; the gallery just shows no value.
    return new Map();
  }
}

/** A relative link that works in HTML and markdown on every platform (forward slashes). */
function href(from: string, to: string): string {
  return relative(from, to).split(sep).join('/');
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

export async function collectGallery(dir: string, options: GalleryOptions): Promise<CollectedGallery> {
  const fates = options.fates ?? folderFates(dir, { teams: options.teams, trials: options.trials, prefix: options.prefix });
  const reportDir = options.reportDir ?? resultDir(dir);
  const cacheRoot = options.cacheRoot ?? dir;
  const unreadable: CollectedGallery['unreadable'] = [];
  const scores = new Map<string, { stability: PerTrial; similarity: PerTrial; images: Map<string, string> }>();
  const cell = (team: string, letter: string) => {
    const key = `${team}\u0000${letter}`;
    let entry = scores.get(key);
    if (!entry) {
      // Images by trial number (and by base name for trials without one): `<team>/images/<C>/<name>.png`.
      const images = new Map<string, string>();
      for (const file of listFiles(stageDir(dir, team, 'images', letter), '.png')) {
        if (file.endsWith('_raw.png')) continue;
        const n = trialIndexFromName(file);
        const key2 = Number.isFinite(n) ? String(n) : trialBaseName(file);
        if (!images.has(key2)) images.set(key2, file);
      }
      entry = {
        stability: readPerTrial(join(stageDir(dir, team, 'stability'), `${letter}.json`), 'stability'),
        similarity: readPerTrial(join(stageDir(dir, team, 'similarity'), `${letter}.json`), 'similarity'),
        images,
      };
      scores.set(key, entry);
    }
    return entry;
  };
  const teams = new Set(options.teams);
  const wanted = fates.filter((f) => teams.has(f.team));
  const trials = await mapLimit(wanted, options.concurrency ?? 4, async (fate): Promise<GalleryTrial> => {
    const c = cell(fate.team, fate.letter);
    const image = c.images.get(fate.trial);
    const trial: GalleryTrial = { team: fate.team, letter: fate.letter, trial: fate.trial };
    const stability = c.stability.get(fate.trial);
    const similarity = c.similarity.get(fate.trial);
    if (stability !== undefined) trial.stability = stability;
    if (similarity !== undefined) trial.similarity = similarity;
    if (fate.reason !== '' || image === undefined) {
      trial.reason = fate.reason || 'no image';
      return trial;
    }
    const path = join(stageDir(dir, fate.team, 'images', fate.letter), image);
    trial.image = image;
    trial.imageHref = href(reportDir, path);
    try {
      trial.thumbnail = await thumbnailDataUri(path, cacheRoot);
    } catch (error) {
      const message = (error as Error).message;
      unreadable.push({ path, message });
      trial.reason = `image unreadable: ${message}`;
    }
    return trial;
  });
  return { gallery: { teams: options.teams, trials, thumbnailSize: THUMBNAIL_SIZE }, unreadable };
}

/** The same gallery with its image links made relative to another folder (e.g. the 2025 aggregate report's). */
export function rebaseGallery(gallery: Gallery, fromDir: string, toDir: string): Gallery {
  return {
    ...gallery,
    trials: gallery.trials.map((t) => (t.imageHref === undefined ? t : { ...t, imageHref: href(toDir, join(fromDir, ...t.imageHref.split('/'))) })),
  };
}
