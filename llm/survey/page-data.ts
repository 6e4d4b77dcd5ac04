// What the survey page receives from its server, as types only: llm/survey/server.ts builds these
// values and the page's JSDoc (llm/survey/page/survey.js) names them. Only pure modules here: the
// page's tsconfig checks this file with the browser's types and no Node's.
import type { SurveyMetrics } from './metric-schema.js';

/** One item as a rater sees it: no team, level or file names. */
export interface PublicItem {
  id: string;
  letter: string;
  /** Pictures, relative to the survey folder. */
  start: string;
  final: string | null;
  grid: string | null;
  history: Array<{ role: string; content: string }>;
  historyNote: string | null;
}

/** `GET /api/survey`. */
export interface PublicSurvey {
  title: string;
  instructions: string;
  metrics: SurveyMetrics['metrics'];
  items: PublicItem[];
}

/** One item's answer as the rater gave it: a value per metric, and the comment. */
export interface RaterAnswer {
  values: Record<string, number>;
  comment?: string;
}

/** `GET /api/me`: the rater, the rater's item order and answers so far. */
export interface RaterView {
  rater: string;
  order: string[];
  answers: Record<string, RaterAnswer>;
}
