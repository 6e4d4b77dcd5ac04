import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { listTeams } from '../../orchestrator/layout/competition.js';
import { loadCompetition } from '../../orchestrator/stages/score.js';
import type { ReportSection } from '../../scoring/report/build.js';
import { scoreCompetition } from '../../scoring/score/compute.js';
import { plain } from '../../scoring/score/decimal.js';
import { RULE_SETS, type RuleSetName } from '../../scoring/score/rules.js';
import { defaultSurveyDir } from '../survey/build.js';
import { loadSurveyRatings, meanRatings, type SurveyRatings } from '../survey/ratings.js';
import { readLevelScores } from './level-scores.js';
import { loadJudgeResults, scoredSource } from './results.js';
import { meanInterval } from './scoring/bootstrap.js';
import { agreementTable, type ScoredSource } from './scoring/judge-agreement.js';
import { buildJudgesSection, type JudgeColumn, type JudgedLevelRow, type TeamValue } from './scoring/report-section.js';

/**
 * The "Judges" report section of a competition folder, from whatever judge results it holds, read
 * through the same loaders as `judge` and `survey collect` (results.ts, survey/ratings.ts): per judge
 * and per survey metric, the team means with intervals, the agreement with the ViT and between the
 * sources; undefined when there are none, so a report without judges has no empty section. The
 * official rank and score beside them are recomputed here with the official rules (the same pure
 * functions `sbeval score` uses), so the section can be built before or after the score stage writes
 * its files.
 */
interface JudgesReportOptions {
  rules?: RuleSetName;
  trials?: number;
  top?: number;
  /** Seed of the bootstrap intervals (the config's seed). */
  seed?: number;
}

function surveyOf(root: string): { ratings: SurveyRatings } | { warning: string } | undefined {
  const out = defaultSurveyDir(root);
  if (!existsSync(join(out, 'survey.json'))) return undefined;
  try {
    return { ratings: loadSurveyRatings(out) };
  } catch (error) {
    return { warning: `${join(out, 'survey.json')}: ${(error as Error).message}; the survey is left out` };
  }
}

function officialRanking(root: string, options: JudgesReportOptions): Map<string, { rank: number; score: string }> {
  if (!options.rules) return new Map();
  try {
    const { input } = loadCompetition(root, RULE_SETS[options.rules], { trials: options.trials });
    const result = scoreCompetition(input, RULE_SETS[options.rules]);
    return new Map(result.ranking.map((r) => [r.team, { rank: r.rank, score: plain(r.normalizedPromptScore) }]));
  } catch {
    // No score inputs (no similarity yet): the section shows the judges alone.
    return new Map();
  }
}

function surveyColumns(ratings: SurveyRatings, seed: number): { columns: JudgeColumn[]; sources: ScoredSource[] } {
  const columns: JudgeColumn[] = [];
  const sources: ScoredSource[] = [];
  for (const metric of ratings.survey.metrics) {
    const byTeam = new Map<string, number[]>();
    for (const r of ratings.ratings) {
      if (r.metric !== metric.id) continue;
      const list = byTeam.get(r.item.team) ?? [];
      list.push(r.value);
      byTeam.set(r.item.team, list);
    }
    if (byTeam.size === 0) continue;
    const teams = new Map<string, TeamValue>([...byTeam].map(([team, values]) => [team, meanInterval(values, { seed })]));
    columns.push({ name: `survey:${metric.id}`, digits: 2, teams });
    sources.push({ name: `survey:${metric.id}`, scale: { min: metric.scale.min, max: metric.scale.max }, scores: meanRatings(ratings.ratings, metric.id) });
  }
  return { columns, sources };
}

export function judgesReportSection(root: string, options: JudgesReportOptions = {}): ReportSection | undefined {
  const seed = options.seed ?? 6280;
  const { judges, warnings } = loadJudgeResults(root, seed);
  const survey = surveyOf(root);
  if (survey && 'warning' in survey) warnings.push(survey.warning);
  const ratings = survey && 'ratings' in survey ? survey.ratings : undefined;
  if (ratings) warnings.push(...ratings.warnings.map((w) => `survey ${w}`));
  const fromSurvey = ratings ? surveyColumns(ratings, seed) : { columns: [], sources: [] };
  if (judges.length === 0 && fromSurvey.columns.length === 0 && warnings.length === 0) return undefined;

  const levels = new Map<string, JudgedLevelRow>();
  for (const [key, s] of readLevelScores(root))
    levels.set(key, { team: s.team, letter: s.character, name: s.name, stability: s.stability, similarity: s.similarity, judges: {} });
  const sources = [...judges.map(scoredSource), ...fromSurvey.sources];
  for (const source of sources) {
    for (const [key, score] of source.scores) {
      const [team, letter, name] = key.split('/') as [string, string, string];
      const row = levels.get(key) ?? { team, letter, name, judges: {} };
      row.judges[source.name] = score;
      levels.set(key, row);
    }
  }
  const columns: JudgeColumn[] = [...judges.map((j) => ({ name: j.name, digits: j.kind === 'rubric' ? 1 : 3, teams: j.teams })), ...fromSurvey.columns];
  const official = officialRanking(root, options);
  const teams = listTeams(root)
    .map((team) => ({ team, officialRank: official.get(team)?.rank ?? null, officialScore: official.get(team)?.score ?? null }))
    .sort((a, b) => (a.officialRank ?? Infinity) - (b.officialRank ?? Infinity) || (a.team < b.team ? -1 : 1));
  const agreement = agreementTable(judges.map(scoredSource), fromSurvey.sources, seed);
  return buildJudgesSection({ teams, columns, levels: [...levels.values()], agreement, warnings, ...(options.top !== undefined ? { top: options.top } : {}) });
}
