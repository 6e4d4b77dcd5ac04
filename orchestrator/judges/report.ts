import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReportSection } from '../../scoring/report/build.js';
import { buildJudgesSection, type JudgedLevelRow, type JudgedTeam } from '../../scoring/judges/report-section.js';
import { scoreCompetition } from '../../scoring/score/compute.js';
import { plain } from '../../scoring/score/decimal.js';
import { RULE_SETS, type RuleSetName } from '../../scoring/score/rules.js';
import { listTeams, resultDir } from '../layout/competition.js';
import { loadCompetition } from '../stages/score.js';
import { listRaters } from '../survey/answers.js';
import { defaultSurveyDir, readSurvey, type SurveyFile } from '../survey/build.js';
import { csvFields, orderPerspectives, readLevelScores } from './level-scores.js';

/**
 * The "Judges" report section of a competition folder, from whatever judge results it holds
 * (`<team>/judge-rubric/`, `result/judge-order/<perspective>/`, `result/survey/answers/`); undefined
 * when there are none, so a report without judges has no empty section. The official rank and score
 * beside them are recomputed here with the official rules (the same pure functions `sbeval score`
 * uses), so the section can be built before or after the score stage writes its files.
 */
export interface JudgesReportOptions {
  rules?: RuleSetName;
  trials?: number;
  top?: number;
}

const mean = (v: number[]) => (v.length === 0 ? null : v.reduce((a, b) => a + b, 0) / v.length);

function surveyOf(root: string): { survey: SurveyFile; perItem: Map<string, Record<string, number[]>> } | undefined {
  const out = defaultSurveyDir(root);
  if (!existsSync(join(out, 'survey.json'))) return undefined;
  let survey: SurveyFile;
  try {
    survey = readSurvey(out);
  } catch {
    return undefined;
  }
  const perItem = new Map<string, Record<string, number[]>>();
  for (const rater of listRaters(out)) {
    for (const [itemId, answer] of Object.entries(rater.answers)) {
      const slot = perItem.get(itemId) ?? {};
      for (const [metric, value] of Object.entries(answer.values ?? {})) if (typeof value === 'number') (slot[metric] ??= []).push(value);
      perItem.set(itemId, slot);
    }
  }
  return perItem.size > 0 ? { survey, perItem } : undefined;
}

export function judgesReportSection(root: string, options: JudgesReportOptions = {}): ReportSection | undefined {
  const scores = readLevelScores(root);
  const perspectives = orderPerspectives(root);
  const survey = surveyOf(root);
  const hasRubric = [...scores.values()].some((s) => s.rubric !== undefined);
  if (!hasRubric && perspectives.length === 0 && !survey) return undefined;

  const levels = new Map<string, JudgedLevelRow>();
  for (const [key, s] of scores) {
    const judges: Record<string, number> = {};
    if (s.rubric !== undefined) judges.rubric = s.rubric;
    for (const [p, v] of Object.entries(s.order)) judges[`order:${p}`] = v;
    levels.set(key, { team: s.team, letter: s.character, name: s.name, stability: s.stability, similarity: s.similarity, judges });
  }
  const surveyMetrics = survey ? survey.survey.metrics.map((m) => m.id) : [];
  const teamRatings = new Map<string, Record<string, number[]>>();
  if (survey) {
    for (const item of survey.survey.items) {
      const values = survey.perItem.get(item.id);
      if (!values) continue;
      const key = `${item.team}/${item.letter}/${item.name}`;
      const row = levels.get(key) ?? { team: item.team, letter: item.letter, name: item.name, judges: {} };
      const perTeam = teamRatings.get(item.team) ?? {};
      for (const [metric, list] of Object.entries(values)) {
        row.judges[`survey:${metric}`] = mean(list)!;
        (perTeam[metric] ??= []).push(...list);
      }
      teamRatings.set(item.team, perTeam);
      levels.set(key, row);
    }
  }

  let official = new Map<string, { rank: number; score: string }>();
  if (options.rules) {
    try {
      const { input } = loadCompetition(root, RULE_SETS[options.rules], { trials: options.trials });
      const result = scoreCompetition(input, RULE_SETS[options.rules]);
      official = new Map(result.ranking.map((r) => [r.team, { rank: r.rank, score: plain(r.normalizedPromptScore) }]));
    } catch {
      // No score inputs (no similarity yet): the section shows the judges alone.
    }
  }
  const orderScores = new Map<string, Map<string, { score: number | null; rank: number | null }>>();
  for (const p of perspectives) {
    const file = join(resultDir(root), 'judge-order', p, 'scores.csv');
    if (!existsSync(file)) continue;
    const lines = readFileSync(file, 'utf8').split('\n').slice(1).filter(Boolean);
    const byTeam = new Map<string, { score: number | null; rank: number | null }>();
    for (const line of lines) {
      const [team, , score, rank] = csvFields(line);
      if (team) byTeam.set(team, { score: score ? Number(score) : null, rank: rank ? Number(rank) : null });
    }
    orderScores.set(p, byTeam);
  }
  const teams: JudgedTeam[] = listTeams(root).map((team) => {
    const rubricScores = [...scores.values()].filter((s) => s.team === team && s.rubric !== undefined).map((s) => s.rubric!);
    return {
      team,
      officialRank: official.get(team)?.rank ?? null,
      officialScore: official.get(team)?.score ?? null,
      rubric: mean(rubricScores),
      order: Object.fromEntries(perspectives.map((p) => [p, orderScores.get(p)?.get(team) ?? { score: null, rank: null }])),
      survey: Object.fromEntries(surveyMetrics.map((m) => [m, mean(teamRatings.get(team)?.[m] ?? [])])),
    };
  });
  teams.sort((a, b) => (a.officialRank ?? Infinity) - (b.officialRank ?? Infinity) || (a.team < b.team ? -1 : 1));
  return buildJudgesSection({ teams, levels: [...levels.values()], perspectives, surveyMetrics, ...(options.top !== undefined ? { top: options.top } : {}) });
}
