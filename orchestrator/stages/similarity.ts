import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { describeError, SbevalError } from '../../core/errors.js';
import { largeFileSha256, sha256 } from '../../core/hash.js';
import { throwIfStorageFault } from '../../core/storage.js';
import { type ImageClassification, similarityFile, writeSimilarityJson } from '../../scoring/formats/similarity.js';
import { DEFAULT_RULES, RULE_SETS, ruleSetChoice, SIMILARITY_FORMATS, type SimilarityFormat } from '../../scoring/score/rules.js';
import type { Classification, ClassifierStats } from '../../scoring/similarity/classifier.js';
import { letterProbabilities } from '../../scoring/similarity/probabilities.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { listCharacters, listFiles, listTeams, type StageFilter, stageDir } from '../layout/competition.js';
import { StageLog, type StageSummary } from '../layout/stage-log.js';
import type { ProgressSink } from '../progress/types.js';
import { ImageClassifier } from '../similarity/image-classifier.js';
import { PreprocessError } from '../similarity/prepare-pool.js';
import { isCurrent, readDerivation, removeDerivation, writeDerivation } from './derivation.js';
import { readModelInfo } from './model.js';

/**
 * `sbeval similarity <root>`: the official similarity script (chatgpt4pcg/similarity-checking-script
 * `main.py`; reference/official-pipeline.md §5) over the competition layout: for every team and character
 * folder of `images/`, classify every image except `*_raw.png` and write `<team>/similarity/<C>.json`
 * in the official format (scoring/formats/similarity.ts) — with `cls_embedding` under the 2025 rules.
 *
 * Beyond the official script: images in trial order (the script takes the directory's order), a file that
 * is not a PNG is ignored with a notice (the script would crash on it), an unreadable PNG is recorded as
 * a failed trial and left out of the file, one ONNX session for the run, images decoded in worker threads
 * while the session runs, identical images inferred once (orchestrator/similarity/), atomic writes, and
 * resumability keyed by content: a letter is skipped when its record (stages/derivation.ts) holds the
 * same images, byte for byte, the same model file and rules, and the JSON still holds what was written.
 * A letter without images gets no file (one left from earlier images is removed).
 */
export type SimilarityRules = SimilarityFormat;
const SIMILARITY_STAGE = 'similarity';

export interface SimilarityStageOptions {
  root: string;
  /** Path of the ONNX model (`sbeval model convert|fetch`). */
  model: string;
  rules?: SimilarityRules;
  /** Images per session run (default: one per core). */
  batchSize?: number;
  /** onnxruntime intra-op threads (0 = one per physical core). */
  threads?: number;
  /** Preprocessing worker threads (default: one per 4 cores, at least one; 0 = in this thread). */
  prepareWorkers?: number;
  /**
   * A classifier the caller owns and keeps open (`sbeval run` shares one over every folder, so identical
   * images are inferred once per run); `model`'s file must be the one it was opened on. A function is
   * called only when there is work, and may give none (then the stage opens its own).
   */
  classifier?: ImageClassifier | (() => Promise<ImageClassifier | undefined>) | undefined;
  filter?: StageFilter;
  force?: boolean;
  now?: () => Date;
}

export interface SimilaritySummary extends StageSummary {
  classifier: ClassifierStats;
  /** Files of `images/` that are not PNG images (`<team>/images/<C>/<file>`): ignored, each logged. */
  ignored: string[];
}

/** Why a file of `images/` is ignored (its log line, its note, the summary's count: `ignoredLine`). */
export const NOT_PNG = 'not a PNG image';

interface CharacterWork {
  team: string;
  character: string;
  dir: string;
  images: string[];
  output: string;
  /** The images' names and content hashes (the letter's derivation inputs). */
  inputs?: Array<[string, string]>;
}

/** Official: every file of the folder except names ending `_raw.png` (the evaluator's raw screenshots). */
export function isRawImage(file: string): boolean {
  return file.endsWith('_raw.png');
}

/** The settings a similarity file depends on besides its images: the model's bytes and the rules (2025 adds cls_embedding). */
function similaritySettings(modelSha256: string, rules: SimilarityRules): string {
  return JSON.stringify({ model: modelSha256, rules });
}

/** The images of a letter as a derivation's inputs: file names with the sha256 of their bytes, in listing order. */
async function imageInputs(dir: string, images: readonly string[]): Promise<Array<[string, string]>> {
  return Promise.all(images.map(async (image): Promise<[string, string]> => [image, sha256(await readFile(join(dir, image)))]));
}

/**
 * A letter's similarity file that no longer has images (its levels were removed, or none loads) describes
 * nothing on disk: removed with its record, as a run from scratch would have none. Only in a team whose
 * images come from sbeval's own stages (it has `levels/` or `images/`); a folder of official per-letter files
 * alone is left as it is.
 */
async function removeImageless(
  root: string,
  team: string,
  withImages: ReadonlySet<string>,
  wanted: (c: string) => boolean,
  progress: ProgressSink,
): Promise<void> {
  if (!existsSync(stageDir(root, team, 'levels')) && !existsSync(stageDir(root, team, 'images'))) return;
  for (const file of listFiles(stageDir(root, team, 'similarity'), '.json')) {
    const character = file.slice(0, -'.json'.length);
    if (!/^[A-Z]$/.test(character) || withImages.has(character) || !wanted(character)) continue;
    await rm(join(stageDir(root, team, 'similarity'), file), { force: true });
    await removeDerivation(root, 'similarity', team, character);
    progress.note(SIMILARITY_STAGE, `${team}/similarity/${file} removed: ${team}/images/${character} holds no image`);
  }
}

/** What every step of one similarity stage shares. */
interface SimilarityRun {
  root: string;
  rules: SimilarityRules;
  /** The model's labels and output names. */
  info: ReturnType<typeof readModelInfo>;
  /** The settings digest a letter's record must hold to be current (`similaritySettings`). */
  settings: string;
  log: StageLog;
  progress: ProgressSink;
}

function wanted(list: readonly string[] | undefined, name: string): boolean {
  return !list || list.length === 0 || list.includes(name);
}

/** The PNG images of one letter in trial order; other files are ignored with a notice, `*_raw.png` silently. */
function letterImages(root: string, team: string, character: string, log: StageLog, progress: ProgressSink, ignored: string[]): string[] {
  const images: string[] = [];
  for (const file of listFiles(stageDir(root, team, 'images', character))) {
    if (isRawImage(file)) continue;
    if (extname(file).toLowerCase() !== '.png') {
      ignored.push(`${team}/images/${character}/${file}`);
      progress.note(SIMILARITY_STAGE, `ignoring ${team}/images/${character}/${file}: ${NOT_PNG}`);
      log.line(`Processing - team: ${team} - character: ${character} - trial: ${file} - Ignored - ${NOT_PNG}`);
      continue;
    }
    images.push(file);
  }
  return images;
}

/** Every letter (of the filter) that has images, team by team; letters' similarity files left without images are removed. */
async function collectWork(
  options: SimilarityStageOptions,
  teams: readonly string[],
  log: StageLog,
  progress: ProgressSink,
  ignored: string[],
): Promise<CharacterWork[]> {
  const { root } = options;
  const work: CharacterWork[] = [];
  for (const team of teams) {
    if (!wanted(options.filter?.teams, team)) continue;
    const withImages = new Set<string>();
    for (const character of existsSync(stageDir(root, team, 'images')) ? listCharacters(root, team, 'images') : []) {
      if (!wanted(options.filter?.characters, character)) continue;
      const images = letterImages(root, team, character, log, progress, ignored);
      if (images.length === 0) continue;
      withImages.add(character);
      work.push({
        team,
        character,
        dir: stageDir(root, team, 'images', character),
        images,
        output: join(stageDir(root, team, 'similarity'), `${character}.json`),
      });
    }
    await removeImageless(root, team, withImages, (c) => wanted(options.filter?.characters, c), progress);
  }
  return work;
}

/** The letters whose file is not current (or all, with `force`); current ones are ticked as skipped. */
async function pendingWork(run: SimilarityRun, work: readonly CharacterWork[], force: boolean | undefined): Promise<CharacterWork[]> {
  const todo: CharacterWork[] = [];
  for (const w of work) {
    w.inputs = await imageInputs(w.dir, w.images);
    if (!force && isCurrent(readDerivation(run.root, 'similarity', w.team, w.character), w.inputs, run.settings, w.output)) {
      run.log.skipped(w.images.length);
      for (const image of w.images) run.progress.tick(SIMILARITY_STAGE, 'skipped', `${w.team}/${w.character}/${image}`);
    } else todo.push(w);
  }
  return todo;
}

/** The caller's shared classifier when it gives one, else one opened for this stage. */
async function openClassifier(options: SimilarityStageOptions, info: SimilarityRun['info']): Promise<{ classifier: ImageClassifier; shared: boolean }> {
  const shared = typeof options.classifier === 'function' ? await options.classifier() : options.classifier;
  const classifier =
    shared ??
    (await ImageClassifier.open({
      model: options.model,
      info,
      ...(options.threads !== undefined ? { threads: options.threads } : {}),
      ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
      ...(options.prepareWorkers !== undefined ? { prepareWorkers: options.prepareWorkers } : {}),
    }).catch((error: unknown) => {
      throw new SbevalError('similarity', describeError(error));
    }));
  return { classifier, shared: Boolean(shared) };
}

/** Writes one letter's similarity file and record from its images' outcomes, and logs each image. */
async function writeLetter(run: SimilarityRun, w: CharacterWork, prepared: readonly FileOutcome[]): Promise<void> {
  const { log, progress } = run;
  const classified: ImageClassification[] = [];
  for (const p of prepared) {
    const label = `${w.team}/${w.character}/${p.image}`;
    if ('error' in p) {
      log.trial(w.team, w.character, p.image, { ok: false, reason: p.error });
      progress.tick(SIMILARITY_STAGE, 'failed', label, p.error);
      continue;
    }
    const r = p.result;
    classified.push({
      id: p.image,
      probabilities: letterProbabilities(run.info.labels, r.probabilities),
      ...(SIMILARITY_FORMATS[run.rules].clsEmbedding ? { clsEmbedding: r.cls! } : {}),
    });
  }
  try {
    const text = writeSimilarityJson(similarityFile(w.character, classified));
    await writeFileAtomic(w.output, text);
    // An image that cannot be decoded is left out of the file, and would be again: its bytes are in the key.
    await writeDerivation(run.root, 'similarity', w.team, w.character, { inputs: w.inputs ?? [], settings: run.settings, output: sha256(text) });
    for (const c of classified) {
      log.trial(w.team, w.character, c.id, { ok: true });
      progress.tick(SIMILARITY_STAGE, 'ok', `${w.team}/${w.character}/${c.id}`);
    }
  } catch (error) {
    throwIfStorageFault(error); // the disk's fault, not the letter's: stop (core/storage.ts)
    const reason = `Similarity file not written: ${describeError(error)}`;
    for (const c of classified) {
      log.trial(w.team, w.character, c.id, { ok: false, reason });
      progress.tick(SIMILARITY_STAGE, 'failed', `${w.team}/${w.character}/${c.id}`, reason);
    }
  }
}

/**
 * Every image of every letter is handed over at once, in order, through a window that bounds the tensors
 * in memory; the files are written letter by letter, in order, as their images finish.
 */
async function classifyLetters(run: SimilarityRun, classifier: ImageClassifier, todo: readonly CharacterWork[]): Promise<void> {
  if (SIMILARITY_FORMATS[run.rules].clsEmbedding && !classifier.hasCls) {
    const withCls = (r: { similarityFormat: SimilarityFormat }) => SIMILARITY_FORMATS[r.similarityFormat].clsEmbedding;
    throw new SbevalError(
      'similarity',
      `the model has no "${run.info.clsName}" output, which the ${ruleSetChoice(withCls)} rules store as cls_embedding`,
      `convert the model with \`sbeval model convert\`, or use --rules ${ruleSetChoice((r) => !withCls(r))}`,
    );
  }
  const limit = new Window(Math.max(16, classifier.batchSize * 4));
  const outcomes = todo.map((w) => w.images.map((image) => limit.run(() => classifyFile(classifier, w, image))));
  // Handled in order below; without this a model failure while an earlier character is written would be
  // an unhandled rejection.
  for (const list of outcomes) for (const o of list) o.catch(() => undefined);
  let lastTeam = '';
  for (const [index, w] of todo.entries()) {
    if (w.team !== lastTeam) {
      run.log.line(`Processing - team: ${w.team}`);
      lastTeam = w.team;
    }
    run.log.line(`Processing - team: ${w.team} - character: ${w.character}`);
    await writeLetter(run, w, await Promise.all(outcomes[index]!));
  }
}

export async function runSimilarityStage(options: SimilarityStageOptions, progress: ProgressSink): Promise<SimilaritySummary> {
  const { root } = options;
  const rules = options.rules ?? RULE_SETS[DEFAULT_RULES].similarityFormat;
  const now = options.now ?? (() => new Date());
  const teams = listTeams(root);
  if (!existsSync(options.model))
    throw new SbevalError('similarity', `model ${options.model} not found`, 'create it with `sbeval model fetch` or `sbeval model convert`');
  const info = readModelInfo(options.model);
  const log = new StageLog(root, SIMILARITY_STAGE, now(), now);
  const ignored: string[] = [];
  const work = await collectWork(options, teams, log, progress, ignored);

  const total = work.reduce((n, w) => n + w.images.length, 0);
  progress.start(SIMILARITY_STAGE, total);
  const run: SimilarityRun = { root, rules, info, settings: similaritySettings(await largeFileSha256(options.model), rules), log, progress };
  const todo = await pendingWork(run, work, options.force);
  if (todo.length === 0) {
    progress.end(SIMILARITY_STAGE);
    return { ...log.result(), stage: SIMILARITY_STAGE, classifier: { requested: 0, inferred: 0, runs: 0 }, ignored };
  }

  const { classifier, shared } = await openClassifier(options, info);
  const before = classifier.statistics();
  try {
    await classifyLetters(run, classifier, todo);
  } catch (error) {
    if (error instanceof SbevalError) throw error;
    throw new SbevalError('similarity', describeError(error));
  } finally {
    if (!shared) await classifier.close();
  }
  const after = classifier.statistics();
  progress.end(SIMILARITY_STAGE);
  return {
    ...log.result(),
    stage: SIMILARITY_STAGE,
    classifier: { requested: after.requested - before.requested, inferred: after.inferred - before.inferred, runs: after.runs - before.runs },
    ignored,
  };
}

type FileOutcome = { image: string; result: Classification } | { image: string; error: string };

/** One image file: its classification, or why it could not be read (a failed trial); a model failure throws. */
async function classifyFile(classifier: ImageClassifier, work: CharacterWork, image: string): Promise<FileOutcome> {
  let png: Uint8Array;
  try {
    png = await readFile(join(work.dir, image));
  } catch (error) {
    throwIfStorageFault(error); // a forbidden or failing disk is not the image's fault: stop (core/storage.ts)
    return { image, error: `Image could not be read: ${describeError(error)}` };
  }
  try {
    return { image, result: await classifier.classifyPng(png) };
  } catch (error) {
    if (error instanceof PreprocessError) return { image, error: `Image could not be read: ${error.message}` };
    throw error;
  }
}

/** At most `size` tasks at once, started in the order they were asked for. */
class Window {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly size: number) {}
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    try {
      return await task();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }
}
