import { TIERS, type Rubric } from './rubric.js';
import { viewBody, viewPreamble, type LevelView } from './views.js';

/**
 * The rubric judge's prompt (reference/judges/rubric-judge.md): the question, the level as the
 * answer, the criteria per score level, the procedure, and the required output. One user message;
 * with `--view image` the level's image travels with it.
 */
export const RUBRIC_PROMPT_VERSION = 'sbeval-rubric-1';

export const RUBRIC_SYSTEM = 'You are a careful, strict judge of Science Birds levels. You follow the scoring procedure exactly and answer in the required format.';

export interface ChatPrompt {
  system: string;
  user: string;
  /** PNG images sent with the user message, in the order the text refers to them. */
  images: Uint8Array[];
}

function criteria(rubric: Rubric): string {
  const lines: string[] = [];
  for (const tier of TIERS) {
    const items = rubric.levels[tier];
    lines.push(`${tier} points:${items.length === 0 ? ' (no items: skip this level)' : ''}`);
    items.forEach((item, i) => lines.push(`  [${tier}.${i + 1}] ${item}`));
  }
  return lines.join('\n');
}

export function buildRubricPrompt(rubric: Rubric, view: LevelView): ChatPrompt {
  const user = [
    '[Question]',
    rubric.question,
    '',
    '[Answer]',
    viewPreamble(view.kind),
    viewBody(view, 'the level is the attached image'),
    '',
    '[Scoring criteria]',
    criteria(rubric),
    '',
    '[Procedure]',
    '1. Start with the 100-point level. If the answer meets any of its items, the score is 100; stop.',
    '2. Otherwise count the 50-point items the answer meets: n ≥ 1 items give n × 50 points, never more than 100; stop.',
    '3. Otherwise count the 25-point items it meets: n items give n × 25 points.',
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
  return { system: RUBRIC_SYSTEM, user, images: view.kind === 'image' ? [view.png] : [] };
}
