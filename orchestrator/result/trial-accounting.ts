import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSimilarityJson } from '../../scoring/formats/similarity.js';
import type { ReportSection } from '../../scoring/report/build.js';
import type { ScoreWarning } from '../../scoring/score/checks.js';
import type { CompetitionFolder, Settings } from '../config/index.js';
import { listFiles, stageDir, trialBaseName } from '../layout/competition.js';
import type { LevelOutcome } from '../machine/index.js';
import { failureSection, type SimilarityLookup, sortRows, type TrialRow, trialRow, trialsCsv } from '../run/accounting.js';
import { accountedLevels, fewerTrialsMessage } from '../run/levels.js';
import { observeLevel } from '../run/observe.js';
import { robustnessLookup } from '../run/robustness-stage.js';
import { simulationIdentity } from '../stages/level-cache.js';
import type { LevelRobustnessResult } from '../stages/robustness.js';
import { notUtf8Text } from '../stages/trial-transform.js';
import { ACCOUNTING_FILES } from './files.js';
import { similarityIsCurrent } from './readiness.js';

/**
 * Every trial's fate, from the folder as it is (`result/trials.csv`, `result/failures.md` and the
 * report's "Failure accounting" section): every team folder × the competition's letters × its trials
 * (run/levels.ts `accountedLevels`), each read from its files and the level's cache (run/observe.ts). So
 * `run`, `score` and a stage-by-stage folder account for the same trials with the same rows. The one
 * thing the folder does not hold is why a level a run worked on is still not done (an engine fault, a
 * level whose engine was retired for a lie): `run` hands its live outcomes, which name that reason for
 * a level the folder shows as not simulated yet; a later `score` reads "not simulated yet" for it.
 */
export interface TrialAccounting {
  rows: TrialRow[];
  section: ReportSection;
  /** `trials.csv` and `failures.md`, by name. */
  files: Map<string, string>;
  /** What the folder's trials say about the settings (fewer trials than the default T), listed in the report. */
  warnings: ScoreWarning[];
}

interface AccountingOptions {
  /** `--robustness N`: every level's perturbed runs (their columns in `trials.csv`). */
  robustness?: readonly LevelRobustnessResult[] | undefined;
  /** `run`: the outcomes of the levels it worked on. */
  outcomes?: readonly LevelOutcome[] | undefined;
}

export async function trialAccounting(settings: Settings, options: AccountingOptions = {}): Promise<TrialAccounting> {
  const digest = simulationIdentity(settings).digest;
  const live = new Map((options.outcomes ?? []).map((o) => [o.level.id, o]));
  const robustness = robustnessLookup(options.robustness ?? []);
  const rows: TrialRow[] = [];
  const warnings: ScoreWarning[] = [];
  for (const competition of settings.competitions) {
    if (!existsSync(competition.root)) continue;
    const lookup = similarityLookup(competition, settings);
    const levels = accountedLevels(settings, competition);
    const fewer = fewerTrialsMessage(settings, levels);
    if (fewer !== undefined) warnings.push({ code: 'run', message: `accounting: ${competition.model ? `${competition.model}: ` : ''}${fewer}` });
    // A trial numbered beyond T is not a trial of the competition (docs/result-folder.md "Trials beyond T").
    const beyond = levels.filter((l) => Number.isFinite(l.ref.trial) && l.ref.trial > settings.trials);
    if (beyond.length > 0)
      warnings.push({
        code: 'run',
        message: `accounting: ${beyondTMessage(
          beyond.map((l) => l.ref.id),
          settings.trials,
        )}`,
      });
    const notText: string[] = [];
    for (const level of levels) {
      if (Number.isFinite(level.ref.trial) && level.ref.trial > settings.trials) continue;
      const observed = await observeLevel(competition.root, level, settings.prefix, digest);
      // The folder says "not done yet": the run that worked on the level knows why.
      const outcome = observed.failure?.kind === 'pending' ? (live.get(level.ref.id) ?? observed) : observed;
      const row = { ...trialRow(outcome, lookup), robustness: robustness(level.ref) };
      rows.push(row);
      const why = row.stageReached === 'raw' && level.paths.raw !== undefined ? notTextReason(level.paths.raw) : undefined;
      if (why !== undefined) notText.push(`${level.ref.id}: ${why}`);
    }
    if (notText.length > 0)
      warnings.push({ code: 'run', message: `accounting: ${competition.model ? `${competition.model}: ` : ''}${notTextMessage(notText)}` });
  }
  sortRows(rows);
  const section = failureSection(rows);
  const [trials, failures] = ACCOUNTING_FILES;
  const files = new Map<string, string>([
    [trials, trialsCsv(rows, { robustness: options.robustness !== undefined })],
    [failures, `## ${section.title}\n\n${section.markdown}\n`],
  ]);
  return { rows, section, files, warnings };
}

/** Why a response file is not UTF-8 text, or undefined (also when it cannot be read: its row says so). */
function notTextReason(path: string): string | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return undefined;
  }
  return notUtf8Text(bytes, bytes.toString('utf8'));
}

/**
 * The one sentence for responses that are not UTF-8 text: the official extraction reads them as UTF-8
 * all the same, so their rows hold what that reading gives (most often `Code not found.`), and only
 * this warning says that the file, not the model's answer, is why.
 */
function notTextMessage(entries: readonly string[]): string {
  const shown = entries.slice(0, 2).join('; ');
  return `${entries.length} response(s) not UTF-8 text (${shown}${entries.length > 2 ? '; …' : ''}): read as UTF-8 the official way, so their rows in result/trials.csv give what that reading gives; save them as UTF-8 text`;
}

/** The one sentence for trial files numbered beyond T. */
function beyondTMessage(ids: readonly string[], trials: number): string {
  const shown = ids.slice(0, 2).join(', ');
  return `${ids.length} trial(s) numbered beyond T = ${trials} (${shown}${ids.length > 2 ? ', …' : ''}): not trials of the competition, so not rows of result/trials.csv; the stages process their files as the official evaluator does, and the score uses none of them as a trial`;
}

/**
 * Similarity per trial from `<team>/similarity/<C>.json` (ids are image file names) when the file is
 * current for the letter's images (readiness.ts); null for a letter without a current file.
 */
function similarityLookup(competition: CompetitionFolder, settings: Settings): SimilarityLookup {
  const root = competition.root;
  const cache = new Map<string, Map<string, number> | null>();
  const options = { prefix: settings.prefix, rules: settings.rules, trials: settings.trials };
  return (team, character, base) => {
    const key = `${team}/${character}`;
    let byBase = cache.get(key);
    if (byBase === undefined) {
      byBase = null;
      const file = join(stageDir(root, team, 'similarity'), `${character}.json`);
      if (
        existsSync(file) &&
        listFiles(stageDir(root, team, 'similarity')).includes(`${character}.json`) &&
        similarityIsCurrent(root, team, character, options)
      ) {
        byBase = new Map();
        try {
          for (const t of parseSimilarityJson(readFileSync(file, 'utf8'), file).trials) byBase.set(trialBaseName(t.id), t.similarity);
        } catch {
          // An unreadable file leaves the column empty; the score stage reports the file.
        }
      }
      cache.set(key, byBase);
    }
    return byBase === null ? null : byBase.get(base);
  };
}
