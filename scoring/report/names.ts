/**
 * The per-letter averages the report shows, each once under one name (the heat maps' titles define
 * them, the gallery's rows use the names): the official ones of character_scores.csv, Σ over trials
 * 1…T divided by T, a missing trial counting 0 (scoring/score/compute.ts) — never a mean over only the trials that had a
 * value, which would show two numbers for one letter.
 */
export const AVERAGE_NAMES = {
  stability: {
    name: 'average stability',
    definition: 'Σ over trials 1…T ÷ T (a missing trial counts 0; nonWeightedAverageStabilityScore in character_scores.csv)',
  },
  similarity: {
    name: 'average similarity',
    definition: 'Σ of the target-letter probability over trials 1…T ÷ T (a missing trial counts 0; nonWeightedAverageSimilarityScore in character_scores.csv)',
  },
} as const;
