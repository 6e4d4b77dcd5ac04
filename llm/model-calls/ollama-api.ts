import { type AnswerText, type ChatProtocol, count, parseJson, record, type Tally } from './answer.js';
import type { ModelApiBackend, ModelListing } from './api-backend.js';
import { CallError, type ChatRequestSpec } from './types.js';

/**
 * Ollama's native API (github.com/ollama/ollama/blob/main/docs/api.md): `POST /api/chat` streamed as NDJSON
 * (one JSON object per line, the last with `done: true`, `done_reason`, `prompt_eval_count`,
 * `eval_count`) or whole (`"stream": false`); an `{"error": …}` object in place of a line is a failure.
 * Images go in a message's `images` as base64.
 */
function body(request: ChatRequestSpec, stream: boolean): unknown {
  const options: Record<string, number> = { temperature: request.options.temperature, top_p: request.options.top_p, seed: request.options.seed };
  if (request.options.num_predict !== undefined) options.num_predict = request.options.num_predict;
  const messages = request.messages.map((m) =>
    m.images && m.images.length > 0 ? { role: m.role, content: m.content, images: m.images } : { role: m.role, content: m.content },
  );
  return { model: request.model, messages, options, stream };
}

function tally(final: Record<string, unknown>): Tally {
  const completion = count(final.eval_count);
  return {
    // A fully cached prompt reports no prompt_eval_count: 0 tokens were evaluated.
    promptTokens: count(final.prompt_eval_count) ?? 0,
    completionTokens: completion ?? 0,
    tokensReported: completion !== undefined,
    doneReason: typeof final.done_reason === 'string' && final.done_reason !== '' ? final.done_reason : undefined,
  };
}

function failure(part: Record<string, unknown>): CallError | undefined {
  if (part.error === undefined) return undefined;
  return new CallError(typeof part.error === 'string' ? part.error : JSON.stringify(part.error), true);
}

function contentOf(part: Record<string, unknown>): unknown {
  return record(part.message)?.content;
}

async function stream(lines: AsyncIterable<string>, answer: AnswerText): Promise<Tally> {
  for await (const line of lines) {
    if (line.trim() === '') continue;
    const part = record(parseJson(line, 'a line of the stream'));
    if (!part) throw new CallError('a line of the stream is not a JSON object', true);
    const error = failure(part);
    if (error) throw error;
    const content = contentOf(part);
    if (typeof content === 'string') answer.add(content);
    // Whatever follows the final message is not read (the exchange is closed).
    if (part.done === true) return tally(part);
  }
  throw new CallError('the stream ended without its final message', true);
}

function whole(value: unknown, answer: AnswerText): Tally {
  const final = record(value);
  if (!final) throw new CallError('the answer is not a JSON object', true);
  const error = failure(final);
  if (error) throw error;
  const content = contentOf(final);
  if (typeof content !== 'string') throw new CallError('the answer has no message content', true);
  answer.add(content);
  return tally(final);
}

const chat: ChatProtocol = { chatPath: '/api/chat', body, stream, whole };

/** `GET /api/tags`: the models a host has, by both of its names (`name`, `model`), with their digests. */
function models(value: unknown): ModelListing[] {
  const models = record(value)?.models;
  if (!Array.isArray(models)) throw new CallError('/api/tags answered without a model list', true);
  return models.flatMap((m) => {
    const entry = record(m);
    if (!entry) return [];
    const digest = typeof entry.digest === 'string' && entry.digest !== '' ? entry.digest : undefined;
    const names = new Set([entry.name, entry.model].filter((n): n is string => typeof n === 'string' && n !== ''));
    return [...names].map((name) => ({ name, digest }));
  });
}

/** `phi3` on the command line means `phi3:latest` on the host, as in `ollama run`. */
function hasModel(names: readonly string[], model: string): boolean {
  const wanted = model.includes(':') ? [model] : [model, `${model}:latest`];
  return names.some((n) => wanted.includes(n));
}

/** `/api/tags` for the digest, `POST /api/show` (without `verbose`: no tokenizer) for the capabilities and details. */
async function describe(model: string, get: (path: string, body?: unknown) => Promise<unknown>, listing: () => Promise<ModelListing[]>) {
  const digest = (await listing()).find((m) => hasModel([m.name], model))?.digest;
  const shown = record(await get('/api/show', { model })) ?? {};
  const capabilities = Array.isArray(shown.capabilities) ? shown.capabilities.filter((c): c is string => typeof c === 'string') : undefined;
  return { name: model, digest, capabilities, details: record(shown.details) ?? {} };
}

export const OLLAMA_API: ModelApiBackend = {
  title: 'Ollama',
  help: 'native /api/chat',
  keyVariables: ['SBEVAL_OLLAMA_API_KEY'],
  defaultPath: undefined,
  chat,
  listing: { path: '/api/tags', models },
  hasModel,
  describe,
  problems: {
    unreachable: 'no Ollama host answered /api/tags',
    unreachableHint: 'start `ollama serve` on the host, or pass the right --hosts',
    missingHint: (model) => `run \`ollama pull ${model}\` on the hosts`,
  },
};
