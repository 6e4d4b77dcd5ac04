import { Ollama, type ChatResponse, type Message } from 'ollama';

/**
 * One chat call to one Ollama host through the `ollama` npm client, and the classification of what
 * can go wrong. Retrying is the host pool's business (host-pool.ts); this module only says whether a
 * failure is worth retrying.
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
  /** Images for vision models, base64-encoded (Ollama's `images` field of a message). */
  images?: string[] | undefined;
}

export interface ChatOptions {
  temperature: number;
  top_p: number;
  seed: number;
  /** Cap on completion tokens; omitted = the server's default. */
  num_predict?: number | undefined;
}

export interface ChatRequestSpec {
  model: string;
  messages: ChatMessage[];
  options: ChatOptions;
}

export interface ChatResult {
  content: string;
  /** Ollama's `prompt_eval_count` (0 when absent: a fully cached prompt reports none). */
  promptTokens: number;
  /** Ollama's `eval_count`. */
  completionTokens: number;
  doneReason: string | undefined;
}

export interface CallSettings {
  /** Streamed NDJSON (`true`, default) or one JSON answer. Streaming lets a silent host be detected. */
  stream: boolean;
  /**
   * Abort the attempt when no byte arrived for this long (ms); 0 = never. A streamed answer sends a
   * line per token, so this only catches a silent host; a non-streamed answer arrives whole at the
   * end, so there the timeout bounds the entire call.
   */
  stallTimeoutMs: number;
}

/** Why an attempt failed. `retry` failures are the infrastructure's (network, 5xx, dropped stream). */
export class CallError extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
    readonly status?: number,
    readonly modelMissing = false,
  ) {
    super(message);
    this.name = 'CallError';
  }
}

/**
 * A fetch for the client that (1) aborts when the host stays silent for `stallTimeoutMs` — before the
 * headers and, for streams, between chunks — and when the run is cancelled, and (2) turns non-JSON
 * error bodies (a proxy's HTML 502) into JSON, so the client reports them instead of printing
 * "Getting text from response" to the console.
 */
function guardedFetch(controller: AbortController, settings: CallSettings, onActivity: () => void): typeof fetch {
  return async (input, init) => {
    const signal = init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
    const response = await fetch(input, { ...init, signal });
    if (!response.ok && !(response.headers.get('content-type') ?? '').includes('application/json')) {
      const text = await response.text().catch(() => '');
      const error = text.trim() || `${response.status} ${response.statusText}`;
      return new Response(JSON.stringify({ error }), { status: response.status, statusText: response.statusText, headers: { 'content-type': 'application/json' } });
    }
    if (!response.body || !settings.stream) return response;
    // Re-arm the stall timer on every chunk the host sends.
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(sink) {
        try {
          const { done, value } = await reader.read();
          if (done) sink.close();
          else {
            onActivity();
            sink.enqueue(value);
          }
        } catch (error) {
          sink.error(error);
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function classify(error: unknown, stalled: boolean, cancelled: boolean): CallError {
  if (error instanceof CallError) return error;
  if (cancelled) return new CallError('cancelled', false);
  if (stalled) return new CallError('no data from the host within the stall timeout', true);
  const status = (error as { status_code?: unknown }).status_code;
  const message = error instanceof Error ? error.message : String(error);
  if (typeof status === 'number') {
    if (status >= 500 || status === 429 || status === 408) return new CallError(`HTTP ${status}: ${message}`, true, status);
    if (status === 404) return new CallError(`HTTP 404: ${message}`, false, status, true);
    return new CallError(`HTTP ${status}: ${message}`, false, status);
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const detail = cause?.code ?? cause?.message;
  // Everything else is the transport: refused or reset connections, a stream that ended without its
  // `done` message ("Did not receive done or success response in stream."), an `{"error": …}` line
  // in the middle of a stream, a body that is not JSON.
  return new CallError(detail && !message.includes(detail) ? `${message} (${detail})` : message, true);
}

/** One attempt. Throws `CallError`. */
export async function chatOnce(host: string, request: ChatRequestSpec, settings: CallSettings, cancel?: AbortSignal): Promise<ChatResult> {
  const controller = new AbortController();
  let stalled = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    if (timer) clearTimeout(timer);
    if (settings.stallTimeoutMs > 0) {
      timer = setTimeout(() => {
        stalled = true;
        controller.abort(new Error('stalled'));
      }, settings.stallTimeoutMs);
    }
  };
  const onCancel = () => controller.abort(new Error('cancelled'));
  cancel?.addEventListener('abort', onCancel, { once: true });
  arm();
  const client = new Ollama({ host, fetch: guardedFetch(controller, settings, arm) });
  const messages: Message[] = request.messages.map((m) => (m.images && m.images.length > 0 ? { role: m.role, content: m.content, images: m.images } : { role: m.role, content: m.content }));
  const options: Record<string, number> = { temperature: request.options.temperature, top_p: request.options.top_p, seed: request.options.seed };
  if (request.options.num_predict !== undefined) options.num_predict = request.options.num_predict;
  try {
    if (cancel?.aborted) throw new CallError('cancelled', false);
    let final: ChatResponse | undefined;
    let content = '';
    if (settings.stream) {
      const stream = await client.chat({ model: request.model, messages, options, stream: true });
      for await (const part of stream) {
        content += part.message?.content ?? '';
        if (part.done) final = part;
      }
      if (!final) throw new CallError('the stream ended without its final message', true);
    } else {
      final = await client.chat({ model: request.model, messages, options, stream: false });
      content = final.message?.content ?? '';
      if (typeof final.message?.content !== 'string') throw new CallError('the answer has no message content', true);
    }
    return {
      content,
      promptTokens: Number.isFinite(final.prompt_eval_count) ? final.prompt_eval_count : 0,
      completionTokens: Number.isFinite(final.eval_count) ? final.eval_count : 0,
      doneReason: final.done_reason || undefined,
    };
  } catch (error) {
    throw classify(error, stalled, cancel?.aborted ?? false);
  } finally {
    if (timer) clearTimeout(timer);
    cancel?.removeEventListener('abort', onCancel);
  }
}

/** The model names a host has (`/api/tags`). */
export async function listModels(host: string, timeoutMs: number): Promise<string[]> {
  const client = new Ollama({ host, fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) }) });
  const list = await client.list();
  return list.models.flatMap((m) => [m.name, m.model]).filter((n): n is string => typeof n === 'string');
}

/** `phi3` on the command line means `phi3:latest` on the host, as in `ollama run`. */
export function hostHasModel(names: readonly string[], model: string): boolean {
  const wanted = model.includes(':') ? [model] : [model, `${model}:latest`];
  return names.some((n) => wanted.includes(n));
}
