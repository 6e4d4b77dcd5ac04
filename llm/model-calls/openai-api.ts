import { type AnswerText, type ChatProtocol, count, lineCap, parseJson, record, type Tally } from './answer.js';
import type { ModelApiBackend, ModelListing } from './api-backend.js';
import { CallError, type ChatMessage, type ChatRequestSpec } from './types.js';

/**
 * The OpenAI chat completions API (platform.openai.com/docs/api-reference/chat), as OpenAI, Ollama's
 * `/v1`, vLLM and llama.cpp's server speak it: `POST …/chat/completions`, whole or streamed as
 * server-sent events (`data: {chunk}` events, then `data: [DONE]`); token counts from `usage`, which a
 * stream carries in a last chunk only when asked (`stream_options.include_usage`). Images go as
 * `image_url` content parts holding a data URL.
 */

/** The MIME type of a base64 image from its first bytes (PNG, JPEG, GIF, WebP signatures); PNG otherwise. */
function imageType(base64: string): string {
  if (base64.startsWith('/9j/')) return 'image/jpeg';
  if (base64.startsWith('R0lGOD')) return 'image/gif';
  if (base64.startsWith('UklGR')) return 'image/webp';
  return 'image/png';
}

function message(m: ChatMessage): unknown {
  if (!m.images || m.images.length === 0) return { role: m.role, content: m.content };
  const parts = [
    { type: 'text', text: m.content },
    ...m.images.map((b64) => ({ type: 'image_url', image_url: { url: `data:${imageType(b64)};base64,${b64}` } })),
  ];
  return { role: m.role, content: parts };
}

function body(request: ChatRequestSpec, stream: boolean): unknown {
  const { temperature, top_p, seed, num_predict } = request.options;
  return {
    model: request.model,
    messages: request.messages.map(message),
    temperature,
    top_p,
    seed,
    ...(num_predict === undefined ? {} : { max_tokens: num_predict }),
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  };
}

function usageTally(usage: unknown, finish: unknown): Tally {
  const u = record(usage);
  const completion = count(u?.completion_tokens);
  return {
    promptTokens: count(u?.prompt_tokens) ?? 0,
    completionTokens: completion ?? 0,
    tokensReported: completion !== undefined,
    doneReason: typeof finish === 'string' && finish !== '' ? finish : undefined,
  };
}

function failure(value: Record<string, unknown>): CallError | undefined {
  if (value.error === undefined || value.error === null) return undefined;
  const error = record(value.error);
  return new CallError(typeof error?.message === 'string' ? error.message : JSON.stringify(value.error), true);
}

/** One chunk of a stream, folded into `state`. */
function chunk(data: string, answer: AnswerText, state: { finish?: unknown; usage?: unknown }): void {
  const value = record(parseJson(data, 'an event of the stream'));
  if (!value) throw new CallError('an event of the stream is not a JSON object', true);
  const error = failure(value);
  if (error) throw error;
  const choice = Array.isArray(value.choices) ? record(value.choices[0]) : undefined;
  const content = record(choice?.delta)?.content;
  if (typeof content === 'string') answer.add(content);
  if (choice?.finish_reason !== undefined && choice.finish_reason !== null) state.finish = choice.finish_reason;
  if (value.usage !== undefined && value.usage !== null) state.usage = value.usage;
}

/** Server-sent events (html.spec.whatwg.org, "Interpreting an event stream"): `data:` lines up to a blank line make one event. */
async function stream(lines: AsyncIterable<string>, answer: AnswerText): Promise<Tally> {
  const state: { finish?: unknown; usage?: unknown } = {};
  // A host that sends `data:` lines and never a blank one must not grow the event without bound.
  const maxEvent = lineCap(answer.maxBytes);
  let data: string | undefined;
  let done = false;
  for await (const line of lines) {
    if (line === '') {
      if (data === '[DONE]') {
        done = true;
        break;
      }
      if (data !== undefined) chunk(data, answer, state);
      data = undefined;
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    if ((colon < 0 ? line : line.slice(0, colon)) !== 'data') continue;
    const value = colon < 0 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
    data = data === undefined ? value : `${data}\n${value}`;
    if (data.length > maxEvent) throw new CallError(`an event of the stream exceeds ${maxEvent} characters (--max-answer-bytes)`, true);
  }
  if (!done && data !== undefined && data !== '[DONE]') chunk(data, answer, state);
  // `[DONE]` is the end; a stream cut before it still ended properly if its last choice finished.
  if (!done && data !== '[DONE]' && state.finish === undefined) throw new CallError('the stream ended before its last chunk', true);
  return usageTally(state.usage, state.finish);
}

function whole(value: unknown, answer: AnswerText): Tally {
  const completion = record(value);
  if (!completion) throw new CallError('the answer is not a JSON object', true);
  const error = failure(completion);
  if (error) throw error;
  const choice = Array.isArray(completion.choices) ? record(completion.choices[0]) : undefined;
  const content = record(choice?.message)?.content;
  if (typeof content !== 'string') throw new CallError('the answer has no message content', true);
  answer.add(content);
  return usageTally(completion.usage, choice?.finish_reason);
}

const chat: ChatProtocol = { chatPath: '/chat/completions', body, stream, whole };

/** `GET …/models`: the model ids (OpenAI's list carries no digest). */
function models(value: unknown): ModelListing[] {
  const data = record(value)?.data;
  if (!Array.isArray(data)) throw new CallError('/models answered without a model list', true);
  return data.flatMap((m) => {
    const id = record(m)?.id;
    return typeof id === 'string' && id !== '' ? [{ name: id, digest: undefined }] : [];
  });
}

/** The variables a key is read from; `OPENAI_API_KEY` is the one the OpenAI clients read. */
const KEY_VARIABLES = ['SBEVAL_OPENAI_API_KEY', 'OPENAI_API_KEY'];

export const OPENAI_API: ModelApiBackend = {
  title: 'OpenAI-style API',
  help: `/v1/chat/completions; key from $${KEY_VARIABLES.join(' or $')}`,
  keyVariables: KEY_VARIABLES,
  defaultPath: '/v1',
  chat,
  listing: { path: '/models', models },
  // A listing names exact model ids.
  hasModel: (names, model) => names.includes(model),
  describe: async (model, get) => ({
    name: model,
    digest: undefined,
    capabilities: undefined,
    details: record(await get(`/models/${encodeURIComponent(model)}`)) ?? {},
  }),
  problems: {
    unreachable: 'no OpenAI-style API host answered …/models',
    unreachableHint: `check the base URLs in --hosts (…/v1) and the key ($${KEY_VARIABLES.join(' or $')})`,
    missingHint: (model) => `the hosts' …/models does not list ${model}; pass a model id it lists`,
  },
};
