import { csvText, markdownText } from '../../scoring/formats/text-escape.js';
import { formatUnityFloat } from '../../scoring/formats/unity-float.js';
import { escapeXml } from '../../scoring/report/index.js';
import type { LevelRobustness } from '../../scoring/robustness.js';
import type { LevelOutcome, StageReached } from '../machine/index.js';

/**
 * Failure accounting: every trial of the run ends as one row of `result/trials.csv`, so a sentence
 * like "58% of the 2023 trials never became a level" can be broken down by reason, per team.
 *
 * Columns: `team, model, letter, trial, stage_reached, reason, stability, similarity`:
 * - `stage_reached`: the last thing the trial became: `none` (no response), `raw` (a response without
 *   usable code), `intermediate` (a drop program that did not convert), `level` (an XML level the
 *   engine could not run), `simulated` (stability known, no image), `image` (complete);
 * - `reason`: the official wording where one exists (`Code not found.`, `Height boundary is intruded.`),
 *   empty for complete trials;
 * - `stability`: the score as written in the stability JSON (Unity float text), empty when none;
 * - `similarity`: the target-letter probability from the similarity JSON, empty when the trial has no
 *   image, `unavailable` when its letter has no similarity file current for its images (no model yet).
 *
 * With `run --robustness N`, five more columns (`ROBUSTNESS_TRIAL_COLUMNS`): the level's perturbed runs,
 * the runs in which nothing moved, the least and most moving objects over them, and `fragile` (`yes` when
 * fewer than 90% of the runs agree with the official verdict; scoring/robustness.ts); empty for a trial
 * without an official verdict.
 */
export interface TrialRow {
  team: string;
  model: string;
  letter: string;
  /** The trial number from the file name, or the name itself when it has none. */
  trial: string;
  stageReached: StageReached;
  reason: string;
  stability: string;
  similarity: string;
  /** The level's perturbed runs (`run --robustness N`), when it has an official verdict. */
  robustness?: LevelRobustness | undefined;
}

export const TRIAL_COLUMNS = ['team', 'model', 'letter', 'trial', 'stage_reached', 'reason', 'stability', 'similarity'] as const;
const ROBUSTNESS_TRIAL_COLUMNS = ['robustness_runs', 'stable_runs', 'moving_min', 'moving_max', 'fragile'] as const;

/**
 * `<team>/<C>/<image file base>` → similarity, from the similarity JSON files; null when the letter has no
 * similarity file current for its images (no model yet, or images changed since), undefined when the file
 * has no entry for the trial.
 */
export type SimilarityLookup = ((team: string, character: string, base: string) => number | null | undefined) | undefined;

export function trialRow(outcome: LevelOutcome, similarity: SimilarityLookup): TrialRow {
  const { level } = outcome;
  const value = similarity === undefined ? null : similarity(level.team, level.character, level.base);
  const sim = value === null ? (outcome.stageReached === 'image' ? 'unavailable' : '') : value === undefined ? '' : String(value);
  return {
    team: level.team,
    model: level.model ?? '',
    letter: level.character,
    trial: Number.isFinite(level.trial) ? String(level.trial) : level.base,
    stageReached: outcome.stageReached,
    reason: outcome.failure?.reason ?? '',
    stability: outcome.stability ? formatUnityFloat(outcome.stability.score) : '',
    similarity: sim,
  };
}

/**
 * RFC 4180 CSV: fields with `,`, `"` or line ends are quoted, `"` doubled; LF line ends, final LF. Team,
 * model and reason are free text: one that starts like a formula gets a leading `'` and quotes
 * (scoring/formats/text-escape.ts); numbers stay as they are.
 */
export function trialsCsv(rows: readonly TrialRow[], options: { robustness?: boolean } = {}): string {
  const extra = options.robustness === true;
  const robustnessCells = (x: LevelRobustness | undefined) =>
    x ? [String(x.runs), String(x.stableRuns), String(x.moving.min), String(x.moving.max), x.fragile ? 'yes' : 'no'] : ['', '', '', '', ''];
  return csvText([
    [...TRIAL_COLUMNS, ...(extra ? ROBUSTNESS_TRIAL_COLUMNS : [])],
    ...rows.map((r) => [
      r.team,
      r.model,
      r.letter,
      r.trial,
      r.stageReached,
      r.reason,
      r.stability,
      r.similarity,
      ...(extra ? robustnessCells(r.robustness) : []),
    ]),
  ]);
}

/** Rows sorted the way the published result files list things: model, team (case-insensitive), letter, trial. */
export function sortRows(rows: TrialRow[]): TrialRow[] {
  const num = (t: string) => (/^\d+$/.test(t) ? Number(t) : Number.POSITIVE_INFINITY);
  const key = (s: string) => s.toLowerCase();
  return rows.sort(
    (a, b) =>
      (key(a.model) < key(b.model) ? -1 : key(a.model) > key(b.model) ? 1 : 0) ||
      (key(a.team) < key(b.team) ? -1 : key(a.team) > key(b.team) ? 1 : a.team < b.team ? -1 : a.team > b.team ? 1 : 0) ||
      (a.letter < b.letter ? -1 : a.letter > b.letter ? 1 : 0) ||
      num(a.trial) - num(b.trial) ||
      (a.trial < b.trial ? -1 : a.trial > b.trial ? 1 : 0),
  );
}

const NEVER_A_LEVEL: ReadonlySet<StageReached> = new Set(['none', 'raw', 'intermediate']);

export interface TeamBreakdown {
  team: string;
  model: string;
  trials: number;
  complete: number;
  neverALevel: number;
  /** Reason → count, most frequent first. */
  reasons: Array<[string, number]>;
}

/** Per team (and model): how many trials there were, how many became complete, and why the others did not. */
export function breakdown(rows: readonly TrialRow[]): TeamBreakdown[] {
  const byTeam = new Map<string, TeamBreakdown & { counts: Map<string, number> }>();
  for (const row of rows) {
    const key = `${row.model}\u0000${row.team}`;
    let entry = byTeam.get(key);
    if (!entry) {
      entry = { team: row.team, model: row.model, trials: 0, complete: 0, neverALevel: 0, reasons: [], counts: new Map() };
      byTeam.set(key, entry);
    }
    entry.trials += 1;
    if (row.stageReached === 'image') entry.complete += 1;
    if (NEVER_A_LEVEL.has(row.stageReached)) entry.neverALevel += 1;
    if (row.reason) entry.counts.set(row.reason, (entry.counts.get(row.reason) ?? 0) + 1);
  }
  return [...byTeam.values()].map(({ counts, ...rest }) => ({
    ...rest,
    reasons: [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
  }));
}

const percent = (part: number, whole: number) => (whole === 0 ? '0%' : `${((100 * part) / whole).toFixed(1)}%`);

/**
 * The report section: a summary sentence and one table row per team (trials, complete, never a
 * level, reasons), as markdown (failures.md, report.md) and as HTML (report.html) from the same data.
 */
export function failureSection(rows: readonly TrialRow[]): { id: string; title: string; markdown: string; html: string } {
  const teams = breakdown(rows);
  const total = rows.length;
  const never = rows.filter((r) => NEVER_A_LEVEL.has(r.stageReached)).length;
  const complete = rows.filter((r) => r.stageReached === 'image').length;
  const withModel = teams.some((t) => t.model !== '');
  const header = [...(withModel ? ['model'] : []), 'team', 'trials', 'complete', 'never a level', 'reasons'];
  const cells = teams.map((t) => [
    ...(withModel ? [t.model] : []),
    t.team,
    String(t.trials),
    String(t.complete),
    `${t.neverALevel} (${percent(t.neverALevel, t.trials)})`,
  ]);
  const reasons = teams.map((t) => t.reasons.map(([reason, count]) => `${count} × ${reason}`));
  const summary = (code: (text: string) => string) =>
    `${total} trials; ${never} (${percent(never, total)}) never became a level; ${complete} complete. Every trial is a row of ${code('result/trials.csv')}.`;
  const markdown = [
    summary((t) => `\`${t}\``),
    '',
    `| ${header.join(' | ')} |`,
    `| ${withModel ? '--- | ' : ''}--- | ---: | ---: | ---: | --- |`,
    // Names and reasons are text from outside: Markdown and HTML in them stay text (text-escape.ts).
    ...cells.map((row, i) => `| ${row.map(markdownText).join(' | ')} | ${reasons[i]!.map(markdownText).join('<br>') || '—'} |`),
  ].join('\n');
  const html = [
    `<p>${summary((t) => `<code>${escapeXml(t)}</code>`)}</p>`,
    '<table>',
    `<tr>${header.map((h) => `<th>${escapeXml(h)}</th>`).join('')}</tr>`,
    ...cells.map((row, i) => `<tr>${row.map((c) => `<td>${escapeXml(c)}</td>`).join('')}<td>${reasons[i]!.map(escapeXml).join('<br>') || '—'}</td></tr>`),
    '</table>',
  ].join('\n');
  return { id: 'failure-accounting', title: 'Failure accounting', markdown, html };
}
