import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { convertProgram } from '../../levels/pipeline.js';
import type { ResolvedSubmission } from '../../orchestrator/config/index.js';
import { writeFileAtomic } from '../../orchestrator/layout/atomic.js';
import { compareNames, listFiles, resultDir } from '../../orchestrator/layout/competition.js';
import { RULE_SETS, type RuleSetName } from '../../scoring/score/rules.js';
import { fillObject, loadSubmission } from '../generate/submission.js';
import { readLevelScores } from '../judges/level-scores.js';
import { type JudgedLevel, type LevelFilter, listJudgedLevels } from '../judges/levels.js';
import { gridView } from '../judges/scoring/grid-view.js';
import { mixSeed, seededShuffle } from '../judges/scoring/schedule.js';
import type { SurveyMetrics } from './metric-schema.js';
import type { PublicItem } from './page-data.js';
import { startImagePng } from './start-image.js';

/**
 * `sbeval survey build`: a human rating survey from a competition folder, after the reference's
 * survey (reference/judges/human-survey.md) with Science Birds in place of the text adventure. Per
 * item (one level):
 * - starting state: the level as dropped (t = 0) drawn like the evaluator's image, its drop grid, and
 *   the target letter;
 * - history: the prompt (or chat turns) the team sent, when the folder's config names the
 *   submission or `--prompts` holds `<team>.txt`, and the raw response;
 * - target: the final image after 10 s of physics, and a replay in the viewer (served on demand).
 * Items are every level with a level XML, or a seeded sample (`--sample N`) stratified by team ×
 * letter (stratifiedSample: every team and letter as evenly represented as the folder allows). Written to
 * `<out>/survey.json` with the pictures in `<out>/assets/`; `<out>` defaults to
 * `<root>/result/survey/`. Raters' answers go to `<out>/answers/<rater>/<item>.json` (survey serve).
 */
export interface SurveyItem extends PublicItem {
  team: string;
  trial: number;
  name: string;
  /** The level XML, relative to the competition root (the replay simulates it). */
  level: string;
  stability: number | null;
  similarity: number | null;
}

export interface SurveyFile {
  version: 1;
  title: string;
  instructions: string;
  seed: number;
  /** The competition root, relative to the survey folder. */
  root: string;
  metrics: SurveyMetrics['metrics'];
  items: SurveyItem[];
}

interface SurveyBuildOptions {
  root: string;
  out: string;
  filter: LevelFilter;
  metrics: SurveyMetrics;
  sample: number | undefined;
  seed: number;
  prefix: string;
  rules: RuleSetName;
  submissions: readonly ResolvedSubmission[];
  promptsDir: string | undefined;
  force: boolean;
}

export function defaultSurveyDir(root: string): string {
  return join(resultDir(root), 'survey');
}

/** The conversation that produced a team's responses for one letter, as far as the folder knows it. */
function historyFor(team: string, letter: string, options: SurveyBuildOptions): { messages: Array<{ role: string; content: string }>; note: string | null } {
  const style = RULE_SETS[options.rules].objectStyle;
  const configured = options.submissions.find((s) => s.team === team);
  if (configured) {
    const submission = loadSubmission(configured.file);
    if (submission.kind === 'program')
      return {
        messages: [],
        note: `The team's program (${submission.source}) talked to the model; its conversation was not recorded. Only its final response is shown.`,
      };
    const messages = [
      ...(submission.system ? [{ role: 'system', content: fillObject(submission.system, letter, submission.objectStyle) }] : []),
      ...submission.turns.map((t) => ({ role: 'user', content: fillObject(t, letter, submission.objectStyle) })),
    ];
    return {
      messages,
      note: submission.turns.length > 1 ? 'A multi-turn chat: the model answered every turn; only its last answer was kept, shown below.' : null,
    };
  }
  if (options.promptsDir) {
    const files = listFiles(options.promptsDir).filter((f) => f === `${team}.txt`);
    if (files.length > 0)
      return { messages: [{ role: 'user', content: fillObject(readFileSync(join(options.promptsDir, files[0]!), 'utf8'), letter, style) }], note: null };
  }
  return { messages: [], note: 'The prompt is not recorded in this folder; only the response is shown.' };
}

export async function buildSurvey(options: SurveyBuildOptions): Promise<{ file: string; items: number; available: number }> {
  const { root, out } = options;
  const surveyFile = join(out, 'survey.json');
  if (existsSync(surveyFile) && !options.force) {
    throw new SbevalError(
      'survey',
      `${surveyFile} exists`,
      'a survey that raters may have started is never replaced silently: pass --force, or --out another folder',
    );
  }
  const all = listJudgedLevels(root, options.filter).filter((l): l is JudgedLevel & { level: string } => l.level !== undefined);
  if (all.length === 0) throw new SbevalError('input', `no levels in ${root}`, 'run `sbeval run` (or extract and convert) first');
  if (options.sample !== undefined && options.sample < 1) throw new SbevalError('config', '--sample must be at least 1');
  const chosen = options.sample === undefined || options.sample >= all.length ? all : stratifiedSample(all, options.sample, options.seed);
  chosen.sort((a, b) => compareNames(a.team, b.team) || compareNames(a.character, b.character) || a.trial - b.trial);
  const scores = readLevelScores(root);
  const items: SurveyItem[] = [];
  const width = String(chosen.length).length;
  for (const [i, level] of chosen.entries()) {
    const id = `item-${String(i + 1).padStart(width, '0')}`;
    const xml = await readFile(level.level, 'utf8');
    const start = `assets/${id}-start.png`;
    await writeFileAtomic(join(out, start), await startImagePng(xml));
    let final: string | null = null;
    if (level.image) {
      final = `assets/${id}-final.png`;
      await writeFileAtomic(join(out, final), await readFile(level.image));
    }
    let grid: string | null = null;
    if (level.intermediate) {
      const converted = convertProgram(await readFile(level.intermediate, 'utf8'), { prefix: options.prefix });
      if (converted.ok) grid = gridView(converted.structure);
    }
    const history = historyFor(level.team, level.character, options);
    const response = level.raw ? await readFile(level.raw, 'utf8') : undefined;
    const s = scores.get(`${level.team}/${level.character}/${level.name}`);
    items.push({
      id,
      team: level.team,
      letter: level.character,
      trial: level.trial,
      name: level.name,
      start,
      final,
      grid,
      history: [...history.messages, ...(response !== undefined ? [{ role: 'assistant', content: response }] : [])],
      historyNote: response === undefined ? [history.note, 'The raw response is not in this folder.'].filter(Boolean).join(' ') : history.note,
      level: relative(root, level.level).split('\\').join('/'),
      stability: s?.stability ?? null,
      similarity: s?.similarity ?? null,
    });
  }
  const survey: SurveyFile = {
    version: 1,
    title: options.metrics.title,
    instructions: options.metrics.instructions,
    seed: options.seed,
    root: relative(out, root).split('\\').join('/') || '.',
    metrics: options.metrics.metrics,
    items,
  };
  await writeFileAtomic(surveyFile, `${JSON.stringify(survey, null, 2)}\n`);
  return { file: surveyFile, items: items.length, available: all.length };
}

/**
 * `n` levels spread over the team × letter cells as evenly as they allow: each cell gets ⌊n / cells⌋
 * (or all it has), the rest goes one level at a time to the cells in a seeded order, round after
 * round, to cells that still have levels; within a cell, which levels is a seeded shuffle. A plain
 * random sample would let one team or letter fill most of a small survey.
 */
export function stratifiedSample<T extends { team: string; character: string }>(levels: readonly T[], n: number, seed: number): T[] {
  const cells = new Map<string, T[]>();
  for (const l of levels) {
    const key = `${l.team}\u0000${l.character}`;
    cells.set(key, [...(cells.get(key) ?? []), l]);
  }
  const keys = seededShuffle([...cells.keys()].sort(), mixSeed(seed, 'survey', 'cells'));
  const pools = new Map(keys.map((k) => [k, seededShuffle(cells.get(k)!, mixSeed(seed, 'survey', k))]));
  const taken = new Map(keys.map((k) => [k, Math.min(Math.floor(n / keys.length), pools.get(k)!.length)]));
  let left = n - [...taken.values()].reduce((a, b) => a + b, 0);
  while (left > 0) {
    const open = keys.filter((k) => taken.get(k)! < pools.get(k)!.length);
    if (open.length === 0) break;
    for (const k of open) {
      if (left === 0) break;
      taken.set(k, taken.get(k)! + 1);
      left -= 1;
    }
  }
  return keys.flatMap((k) => pools.get(k)!.slice(0, taken.get(k)!));
}

export function readSurvey(out: string): SurveyFile {
  const path = join(out, 'survey.json');
  if (!existsSync(path)) throw new SbevalError('survey', `no survey at ${path}`, 'build one first: sbeval survey build <root>');
  const survey = JSON.parse(readFileSync(path, 'utf8')) as SurveyFile;
  if (survey.version !== 1 || !Array.isArray(survey.items) || !Array.isArray(survey.metrics))
    throw new SbevalError('survey', `${path} is not an sbeval survey`);
  return survey;
}
