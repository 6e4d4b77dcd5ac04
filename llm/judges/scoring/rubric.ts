/**
 * The tiered rubric of the "LLM-Score" judge (reference/judges/rubric-judge.md): criteria split into
 * three score levels, 100, 50 and 25, each with up to 4 items (a level may be empty), and one
 * procedure that turns "which items does the answer meet" into a score:
 *
 * 1. the 100 level: any item met → 100, stop;
 * 2. else the 50 level: n ≥ 1 items met → n × 50, never more than 100, stop;
 * 3. else the 25 level: n items met → n × 25;
 * 4. nothing met → 0. Empty levels are skipped; a score comes from exactly one level.
 *
 * The brief writes "n * 20" for the 25 level in one place and "increments of 25" in another; scores
 * range 0–100 in steps of 25, so n × 25 is the default (a 20-step makes 25-level scores that no other
 * level can produce and that the 0–100-in-25s range excludes). `--low-tier n20` takes the prompt's
 * literal n × 20 instead (`LowTier`).
 */
export const TIERS = [100, 50, 25] as const;
export type Tier = (typeof TIERS)[number];

/** The reference: "each with up to 4 items", so a 25-level score never passes 100 either. */
export const MAX_ITEMS_PER_TIER = 4;

export interface Rubric {
  /** The question the judge is told the level answers; `{letter}` is replaced. */
  question: string;
  /** Criteria per level; `{letter}` is replaced. */
  levels: Record<Tier, string[]>;
}

/** Which items of each level the answer meets (same shape as the rubric's levels). */
export type Verdicts = Record<Tier, boolean[]>;

/** Points per item met at the 25 level: 25 (the note's "increments of 25", default) or 20 (the prompt's "n * 20"). */
export type LowTier = 20 | 25;
export const LOW_TIERS = { n25: 25, n20: 20 } as const satisfies Record<string, LowTier>;

/** The tiered procedure above as a pure function. */
export function tierScore(verdicts: Verdicts, lowTier: LowTier = 25): { score: number; tier: Tier | 0 } {
  if (verdicts[100].some(Boolean)) return { score: 100, tier: 100 };
  const met50 = verdicts[50].filter(Boolean).length;
  if (met50 > 0) return { score: Math.min(100, met50 * 50), tier: 50 };
  const met25 = verdicts[25].filter(Boolean).length;
  if (met25 > 0) return { score: Math.min(100, met25 * lowTier), tier: 25 };
  return { score: 0, tier: 0 };
}

/** Every score the procedure can give with this rubric (an answer outside it is not a score of this rubric). */
export function reachableScores(rubric: Rubric, lowTier: LowTier = 25): number[] {
  const scores = new Set<number>([0]);
  if (rubric.levels[100].length > 0) scores.add(100);
  for (let n = 1; n <= rubric.levels[50].length; n += 1) scores.add(Math.min(100, n * 50));
  for (let n = 1; n <= rubric.levels[25].length; n += 1) scores.add(Math.min(100, n * lowTier));
  return [...scores].sort((a, b) => a - b);
}

/** A rubric problem, or undefined when it is usable. */
export function checkRubric(rubric: Rubric): string | undefined {
  if (rubric.question.trim() === '') return 'the rubric has an empty question';
  for (const tier of TIERS) {
    const items = rubric.levels[tier];
    if (items.length > MAX_ITEMS_PER_TIER) return `the ${tier} level has ${items.length} items; a level holds at most ${MAX_ITEMS_PER_TIER}`;
    if (items.some((item) => item.trim() === '')) return `the ${tier} level has an empty item`;
  }
  if (TIERS.every((tier) => rubric.levels[tier].length === 0)) return 'the rubric has no items at any level';
  return undefined;
}

/** The rubric for one letter: `{letter}` in the question and every item becomes the letter. */
export function rubricForLetter(rubric: Rubric, letter: string): Rubric {
  const fill = (text: string) => text.replaceAll('{letter}', letter);
  return {
    question: fill(rubric.question),
    levels: { 100: rubric.levels[100].map(fill), 50: rubric.levels[50].map(fill), 25: rubric.levels[25].map(fill) },
  };
}
