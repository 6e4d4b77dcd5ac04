import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { describeError } from '../../core/errors.js';
import { sha256 } from '../../core/hash.js';
import { throwIfStorageFault } from '../../core/storage.js';
import { computeDiversity, type DiversityRules, diversityJson } from '../../scoring/diversity/diversity.js';
import { DEFAULT_DIVERSITY_TRIALS } from '../../scoring/formats/diversity.js';
import { parseSimilarityJson } from '../../scoring/formats/similarity.js';
import { DEFAULT_RULES, RULE_SETS } from '../../scoring/score/rules.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { listFiles, listTeams, type StageFilter, stageDir } from '../layout/competition.js';
import { StageLog, type StageSummary } from '../layout/stage-log.js';
import type { ProgressSink } from '../progress/types.js';
import { removeDerivation, writeDerivation } from './derivation.js';

/**
 * `sbeval diversity <root>`: the official diversity script (chatgpt4pcg/diversity-checking-script
 * `main.py`; reference/official-pipeline.md §6): for every team, every file of `<team>/similarity/`
 * (sorted), write `<team>/diversity/<C>.json` (C = the file name up to its first `.`).
 *
 * Beyond the official script: only `.json` files are read (anything else is ignored with a notice; the
 * script would crash on it), an unreadable similarity file is a recorded failure for that character,
 * atomic writes, and resumability: diversity is cheap to compute, so every file is computed and an
 * existing output with exactly that text is left alone (counted as already done) — a change of rules,
 * trial count or similarity file always shows.
 */
const DIVERSITY_STAGE = 'diversity';

export interface DiversityStageOptions {
  root: string;
  rules?: DiversityRules;
  /** Trials per letter N in the denominator N(N+1)/2 − N (the script's `--n_trial`, default 10). */
  trials?: number;
  filter?: StageFilter;
  force?: boolean;
  now?: () => Date;
}

interface Work {
  team: string;
  character: string;
  file: string;
  input: string;
  output: string;
}

/** The settings a diversity file depends on besides its similarity file. */
export function diversitySettings(rules: DiversityRules, trials: number): string {
  return JSON.stringify({ rules, trials });
}

/**
 * A diversity file whose similarity file is gone describes nothing on disk (a run from scratch has none):
 * removed with its record. Only in a team that has a `similarity/` folder at all.
 */
async function removeOrphans(root: string, team: string, work: readonly Work[], wanted: (c: string) => boolean, progress: ProgressSink): Promise<void> {
  if (!existsSync(stageDir(root, team, 'similarity'))) return;
  const kept = new Set(work.filter((w) => w.team === team).map((w) => `${w.character}.json`));
  for (const file of listFiles(stageDir(root, team, 'diversity'), '.json')) {
    const character = file.slice(0, -'.json'.length);
    if (kept.has(file) || !wanted(character) || existsSync(join(stageDir(root, team, 'similarity'), file))) continue;
    await rm(join(stageDir(root, team, 'diversity'), file), { force: true });
    await removeDerivation(root, 'diversity', team, character);
    progress.note(DIVERSITY_STAGE, `${team}/diversity/${file} removed: ${team}/similarity/${file} does not exist`);
  }
}

interface DiversitySummary extends StageSummary {
  /** Files of `similarity/` that are not JSON files (`<team>/similarity/<file>`): ignored, each logged. */
  ignored: string[];
}

/** Why a file of `similarity/` is ignored (its log line, its note, the summary's count: `ignoredLine`). */
export const NOT_JSON = 'not a JSON file';

export async function runDiversityStage(options: DiversityStageOptions, progress: ProgressSink): Promise<DiversitySummary> {
  const { root } = options;
  const rules = options.rules ?? RULE_SETS[DEFAULT_RULES].similarityFormat;
  const trials = options.trials ?? DEFAULT_DIVERSITY_TRIALS;
  const now = options.now ?? (() => new Date());
  const wanted = (list: readonly string[] | undefined, name: string) => !list || list.length === 0 || list.includes(name);
  const log = new StageLog(root, DIVERSITY_STAGE, now(), now);
  const work: Work[] = [];
  const ignored: string[] = [];
  for (const team of listTeams(root)) {
    if (!wanted(options.filter?.teams, team)) continue;
    const dir = stageDir(root, team, 'similarity');
    if (!existsSync(dir)) continue;
    // Official: sorted(os.walk names) — plain code-point order.
    const files = listFiles(dir).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const file of files) {
      if (extname(file).toLowerCase() !== '.json') {
        ignored.push(`${team}/similarity/${file}`);
        progress.note(DIVERSITY_STAGE, `ignoring ${team}/similarity/${file}: ${NOT_JSON}`);
        log.line(`Processing - team: ${team} - character: ${file} - Ignored - ${NOT_JSON}`);
        continue;
      }
      const character = file.split('.')[0] ?? file;
      if (!character || !wanted(options.filter?.characters, character)) continue;
      work.push({ team, character, file, input: join(dir, file), output: join(stageDir(root, team, 'diversity'), `${character}.json`) });
    }
  }

  for (const team of listTeams(root))
    if (wanted(options.filter?.teams, team)) await removeOrphans(root, team, work, (c) => wanted(options.filter?.characters, c), progress);
  const settings = diversitySettings(rules, trials);
  progress.start(DIVERSITY_STAGE, work.length);
  let lastTeam = '';
  for (const w of work) {
    const label = `${w.team}/${w.character}`;
    try {
      const input = await readFile(w.input, 'utf8');
      const similarity = parseSimilarityJson(input, w.input);
      const text = diversityJson(computeDiversity(similarity, rules, trials));
      // What the file was computed from, for `sbeval score` and `sbeval check` (stages/derivation.ts).
      const record = { inputs: [[w.file, sha256(input)]] as Array<[string, string]>, settings, output: sha256(text) };
      if (!options.force && (await readFile(w.output, 'utf8').catch(() => undefined)) === text) {
        await writeDerivation(root, 'diversity', w.team, w.character, record);
        log.skipped();
        progress.tick(DIVERSITY_STAGE, 'skipped', label);
        continue;
      }
      if (w.team !== lastTeam) {
        log.line(`Processing - team: ${w.team}`);
        lastTeam = w.team;
      }
      await writeFileAtomic(w.output, text);
      await writeDerivation(root, 'diversity', w.team, w.character, record);
      log.trial(w.team, w.character, w.file, { ok: true });
      progress.tick(DIVERSITY_STAGE, 'ok', label);
    } catch (error) {
      throwIfStorageFault(error); // the disk's fault, not the letter's: stop (core/storage.ts)
      const reason = `Diversity not computed: ${describeError(error)}`;
      log.trial(w.team, w.character, w.file, { ok: false, reason });
      progress.tick(DIVERSITY_STAGE, 'failed', label, reason);
    }
  }
  progress.end(DIVERSITY_STAGE);
  return { ...log.result(), stage: DIVERSITY_STAGE, ignored };
}
