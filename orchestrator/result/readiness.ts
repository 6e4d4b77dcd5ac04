import { existsSync, readFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { fileSha256Sync, sha256 } from '../../core/hash.js';
import { extractCode } from '../../levels/extract.js';
import { convertProgram } from '../../levels/pipeline.js';
import { parseSimilarityJson } from '../../scoring/formats/similarity.js';
import { RULE_SETS } from '../../scoring/score/rules.js';
import type { Rules } from '../config/schema.js';
import { listCharacters, listFiles, listTeams, type Stage, stageDir, trialBaseName } from '../layout/competition.js';
import { readDerivation } from '../stages/derivation.js';
import { diversitySettings } from '../stages/diversity.js';
import { levelCacheFolder, readLevelCacheIn, type SimulationIdentity } from '../stages/level-cache.js';
import { isRawImage } from '../stages/similarity.js';
import { stabilityFileText } from '../stages/simulate.js';
import { transformDigest } from '../stages/transform-memo.js';
import { officialBaseName } from '../stages/trial-transform.js';

/**
 * What the folder as it is can support: a ranking needs every stage file to be what its inputs give now.
 * `sbeval score` and `sbeval run` ask the same question, so neither ranks a folder without similarity
 * files or beside levels that changed since its stage files were written. Each blocker names a file and what to run.
 *
 * Only what sbeval can know is checked. Along the trial chain (response → program → level → result →
 * image) a stage file must be what the stage makes of its input now — the pure extraction and conversion
 * are cheap to redo, a level's result is its cache at `.sbeval/simulate/` (keyed by the XML's hash and
 * the simulation settings digest: a result computed under other settings than the command's is not one). A
 * per-letter file must match its inputs: stability its levels' results, similarity its images (by the
 * hashes its record holds, stages/derivation.ts, or by image names for a file sbeval did not write),
 * diversity its similarity file and T. A stage file without sbeval's own record — the official tools'
 * outputs, a folder of per-letter files alone — is taken as it is.
 */
export interface Blocker {
  /** The file (relative to the root) that does not match, or is missing. */
  path: string;
  reason: string;
}

export interface ReadinessOptions {
  root: string;
  /** The competition folders: the root, or one per model (settings.competitions). */
  competitions: ReadonlyArray<{ root: string }>;
  /** The competition's letters (the config's); undefined: every letter with files. */
  letters?: readonly string[] | undefined;
  prefix: string;
  rules: Rules;
  trials: number;
  /**
   * The simulation settings the levels' results must have been computed with (stages/simulate.ts
   * `simulationIdentity`): the command's own, so one ranking never mixes results of other settings.
   */
  simulation: SimulationIdentity;
}

type Add = (path: string, reason: string) => void;

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

const letterOf = (file: string) => (/^[A-Z]\.json$/.test(file) ? file[0]! : undefined);

type TrialFolder = 'raw' | 'intermediate' | 'levels' | 'images';

interface LetterContext {
  dir: string;
  team: string;
  character: string;
  add: Add;
  options: ReadinessOptions;
  /**
   * The letter's trial folders and its level caches' folder, resolved once: each resolution checks every
   * folder on the way (lstat), which per file cost more than the check itself.
   */
  folders: Record<TrialFolder, string> & { caches: string };
}

function letterContext(dir: string, team: string, character: string, add: Add, options: ReadinessOptions): LetterContext {
  const folder = (stage: Stage) => stageDir(dir, team, stage, character);
  const folders = {
    raw: folder('raw'),
    intermediate: folder('intermediate'),
    levels: folder('levels'),
    images: folder('images'),
    caches: levelCacheFolder(dir, team, character),
  };
  return { dir, team, character, add, options, folders };
}

const path = (c: LetterContext, stage: TrialFolder, file?: string) => (file === undefined ? c.folders[stage] : join(c.folders[stage], file));

/** The sha256 of a file's text, undefined when it cannot be read. */
const textSha = (path: string) => {
  const text = readText(path);
  return text === undefined ? undefined : sha256(text);
};

/**
 * Responses → programs → levels: each output is what the official stage makes of its input now. The
 * outputs are compared by content digest with what the transform gives (stages/transform-memo.ts: in
 * `sbeval run` the stages just computed it, so no trial is extracted or converted a second time).
 */
function checkTransforms(c: LetterContext): void {
  const { prefix } = c.options;
  for (const file of listFiles(path(c, 'raw'))) {
    const base = officialBaseName(file);
    if (base === undefined) continue;
    const code = transformDigest('extract', prefix, readText(path(c, 'raw', file)) ?? '', (text) => extractCode(text, prefix));
    const program = textSha(path(c, 'intermediate', `${base}.txt`));
    if (program !== (code ?? undefined))
      c.add(
        path(c, 'raw', file),
        program === undefined ? 'responses not extracted yet (run sbeval extract)' : 'responses changed since they were extracted (run sbeval extract)',
      );
  }
  for (const file of listFiles(path(c, 'intermediate'))) {
    const base = officialBaseName(file);
    if (base === undefined) continue;
    const xml = transformDigest('convert', prefix, readText(path(c, 'intermediate', file)) ?? '', (program) => {
      const converted = convertProgram(program, { prefix });
      return converted.ok ? converted.xml : null;
    });
    const level = textSha(path(c, 'levels', `${base}.xml`));
    if (level !== (xml ?? undefined))
      c.add(
        path(c, 'intermediate', file),
        level === undefined ? 'programs not converted yet (run sbeval convert)' : 'programs changed since they were converted (run sbeval convert)',
      );
  }
}

/** Levels → results and images → the letter's stability file. */
function checkLevels(c: LetterContext): void {
  const levels = listFiles(path(c, 'levels'), '.xml');
  const stability = join(stageDir(c.dir, c.team, 'stability'), `${c.character}.json`);
  const caches = levels.map((file) => ({ file, cache: readLevelCacheIn(c.folders.caches, file) }));
  if (levels.length === 0) {
    if (existsSync(stageDir(c.dir, c.team, 'levels')) && existsSync(stability))
      c.add(stability, 'stability files of letters without levels (run sbeval simulate)');
    return;
  }
  // Results from elsewhere (the Unity evaluator): the stability file must be there; sbeval cannot judge it.
  if (caches.every((x) => x.cache === undefined)) {
    if (!existsSync(stability)) c.add(stability, 'stability files missing: the levels are not simulated (run sbeval simulate)');
    return;
  }
  let complete = true;
  const simulation = c.options.simulation;
  for (const { file, cache } of caches) {
    const level = path(c, 'levels', file);
    if (!cache || cache.xmlSha256 !== sha256(readText(level) ?? '')) {
      complete = false;
      c.add(level, cache ? 'levels changed since they were simulated (run sbeval simulate)' : 'levels not simulated yet (run sbeval simulate)');
    } else if (cache.settings !== simulation.digest) {
      complete = false;
      c.add(level, `levels simulated with other simulation settings than these (${simulation.label}) (run sbeval simulate with these settings)`);
    } else if (cache.outcome.ok !== existsSync(path(c, 'images', `${trialBaseName(file)}.png`))) {
      c.add(
        path(c, 'images', `${trialBaseName(file)}.png`),
        cache.outcome.ok
          ? 'images of simulated levels missing (run sbeval simulate)'
          : 'images left from before their level failed to load (run sbeval simulate)',
      );
    }
  }
  if (!complete) return;
  const expected = stabilityFileText(
    c.team,
    c.character,
    caches.map(({ file, cache }) => ({ file, outcome: cache!.outcome })),
  );
  if (readText(stability) !== expected)
    c.add(
      stability,
      existsSync(stability) ? "stability files that do not match their levels' results (run sbeval simulate)" : 'stability files missing (run sbeval simulate)',
    );
}

/** Images → the letter's similarity file. */
function checkSimilarity(c: LetterContext): boolean {
  const file = join(stageDir(c.dir, c.team, 'similarity'), `${c.character}.json`);
  const levels = new Set(listFiles(path(c, 'levels'), '.xml').map(trialBaseName));
  const hasLevels = existsSync(stageDir(c.dir, c.team, 'levels'));
  const images = listFiles(path(c, 'images')).filter((f) => !isRawImage(f) && extname(f).toLowerCase() === '.png');
  for (const image of images)
    if (hasLevels && !levels.has(trialBaseName(image))) c.add(path(c, 'images', image), 'images whose level is gone (run sbeval simulate)');
  if (images.length === 0) {
    if (existsSync(file) && (hasLevels || existsSync(stageDir(c.dir, c.team, 'images'))))
      c.add(file, 'similarity files of letters without images (run sbeval similarity)');
    return existsSync(file);
  }
  if (!existsSync(file)) {
    c.add(path(c, 'images'), 'images without a similarity file (run sbeval similarity with a model)');
    return false;
  }
  const record = readDerivation(c.dir, 'similarity', c.team, c.character);
  if (record && record.output === fileSha256Sync(file)) {
    const now = images.map((image): [string, string] => [image, fileSha256Sync(path(c, 'images', image)) ?? '']);
    const same = now.length === record.inputs.length && now.every(([name, sha], i) => record.inputs[i]![0] === name && record.inputs[i]![1] === sha);
    if (!same) c.add(file, 'similarity files computed from other images (run sbeval similarity with a model)');
    return true;
  }
  try {
    const ids = parseSimilarityJson(readText(file) ?? '', file)
      .similarities.map((s) => s.id)
      .sort();
    if (ids.join('\n') !== [...images].sort().join('\n'))
      c.add(file, 'similarity files that list other images than the folder holds (run sbeval similarity with a model)');
  } catch {
    // An unreadable file is the score's own warning (it counts as missing there).
  }
  return true;
}

/** The similarity file → the letter's diversity file (2024 and 2025 rules). */
function checkDiversity(c: LetterContext, hasSimilarity: boolean): void {
  const similarity = join(stageDir(c.dir, c.team, 'similarity'), `${c.character}.json`);
  const file = join(stageDir(c.dir, c.team, 'diversity'), `${c.character}.json`);
  if (!hasSimilarity) {
    if (existsSync(file) && existsSync(stageDir(c.dir, c.team, 'similarity'))) c.add(file, 'diversity files without a similarity file (run sbeval diversity)');
    return;
  }
  // A hole in a folder of official per-letter files is the score's own warning (it counts 0); after
  // sbeval's similarity stage (its record is there) the diversity stage simply has not run yet.
  if (!existsSync(file)) {
    if (readDerivation(c.dir, 'similarity', c.team, c.character)) c.add(file, 'diversity files missing (run sbeval diversity)');
    return;
  }
  const record = readDerivation(c.dir, 'diversity', c.team, c.character);
  if (!record || record.output !== fileSha256Sync(file)) return;
  const settings = diversitySettings(RULE_SETS[c.options.rules].similarityFormat, c.options.trials);
  if (record.inputs[0]?.[1] !== fileSha256Sync(similarity)) c.add(file, 'diversity files computed from another similarity file (run sbeval diversity)');
  else if (record.settings !== settings) c.add(file, `diversity files computed with other rules or T than ${settings} (run sbeval diversity)`);
}

/** Letters of a team with files in any stage (or the competition's letters). */
function lettersOf(dir: string, team: string, letters: readonly string[] | undefined): string[] {
  if (letters) return [...letters];
  const found = new Set<string>();
  for (const stage of ['raw', 'intermediate', 'levels', 'images'] as const) for (const letter of listCharacters(dir, team, stage)) found.add(letter);
  for (const stage of ['stability', 'similarity', 'diversity'] as const)
    for (const file of listFiles(stageDir(dir, team, stage))) if (letterOf(file)) found.add(letterOf(file)!);
  return [...found].sort();
}

/** Every reason the folder cannot be scored now; empty when it can. */
export function scoreBlockers(options: ReadinessOptions): Blocker[] {
  const blockers: Blocker[] = [];
  const add: Add = (file, reason) => blockers.push({ path: relative(options.root, file) || file, reason });
  let similarityFiles = 0;
  for (const { root: dir } of options.competitions) {
    for (const team of listTeams(dir)) {
      for (const character of lettersOf(dir, team, options.letters)) {
        const c = letterContext(dir, team, character, add, options);
        checkTransforms(c);
        checkLevels(c);
        const hasSimilarity = checkSimilarity(c);
        if (hasSimilarity) similarityFiles += 1;
        if (RULE_SETS[options.rules].diversity) checkDiversity(c, hasSimilarity);
      }
    }
  }
  if (similarityFiles === 0 && blockers.length === 0)
    blockers.push({ path: '.', reason: 'no similarity file in any team: nothing to score (run sbeval similarity with a model)' });
  return blockers;
}

/** Whether a letter's similarity file is there and current for its images (the trial accounting's similarity column). */
export function similarityIsCurrent(
  dir: string,
  team: string,
  character: string,
  options: Omit<ReadinessOptions, 'root' | 'competitions' | 'letters' | 'simulation'>,
): boolean {
  let current = true;
  // The similarity file's check reads no level result: the simulation settings play no part in it.
  const c = letterContext(dir, team, character, () => (current = false), { ...options, root: dir, competitions: [], simulation: { digest: '', label: '' } });
  return checkSimilarity(c) && current;
}

/** One line for a refusal: the first kinds of problem with their first files, and how many more. */
export function blockerLine(blockers: readonly Blocker[], shown = 2): string {
  const groups = new Map<string, string[]>();
  for (const b of blockers) groups.set(b.reason, [...(groups.get(b.reason) ?? []), b.path]);
  const parts = [...groups].slice(0, shown).map(([reason, paths]) => {
    const named = paths.filter((p) => p !== '.');
    return named.length === 0 ? reason : `${reason}: ${named.slice(0, 2).join(', ')}${named.length > 2 ? ` and ${named.length - 2} more` : ''}`;
  });
  const rest = [...groups].slice(shown).reduce((n, [, paths]) => n + paths.length, 0);
  return `${parts.join('; ')}${rest > 0 ? `; and ${rest} more problem(s)` : ''}`;
}
