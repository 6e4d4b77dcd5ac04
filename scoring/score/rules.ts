/**
 * The three rule sets (reference/official-pipeline.md §7, §11; competition-results.md §4).
 *
 * | | 2023 | 2024 | 2025 |
 * | --- | --- | --- | --- |
 * | weight | w_sta·w_sim | w_sta·w_sim·w_div | same, per model |
 * | character score | Σtrial/T | div·Σtrial/T | same, per model |
 * | final | 100·prompt/Σprompt | same | Σ over models of prompt, then 100·total/Σtotal |
 * | trial CSV | `trial_Score`, no diversity | `trial_score` + `diversityScore` | as 2024 |
 * | constants.json | Python-style, float weights `stabilityWeight`/`similarityWeight` | compact, strings | as 2024 |
 * | winner | top score; ties → shorter prompt, else co-winners | same | must also beat the zero-shot baseline |
 */
export type RuleSetName = '2023' | '2024' | '2025';

export interface RuleSet {
  name: RuleSetName;
  /** Diversity enters the weight and the character score (2024+). */
  diversity: boolean;
  /** Header of the trial score column in trial_scores.csv. */
  trialScoreHeader: 'trial_Score' | 'trial_score';
  /** constants.json layout of the published results of that year. */
  constants: 'python-floats-2023' | 'compact-strings';
  /** Prompt scores are summed over several models (one competition folder per model). */
  multiModel: boolean;
  /** The winner must score more than the zero-shot baseline. */
  mustBeatBaseline: boolean;
  /**
   * Line ends of that year's published CSV files. The scoring script writes with json2csv, whose line
   * end is the OS's (`os.EOL`): sbeval does the same by default, and `--eol` reproduces these.
   */
  publishedEol: '\n' | '\r\n';
}

export const RULE_SETS: Readonly<Record<RuleSetName, RuleSet>> = {
  '2023': { name: '2023', diversity: false, trialScoreHeader: 'trial_Score', constants: 'python-floats-2023', multiModel: false, mustBeatBaseline: false, publishedEol: '\n' },
  '2024': { name: '2024', diversity: true, trialScoreHeader: 'trial_score', constants: 'compact-strings', multiModel: false, mustBeatBaseline: false, publishedEol: '\r\n' },
  '2025': { name: '2025', diversity: true, trialScoreHeader: 'trial_score', constants: 'compact-strings', multiModel: true, mustBeatBaseline: true, publishedEol: '\r\n' },
};

export function isRuleSetName(name: string): name is RuleSetName {
  return Object.hasOwn(RULE_SETS, name);
}

/** Official constants: 26 characters, 10 trials per character (scoring script `CHARACTER_LIST`, `NUM_TRIALS`). */
export const CHARACTERS: readonly string[] = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('');
export const DEFAULT_TRIALS = 10;
