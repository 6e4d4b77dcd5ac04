import { type PromptTemplate, renderTemplate } from './prompt-template.js';
import { type LowTier, type Rubric, TIERS } from './rubric.js';
import { type LevelView, viewBody, viewPreamble } from './views.js';

/**
 * The rubric judge's prompt (reference/judges/rubric-judge.md): the question, the level as the
 * answer, the criteria per score level, the procedure, and the required output. One user message;
 * with `--view image` the level's image travels with it. Three sources (`--protocol`,
 * `--prompt-template`):
 * - `sbeval`: sbeval's wording; it also asks for one verdict line per item (`[50.2] met`) so the score
 *   can be recomputed from the judge's own verdicts;
 * - `document`: written here to follow the document's procedure step by step in its own terms
 *   (question q, criteria sc, answer a; 100 → 50 → 25 → 0, empty levels skipped; the analysis states
 *   how each level was evaluated) — not the paper's text, which the project does not ship;
 * - a template file of the user's own (e.g. a paper's exact text), with placeholders (prompt-template.ts).
 */
export const RUBRIC_PROMPT_VERSION = 'sbeval-rubric-2';

export const RUBRIC_SYSTEM =
  'You are a careful, strict judge of Science Birds levels. You follow the scoring procedure exactly and answer in the required format.';
export const DOCUMENT_SYSTEM = 'You are an impartial judge. You score an answer against the given criteria by following the given procedure exactly.';

export type RubricProtocol = 'sbeval' | 'document';

export interface ChatPrompt {
  system: string;
  user: string;
  /** PNG images sent with the user message, in the order the text refers to them. */
  images: Uint8Array[];
}

export interface RubricPromptOptions {
  protocol: RubricProtocol;
  lowTier: LowTier;
  template?: PromptTemplate | undefined;
}

const DEFAULT_OPTIONS: RubricPromptOptions = { protocol: 'sbeval', lowTier: 25 };

function criteria(rubric: Rubric, label: (tier: number, i: number) => string): string {
  const lines: string[] = [];
  for (const tier of TIERS) lines.push(tierCriteria(rubric, tier, label));
  return lines.join('\n');
}

function tierCriteria(rubric: Rubric, tier: (typeof TIERS)[number], label: (tier: number, i: number) => string): string {
  const items = rubric.levels[tier];
  return [`${tier} points:${items.length === 0 ? ' (no items: skip this level)' : ''}`, ...items.map((item, i) => `  ${label(tier, i + 1)} ${item}`)].join(
    '\n',
  );
}

const sbevalLabel = (tier: number, i: number) => `[${tier}.${i}]`;
const documentLabel = (_tier: number, i: number) => `(${i})`;

function answerText(view: LevelView): string {
  return `${viewPreamble(view.kind)}\n${viewBody(view, 'the level is the attached image')}`;
}

function sbevalPrompt(rubric: Rubric, view: LevelView, lowTier: LowTier): string {
  return [
    '[Question]',
    rubric.question,
    '',
    '[Answer]',
    answerText(view),
    '',
    '[Scoring criteria]',
    criteria(rubric, sbevalLabel),
    '',
    '[Procedure]',
    '1. Start with the 100-point level. If the answer meets any of its items, the score is 100; stop.',
    '2. Otherwise count the 50-point items the answer meets: n ≥ 1 items give n × 50 points, never more than 100; stop.',
    `3. Otherwise count the 25-point items it meets: n items give n × ${lowTier} points.`,
    '4. If no item is met, the score is 0. A level without items is skipped. The score comes from exactly one level.',
    '',
    '[Output]',
    'Answer in exactly this form and nothing else:',
    '<analysis>',
    'one line per item, in order: "[100.1] met" or "[100.1] not met", each with a short reason; an empty level as "[50] skipped (no items)"',
    '</analysis>',
    '<score>',
    'the number only',
    '</score>',
  ].join('\n');
}

function documentPrompt(rubric: Rubric, view: LevelView, lowTier: LowTier): string {
  return [
    'You are given a question q, scoring criteria sc and an answer a. The criteria are split into three score levels: 100, 50 and 25. Evaluate a against sc by following the procedure below step by step.',
    '',
    '[Question q]',
    rubric.question,
    '',
    '[Scoring criteria sc]',
    criteria(rubric, documentLabel),
    '',
    '[Answer a]',
    answerText(view),
    '',
    '[Procedure]',
    'Step 1. Start at the 100 level. If a meets any item of the 100 level, the score is 100. Stop.',
    'Step 2. Otherwise go to the 50 level. Count the items of the 50 level that a meets. If this number n is at least 1, the score is n × 50 (a score never exceeds 100). Stop.',
    `Step 3. Otherwise go to the 25 level. Count the items of the 25 level that a meets: the score is n × ${lowTier}.`,
    'Step 4. If a meets no item at any level, the score is 0.',
    'A level without items is skipped. The score comes from exactly one level.',
    '',
    '[Output]',
    '<analysis>',
    'how each level was evaluated, in the order of the procedure; a level without items stated as skipped',
    '</analysis>',
    '<score>',
    'the number only',
    '</score>',
  ].join('\n');
}

export function buildRubricPrompt(rubric: Rubric, view: LevelView, options: RubricPromptOptions = DEFAULT_OPTIONS): ChatPrompt {
  const images = view.kind === 'image' ? [view.png] : [];
  if (options.template) {
    const values: Record<string, string> = {
      question: rubric.question,
      answer: answerText(view),
      criteria: criteria(rubric, documentLabel),
      criteria_100: tierCriteria(rubric, 100, documentLabel),
      criteria_50: tierCriteria(rubric, 50, documentLabel),
      criteria_25: tierCriteria(rubric, 25, documentLabel),
      low_tier: String(options.lowTier),
    };
    return {
      system: options.template.system === undefined ? '' : renderTemplate(options.template.system, values),
      user: renderTemplate(options.template.user, values),
      images,
    };
  }
  if (options.protocol === 'document') return { system: DOCUMENT_SYSTEM, user: documentPrompt(rubric, view, options.lowTier), images };
  return { system: RUBRIC_SYSTEM, user: sbevalPrompt(rubric, view, options.lowTier), images };
}
