import type { ChatPrompt } from './rubric-prompt.js';
import { type LevelView, viewBody, viewPreamble } from './views.js';

/**
 * The ordering judge's prompt, after the reference's structure (reference/judges/ordering-judge.md):
 * the question, each answer between `[Assistant k]` and `[End of Assistant k]`, then the perspective's
 * instruction: explain how each answer addresses the question, compare, and end with one line that
 * orders all `{num_str}` assistants with `>` and `=`.
 *
 * Perspectives for Science Birds levels (`--perspective`); `{letter}` is the target letter:
 * - general: resemblance, stability and construction together (the reference's General);
 * - resemblance: how much the level looks like the letter;
 * - stability: whether the structure holds up;
 * - creativity: inventive use of the three block types.
 */
export const ORDER_PROMPT_VERSION = 'sbeval-order-2';

export const PERSPECTIVES: Record<string, string> = {
  general:
    'General: consider how clearly the level looks like the upper-case letter "{letter}", whether its structure stands without collapsing, and how well it is built from the available blocks.',
  resemblance:
    'Resemblance: the level should look like the upper-case letter "{letter}" at a glance: its overall shape, proportions and strokes. The more recognisable the letter, the better.',
  stability:
    'Stability: the structure should hold up under gravity: blocks supported from below, no overhang that tips over, nothing that falls or scatters. The more solid, the better.',
  creativity:
    'Creativity: the level should use the three block types inventively to draw the letter "{letter}", rather than the most obvious stacking. The more inventive while still readable, the better.',
};

export const ORDER_SYSTEM = 'You are a helpful and precise assistant for checking the quality of Science Birds levels.';

const NUMBER_WORDS: Record<number, string> = { 2: 'two', 3: 'three', 4: 'four', 5: 'five', 6: 'six' };

/** The last line's example, naming exactly the n assistants shown: "Assistant 2 > Assistant 1 = Assistant 3 > Assistant 4". */
export function exampleChain(n: number): string {
  if (n < 2) return 'Assistant 1';
  const names = [2, 1, ...Array.from({ length: Math.max(0, n - 2) }, (_, i) => i + 3)].slice(0, n).map((k) => `Assistant ${k}`);
  return names.map((name, i) => (i === 0 ? name : `${i === 2 ? ' = ' : ' > '}${name}`)).join('');
}

export function buildOrderPrompt(perspective: string, question: string, letter: string, views: readonly LevelView[]): ChatPrompt {
  const n = views.length;
  const numStr = NUMBER_WORDS[n] ?? String(n);
  const parts: string[] = ['[Question]', question, '', viewPreamble(views[0]!.kind), ''];
  const images: Uint8Array[] = [];
  views.forEach((view, i) => {
    if (view.kind === 'image') images.push(view.png);
    parts.push(
      `[Assistant ${i + 1}]`,
      viewBody(view, `Assistant ${i + 1}'s level is image ${images.length} of the ${views.filter((v) => v.kind === 'image').length} attached images`),
      `[End of Assistant ${i + 1}]`,
      '',
    );
  });
  parts.push(
    '[System]',
    perspective.replaceAll('{letter}', letter),
    `Please evaluate the levels of the ${numStr} assistants above as answers to the question.`,
    'First clarify, for each assistant, how its level addresses the question. Then compare them and say which is better than or equal to which.',
    'Avoid any bias: the order in which the levels are presented must not affect your judgement.',
    `In the last line, order the ${numStr} assistants: a single line such as "${exampleChain(n)}", naming each of Assistant 1 to Assistant ${n} exactly once, where ">" means "is better than" and "=" means "is as good as". If you find no difference between two assistants, write "=".`,
  );
  return { system: ORDER_SYSTEM, user: parts.join('\n'), images };
}
