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
 * | drop calls | `ab_drop(x, y)` | `drop_block(block_type, x_position)` | as 2024 |
 * | `<OBJECT>` | `"A"` (quoted) | `A` (bare) | as 2024 |
 * | similarity file | softmax only | softmax only | adds `cls_embedding`; diversity compares it |
 *
 * Every difference between the years is a field here: code elsewhere asks a rule set, never a year.
 */
export type RuleSetName = '2023' | '2024' | '2025';

/**
 * The similarity and diversity scripts' formats, named by the year whose scripts introduced them
 * (scoring/formats/similarity.ts, scoring/formats/diversity.ts): the name is what the stages record
 * as the settings a file was made with, so it stays a number.
 */
export const SIMILARITY_FORMATS = {
  /** The 26 softmax probabilities per image; diversity compares them sorted by label. */
  2024: { clsEmbedding: false },
  /** Also the CLS embedding of the last encoder layer (`cls_embedding`); diversity compares it. */
  2025: { clsEmbedding: true },
} as const satisfies Record<number, { clsEmbedding: boolean }>;
export type SimilarityFormat = keyof typeof SIMILARITY_FORMATS;

/** How a prompt's `<OBJECT>` names the letter: `"A"` (quoted) or `A` (bare); each rule set uses one, a chat script may choose. */
export const OBJECT_STYLES = ['quoted', 'bare'] as const;
export type ObjectStyle = (typeof OBJECT_STYLES)[number];

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
  /** The drop function the prompts ask for (reference/official-pipeline.md §11). */
  functionName: 'ab_drop' | 'drop_block';
  /** How `<OBJECT>` names the letter in that year's prompts: `"A"` (quoted) or `A` (bare). */
  objectStyle: ObjectStyle;
  /** The similarity file format (and so the vectors diversity compares). */
  similarityFormat: SimilarityFormat;
}

export const RULE_SETS: Readonly<Record<RuleSetName, RuleSet>> = {
  '2023': {
    name: '2023',
    diversity: false,
    trialScoreHeader: 'trial_Score',
    constants: 'python-floats-2023',
    multiModel: false,
    mustBeatBaseline: false,
    publishedEol: '\n',
    functionName: 'ab_drop',
    objectStyle: 'quoted',
    similarityFormat: 2024,
  },
  '2024': {
    name: '2024',
    diversity: true,
    trialScoreHeader: 'trial_score',
    constants: 'compact-strings',
    multiModel: false,
    mustBeatBaseline: false,
    publishedEol: '\r\n',
    functionName: 'drop_block',
    objectStyle: 'bare',
    similarityFormat: 2024,
  },
  '2025': {
    name: '2025',
    diversity: true,
    trialScoreHeader: 'trial_score',
    constants: 'compact-strings',
    multiModel: true,
    mustBeatBaseline: true,
    publishedEol: '\r\n',
    functionName: 'drop_block',
    objectStyle: 'bare',
    similarityFormat: 2025,
  },
};

/** The rule sets, oldest first. */
export const RULE_SET_NAMES = Object.keys(RULE_SETS) as [RuleSetName, ...RuleSetName[]];

/** The latest competition's rules: what every command uses unless told otherwise. */
export const DEFAULT_RULES: RuleSetName = '2025';

/** The rule sets with a property, in a sentence: `2023, 2024 or 2025` (for messages that name the choice). */
export function ruleSetChoice(where: (rules: RuleSet) => boolean = () => true): string {
  const names = RULE_SET_NAMES.filter((name) => where(RULE_SETS[name]));
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

export function isRuleSetName(name: string): name is RuleSetName {
  return Object.hasOwn(RULE_SETS, name);
}

/** Official constants: 26 characters, 10 trials per character (scoring script `CHARACTER_LIST`, `NUM_TRIALS`). */
export const CHARACTERS: readonly string[] = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('');
export const DEFAULT_TRIALS = 10;
