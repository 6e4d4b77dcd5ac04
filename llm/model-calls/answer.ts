import { answerTooLarge } from './exchange.js';
import type { Host } from './host.js';
import { CallError, type ChatRequestSpec, type ChatResult } from './types.js';

/**
 * What both APIs share once the bytes are in: the answer text under its byte cap, the JSON of one
 * line or event, and the shape of a protocol (ollama-api.ts, openai-api.ts).
 */
export type Tally = Omit<ChatResult, 'content'>;

export interface ChatProtocol {
  /** Path of the chat call under the endpoint's base. */
  chatPath: string;
  body(request: ChatRequestSpec, stream: boolean): unknown;
  /** Reads a streamed answer (its lines) into `answer`. */
  stream(lines: AsyncIterable<string>, answer: AnswerText): Promise<Tally>;
  /** Reads a whole answer (its parsed JSON) into `answer`. */
  whole(body: unknown, answer: AnswerText): Tally;
}

/**
 * The cap on one buffered line (or event, or whole JSON answer) for an answer cap of `maxAnswerBytes`:
 * the answer JSON-escaped at worst (`\u001f`: 6 bytes per byte, the longest escape JSON has) plus
 * 64 KiB for the fields around it. Lines are buffered only until they end, so memory stays within
 * this whatever a host streams.
 */
export function lineCap(maxAnswerBytes: number): number {
  return 6 * maxAnswerBytes + 64 * 1024;
}

/** The answer text as it streams in; more than `maxBytes` UTF-8 bytes ends the call. */
export class AnswerText {
  private readonly parts: string[] = [];
  private bytes = 0;

  constructor(
    private readonly endpoint: Host,
    readonly maxBytes: number,
  ) {}

  add(text: string): void {
    if (text.length === 0) return;
    this.bytes += Buffer.byteLength(text, 'utf8');
    if (this.bytes > this.maxBytes) throw answerTooLarge(this.endpoint, this.maxBytes);
    this.parts.push(text);
  }

  get value(): string {
    return this.parts.join('');
  }
}

/** A line or body that must be JSON; anything else is the host's fault (retried). */
export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CallError(`${what} is not JSON: ${text.slice(0, 80).replace(/\s+/g, ' ')}${text.length > 80 ? '…' : ''}`, true);
  }
}

/** A JSON object or nothing. */
export function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A count a host reported, or undefined when it sent none (or something that is not a count). */
export function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}
