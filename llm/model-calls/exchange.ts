import { type Host, hostLabel } from './host.js';
import { CallError } from './types.js';

/**
 * One HTTP request to a model host and the reading of its answer, under hard bounds: an overall
 * deadline (armed before the request, so it also covers a host that never sends its headers), a stall
 * timer re-armed by every byte, byte caps on whatever is buffered, and no redirects (fetch's
 * `redirect: 'manual'`: a 3xx is refused with a line naming both hosts, so an answer never comes from a
 * host the logs do not name). Every failure is a `CallError` whose message is scrubbed of the
 * endpoint's credentials.
 */
export interface ExchangeBounds {
  /** ms; 0 = none. */
  deadlineMs: number;
  /** ms; 0 = none. */
  stallTimeoutMs: number;
}

/** An error body is read for its message only: the first 4 KiB are plenty for one line. */
const ERROR_BODY_BYTES = 4096;
/** Longest error detail kept in a message (one readable line). */
const ERROR_DETAIL_CHARS = 300;

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** Timers and the abort that ends the request, with the reason of whichever bound fired first. */
class Guard {
  readonly controller = new AbortController();
  private readonly deadline: NodeJS.Timeout | undefined;
  private stall: NodeJS.Timeout | undefined;
  private readonly onCancel = () => this.abort(new CallError('cancelled', false));

  constructor(
    private readonly endpoint: Host,
    private readonly bounds: ExchangeBounds,
    private readonly cancel: AbortSignal | undefined,
  ) {
    if (bounds.deadlineMs > 0) {
      this.deadline = setTimeout(
        () =>
          this.abort(
            new CallError(`no complete answer from ${endpoint.label} within the call deadline of ${seconds(bounds.deadlineMs)} (--call-timeout)`, true),
          ),
        bounds.deadlineMs,
      );
    }
    this.activity();
    cancel?.addEventListener('abort', this.onCancel, { once: true });
    if (cancel?.aborted) this.onCancel();
  }

  /** Bytes arrived: the host is not silent. */
  activity(): void {
    if (this.bounds.stallTimeoutMs <= 0) return;
    if (this.stall) clearTimeout(this.stall);
    this.stall = setTimeout(
      () => this.abort(new CallError(`no data from ${this.endpoint.label} for ${seconds(this.bounds.stallTimeoutMs)} (--stall-timeout)`, true)),
      this.bounds.stallTimeoutMs,
    );
  }

  abort(reason: CallError): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  /** What an error thrown by fetch or a read means: the bound that fired, else the transport's own words. */
  failure(error: unknown): CallError {
    if (this.controller.signal.aborted && this.controller.signal.reason instanceof CallError) return this.controller.signal.reason;
    if (error instanceof CallError) return error;
    const message = error instanceof Error ? error.message : String(error);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message;
    return new CallError(this.endpoint.redact(detail && !message.includes(detail) ? `${message} (${detail})` : message), true);
  }

  dispose(): void {
    if (this.deadline) clearTimeout(this.deadline);
    if (this.stall) clearTimeout(this.stall);
    this.cancel?.removeEventListener('abort', this.onCancel);
  }
}

export class Exchange {
  private finished = false;

  private constructor(
    private readonly endpoint: Host,
    private readonly guard: Guard,
    private readonly reader: ReadableStreamDefaultReader<Uint8Array> | undefined,
  ) {}

  /** Sends the request; resolves once a 2xx answer's headers are in. Throws `CallError`. */
  static async open(
    endpoint: Host,
    path: string,
    request: { method: 'GET' | 'POST'; body?: unknown },
    bounds: ExchangeBounds,
    cancel?: AbortSignal,
  ): Promise<Exchange> {
    const guard = new Guard(endpoint, bounds, cancel);
    let response: Response;
    try {
      if (guard.controller.signal.aborted) throw guard.controller.signal.reason;
      response = await fetch(endpoint.url(path), {
        method: request.method,
        headers: {
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
          accept: 'application/json, application/x-ndjson, text/event-stream',
          ...endpoint.headers(),
        },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        redirect: 'manual',
        signal: guard.controller.signal,
      });
    } catch (error) {
      guard.dispose();
      throw guard.failure(error);
    }
    const exchange = new Exchange(endpoint, guard, response.body?.getReader());
    guard.activity();
    if (response.status >= 300 && response.status < 400) {
      exchange.close();
      throw new CallError(
        endpoint.redact(`redirect refused: ${endpoint.label} answered ${response.status} ${response.statusText} to ${target(response, endpoint)}`),
        true,
        response.status,
      );
    }
    if (!response.ok) {
      const detail = await exchange.errorDetail();
      throw statusError(endpoint, response.status, detail || `${response.status} ${response.statusText}`);
    }
    return exchange;
  }

  /** The next chunk of the body, or undefined at its end. */
  private async read(): Promise<Uint8Array | undefined> {
    if (!this.reader) return undefined;
    try {
      const { done, value } = await this.reader.read();
      if (done) {
        this.finished = true;
        return undefined;
      }
      this.guard.activity();
      return value;
    } catch (error) {
      throw this.guard.failure(error);
    }
  }

  /** The body's lines (`\n`-separated, a trailing `\r` removed); a line longer than `maxLineBytes` ends the exchange. */
  async *lines(maxLineBytes: number): AsyncGenerator<string> {
    let parts: Uint8Array[] = [];
    let size = 0;
    for (let chunk = await this.read(); chunk; chunk = await this.read()) {
      let start = 0;
      for (let newline = chunk.indexOf(10, start); newline >= 0; newline = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, newline);
        if (size + piece.length > maxLineBytes) throw this.tooLarge(maxLineBytes);
        yield decodeLine([...parts, piece]);
        parts = [];
        size = 0;
        start = newline + 1;
      }
      if (start < chunk.length) {
        size += chunk.length - start;
        if (size > maxLineBytes) throw this.tooLarge(maxLineBytes);
        parts.push(chunk.subarray(start));
      }
    }
    if (size > 0) yield decodeLine(parts);
  }

  /** The whole body as text; more than `maxBytes` ends the exchange. */
  async text(maxBytes: number): Promise<string> {
    const parts: Uint8Array[] = [];
    let size = 0;
    for (let chunk = await this.read(); chunk; chunk = await this.read()) {
      size += chunk.length;
      if (size > maxBytes) throw this.tooLarge(maxBytes);
      parts.push(chunk);
    }
    return Buffer.concat(parts).toString('utf8');
  }

  private tooLarge(maxBytes: number): CallError {
    const error = answerTooLarge(this.endpoint, maxBytes);
    this.guard.abort(error);
    return error;
  }

  /** The message of an error answer: its JSON `error` (Ollama) or `error.message` (OpenAI), else its text, on one line. */
  private async errorDetail(): Promise<string> {
    let text = '';
    try {
      const parts: Uint8Array[] = [];
      let size = 0;
      while (size < ERROR_BODY_BYTES) {
        const chunk = await this.read();
        if (!chunk) break;
        parts.push(chunk);
        size += chunk.length;
      }
      text = Buffer.concat(parts).subarray(0, ERROR_BODY_BYTES).toString('utf8');
    } catch {
      // The body is only the message; a host that fails to send it still failed with its status.
    } finally {
      this.close();
    }
    return this.endpoint.redact(oneLine(errorMessageOf(text)));
  }

  /** Ends the exchange: timers cleared, an unread body's connection dropped. Safe to call twice. */
  close(): void {
    this.guard.dispose();
    if (!this.finished) {
      this.finished = true;
      this.guard.abort(new CallError('closed', false));
      this.reader?.cancel().catch(() => {});
    }
  }
}

/** The one message of every byte cap, whichever buffer hit it. */
export function answerTooLarge(endpoint: Host, maxBytes: number): CallError {
  return new CallError(`the answer from ${endpoint.label} exceeds ${maxBytes} bytes (--max-answer-bytes)`, true);
}

function decodeLine(parts: Uint8Array[]): string {
  const text = Buffer.concat(parts).toString('utf8');
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}

function target(response: Response, endpoint: Host): string {
  const location = response.headers.get('location');
  if (!location) return 'no location';
  try {
    return hostLabel(new URL(location, endpoint.base).href);
  } catch {
    return 'an invalid location';
  }
}

function errorMessageOf(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string') return body.error;
    if (body.error && typeof (body.error as { message?: unknown }).message === 'string') return (body.error as { message: string }).message;
    if (typeof body.message === 'string') return body.message;
  } catch {
    // Not JSON (a proxy's HTML page): its text.
  }
  return text;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > ERROR_DETAIL_CHARS ? `${line.slice(0, ERROR_DETAIL_CHARS)}…` : line;
}

/** 5xx, 429 and 408 are the host's trouble (retried); 404 is a missing model; other 4xx are the request's. */
function statusError(endpoint: Host, status: number, detail: string): CallError {
  if (status >= 500 || status === 429 || status === 408) return new CallError(`HTTP ${status}: ${detail}`, true, status);
  if (status === 404) return new CallError(`HTTP 404: ${detail}`, false, status, true);
  if (status === 401 || status === 403) return new CallError(`HTTP ${status}: ${detail} (${endpoint.keyHint()})`, false, status);
  return new CallError(`HTTP ${status}: ${detail}`, false, status);
}
