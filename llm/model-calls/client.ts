import type { ModelApi } from '../../orchestrator/config/model-calls.js';
import { AnswerText, type ChatProtocol, lineCap, parseJson, record } from './answer.js';
import type { ModelEndpoint } from './endpoint.js';
import { Exchange, type ExchangeBounds } from './exchange.js';
import { OLLAMA_CHAT, ollamaHasModel, ollamaModels } from './ollama-api.js';
import { OPENAI_CHAT, openAiModels } from './openai-api.js';
import { CallError, type CallSettings, type ChatRequestSpec, type ChatResult } from './types.js';

/**
 * The one model-call client of sbeval (generation, the chat proxy's calls, the judges): one attempt
 * of a chat call, and the model listings, on an Ollama or an OpenAI-style host, every one under the
 * bounds of exchange.ts. Retrying is the host pool's business (llm/generate/host-pool.ts);
 * this module only says whether a failure is worth retrying.
 */

/**
 * Listings and model details are small (tens of KB for a host with many models; `/api/show` without
 * `verbose` leaves the tokenizer out); 8 MiB bounds a hostile one.
 */
const METADATA_BYTES = 8 * 1024 * 1024;

const PROTOCOLS: Record<ModelApi, ChatProtocol> = { ollama: OLLAMA_CHAT, openai: OPENAI_CHAT };

/** Every message a host's words reach is scrubbed of the endpoint's credentials. */
function scrubbed(endpoint: ModelEndpoint, error: unknown): CallError {
  if (error instanceof CallError) return new CallError(endpoint.redact(error.message), error.retry, error.status, error.modelMissing);
  return new CallError(endpoint.redact(error instanceof Error ? error.message : String(error)), true);
}

/** One attempt of a chat call. Throws `CallError`. */
export async function chatOnce(endpoint: ModelEndpoint, request: ChatRequestSpec, settings: CallSettings, cancel?: AbortSignal): Promise<ChatResult> {
  const protocol = PROTOCOLS[endpoint.api];
  const answer = new AnswerText(endpoint, settings.maxAnswerBytes);
  const maxLine = lineCap(settings.maxAnswerBytes);
  let exchange: Exchange | undefined;
  try {
    exchange = await Exchange.open(endpoint, protocol.chatPath, { method: 'POST', body: protocol.body(request, settings.stream) }, settings, cancel);
    const tally = settings.stream
      ? await protocol.stream(exchange.lines(maxLine), answer)
      : protocol.whole(parseJson(await exchange.text(maxLine), 'the answer'), answer);
    return { content: answer.value, ...tally };
  } catch (error) {
    throw scrubbed(endpoint, error);
  } finally {
    exchange?.close();
  }
}

async function getJson(endpoint: ModelEndpoint, path: string, bounds: ExchangeBounds, body?: unknown): Promise<unknown> {
  let exchange: Exchange | undefined;
  try {
    exchange = await Exchange.open(endpoint, path, body === undefined ? { method: 'GET' } : { method: 'POST', body }, bounds);
    return parseJson(await exchange.text(METADATA_BYTES), `the answer of ${path}`);
  } catch (error) {
    throw scrubbed(endpoint, error);
  } finally {
    exchange?.close();
  }
}

export interface ModelListing {
  name: string;
  /** Ollama's digest of the model (`/api/tags`); OpenAI lists none. */
  digest: string | undefined;
}

/** The models a host has (Ollama `GET /api/tags`, OpenAI `GET …/models`), within `timeoutMs` for the whole exchange. */
export async function listModels(endpoint: ModelEndpoint, timeoutMs: number): Promise<ModelListing[]> {
  const bounds = { deadlineMs: timeoutMs, stallTimeoutMs: 0 };
  if (endpoint.api === 'ollama') return ollamaModels(await getJson(endpoint, '/api/tags', bounds));
  return openAiModels(await getJson(endpoint, '/models', bounds));
}

/** Whether a listing holds `model` (Ollama: `phi3` means `phi3:latest`; OpenAI: the exact id). */
export function hostHasModel(names: readonly string[], model: string, api: ModelApi = 'ollama'): boolean {
  return api === 'ollama' ? ollamaHasModel(names, model) : names.includes(model);
}

export interface ModelDetails {
  name: string;
  digest: string | undefined;
  /** Ollama `/api/show` `capabilities` (e.g. `completion`, `vision`), when the host reports them. */
  capabilities: string[] | undefined;
  /** Ollama `/api/show` `details` (family, parameter size, quantization); OpenAI `…/models/<id>` (owner, created). */
  details: Record<string, unknown>;
}

/** What a host says about one model (Ollama `/api/tags` + `POST /api/show`; OpenAI `GET …/models/<id>`), for provenance. */
export async function describeModel(endpoint: ModelEndpoint, model: string, timeoutMs: number): Promise<ModelDetails> {
  const bounds = { deadlineMs: timeoutMs, stallTimeoutMs: 0 };
  if (endpoint.api === 'openai') {
    const entry = record(await getJson(endpoint, `/models/${encodeURIComponent(model)}`, bounds)) ?? {};
    return { name: model, digest: undefined, capabilities: undefined, details: entry };
  }
  const listing = await listModels(endpoint, timeoutMs);
  const digest = listing.find((m) => ollamaHasModel([m.name], model))?.digest;
  const shown = record(await getJson(endpoint, '/api/show', bounds, { model })) ?? {};
  const capabilities = Array.isArray(shown.capabilities) ? shown.capabilities.filter((c): c is string => typeof c === 'string') : undefined;
  return { name: model, digest, capabilities, details: record(shown.details) ?? {} };
}
