/**
 * The 2025 aggregation (LLMs4PCG site, rules "Evaluation"; reference/official-pipeline.md §7.5):
 * each model is scored as its own competition, then for every program
 * `total = Σ_models prompt(program, model)` and `normalised = total / Σ_programs total · 100`, the sum
 * over all programs including the baselines. The published per-model normalised scores use the same
 * grand total as denominator. The official script has no multi-model mode; this is the published rule.
 */

import { normalize, type RankingOptions, rankTeams } from './compute.js';
import { type Decimal, ZERO } from './decimal.js';
import type { ScoreResult } from './types.js';

export interface ModelScores {
  model: string;
  result: ScoreResult;
}

export interface AggregateEntry {
  team: string;
  /** Prompt score per model (0 for a model the team has no folder in). */
  perModel: Map<string, Decimal>;
  /** Per-model prompt score over the grand total · 100. */
  perModelNormalized: Map<string, Decimal>;
  total: Decimal;
  normalized: Decimal;
  rank: number;
}

export interface AggregateResult {
  models: string[];
  teams: string[];
  grandTotal: Decimal;
  ranking: AggregateEntry[];
  /** Teams missing from some model folders. */
  missing: Array<{ team: string; model: string }>;
}

export function aggregateModels(models: readonly ModelScores[], options: RankingOptions = {}): AggregateResult {
  const teams: string[] = [];
  for (const { result } of models) for (const team of result.teams) if (!teams.includes(team)) teams.push(team);
  const missing: Array<{ team: string; model: string }> = [];
  const totals = new Map<string, Decimal>();
  const perModel = new Map<string, Map<string, Decimal>>();
  for (const team of teams) {
    const scores = new Map<string, Decimal>();
    let total = ZERO;
    for (const { model, result } of models) {
      const score = result.prompts.get(team);
      if (score === undefined) missing.push({ team, model });
      scores.set(model, score ?? ZERO);
      total = total.plus(score ?? ZERO);
    }
    perModel.set(team, scores);
    totals.set(team, total);
  }
  let grandTotal = ZERO;
  for (const total of totals.values()) grandTotal = grandTotal.plus(total);
  const normalized = new Map([...totals].map(([team, total]) => [team, normalize(total, grandTotal)]));
  const ranking = rankTeams(teams, normalized, options).map((team, i) => {
    const scores = perModel.get(team) ?? new Map<string, Decimal>();
    return {
      team,
      perModel: scores,
      perModelNormalized: new Map([...scores].map(([model, score]) => [model, normalize(score, grandTotal)])),
      total: totals.get(team) ?? ZERO,
      normalized: normalized.get(team) ?? ZERO,
      rank: i + 1,
    };
  });
  return { models: models.map((m) => m.model), teams, grandTotal, ranking, missing };
}
