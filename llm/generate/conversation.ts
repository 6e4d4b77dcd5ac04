import type { ChatMessage } from '../model-calls/index.js';
import type { TrialSession } from './session.js';
import { type ConversationSubmission, fillObject } from './submission.js';

/**
 * A prompt or chat script for one letter: the (optional) system message, then each user turn sent
 * after the previous answer, the whole history every time — what the official zero-shot and
 * zero-shot multi-turn examples do (`history.append(user)`, `chat_with_llm(ctx, history)`,
 * `history.append(assistant)`); the answer to the last turn is the trial's response.
 */
function firstMessages(submission: ConversationSubmission, character: string): ChatMessage[] {
  return submission.system === undefined ? [] : [{ role: 'system', content: fillObject(submission.system, character, submission.objectStyle) }];
}

export async function runConversation(submission: ConversationSubmission, character: string, session: TrialSession): Promise<string> {
  const history = firstMessages(submission, character);
  let last = '';
  for (const template of submission.turns) {
    history.push({ role: 'user', content: fillObject(template, character, submission.objectStyle) });
    const answer = await session.chat([...history]);
    history.push({ role: 'assistant', content: answer.content });
    last = answer.content;
  }
  return last;
}
