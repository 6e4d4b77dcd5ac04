import { AnswerText, lineCap, parseJson } from './answer.js';
import type { ModelDetails, ModelListing } from './api-backend.js';
import { backendOf, type ModelApi } from './apis.js';
import type { ModelEndpoint } from './endpoint.js';
import { Exchange, type ExchangeBounds } from './exchange.js';
import { CallError, type CallSettings, type ChatRequestSpec, type ChatResult } from './types.js';

/**
 * The one model-call client of sbeval (generation, the chat proxy's calls, the judges): one attempt
 * of a chat call, and the model listings, on a host of any API in apis.ts, every one under the
 * bounds of exchange.ts. Retrying is the host pool's business (llm/generate/host-pool.ts);
 * this module only says whether a failure is worth retrying.
 */

/**
 * Listings and model details are small (tens of KB for a host with many models; `/api/show` without
 * `verbose` leaves the tokenizer out); 8 MiB bounds a hostile one.
 */
const METADATA_BYTES = 8 * 1024 * 1024;

/** Every message a host's words reach is scrubbed of the endpoint's credentials. */
function scrubbed(endpoint: ModelEndpoint, error: unknown): CallError {
  if (error instanceof CallError) return new CallError(endpoint.redact(error.message), error.retry, error.status, error.modelMissing);
  return new CallError(endpoint.redact(error instanceof Error ? error.message : String(error)), true);
}

/** One attempt of a chat call. Throws `CallError`. */
export async function chatOnce(endpoint: ModelEndpoint, request: ChatRequestSpec, settings: CallSettings, cancel?: AbortSignal): Promise<ChatResult> {
  const protocol = backendOf(endpoint.api).chat;
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

/** The models a host has (Ollama `GET /api/tags`, OpenAI `GET …/models`), within `timeoutMs` for the whole exchange. */
export async function listModels(endpoint: ModelEndpoint, timeoutMs: number): Promise<ModelListing[]> {
  const { listing } = backendOf(endpoint.api);
  return listing.models(await getJson(endpoint, listing.path, { deadlineMs: timeoutMs, stallTimeoutMs: 0 }));
}

/** Whether a listing holds `model` (Ollama: `phi3` means `phi3:latest`; OpenAI: the exact id). */
export function hostHasModel(names: readonly string[], model: string, api: ModelApi = 'ollama'): boolean {
  return backendOf(api).hasModel(names, model);
}

/** What a host says about one model (Ollama `/api/tags` + `POST /api/show`; OpenAI `GET …/models/<id>`), for provenance. */
export async function describeModel(endpoint: ModelEndpoint, model: string, timeoutMs: number): Promise<ModelDetails> {
  const bounds = { deadlineMs: timeoutMs, stallTimeoutMs: 0 };
  const get = (path: string, body?: unknown) => getJson(endpoint, path, bounds, body);
  return backendOf(endpoint.api).describe(model, get, () => listModels(endpoint, timeoutMs));
}
