import type WebSocket from 'ws';
import { describeError, SbevalError } from '../core/errors.js';
import { CLOSE, decodeMessage, type ErrorPhase, encodeMessage, type Message, ProtocolError, type Side } from './protocol.js';

/**
 * One end of a bridge connection, either side: sends messages, decodes and validates what arrives,
 * answers pings, watches the heartbeat, and turns every protocol violation into an `error` message
 * followed by a close with a reason (PROTOCOL.md, "Errors"). Used by the endpoint's remote engines
 * and by the engine worker.
 */
export interface SocketClose {
  code: number;
  reason: string;
  /** Set when this side closed because of a protocol violation or a heartbeat timeout. */
  error?: Error;
  /** True when this side initiated the close. */
  local: boolean;
}

interface MessageSocketOptions {
  /** Who is on the other end (messages are validated as sent by that side). */
  peer: Side;
  maxMessageBytes: number;
  onMessage: (message: Message) => void;
  onClose: (close: SocketClose) => void;
  /**
   * False: until `establish()`, `ping`/`pong` are not answered here but passed to `onMessage` like any
   * message (the endpoint requires `hello` first). Default true.
   */
  pingsBeforeHandshake?: boolean;
}

/** RFC 6455 §5.5: a close frame's payload is at most 125 bytes, 2 of them the code. */
export const MAX_CLOSE_REASON_BYTES = 123;

/**
 * A close reason that fits the WebSocket limit of 123 UTF-8 bytes: the text as is when it fits,
 * otherwise as many whole characters (code points, never half a surrogate pair) as fit with "…"
 * (3 bytes) after them. `ws.close` throws a RangeError on a longer reason — from a socket event
 * handler, that crashes the whole process.
 */
export function closeReason(text: string): string {
  if (Buffer.byteLength(text) <= MAX_CLOSE_REASON_BYTES) return text;
  const ellipsis = '…';
  const room = MAX_CLOSE_REASON_BYTES - Buffer.byteLength(ellipsis);
  let out = '';
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > room) break;
    out += char;
    bytes += size;
  }
  return `${out}${ellipsis}`;
}

/** `ws.close` that cannot throw: a reason too long or a socket in a bad state ends in a plain drop. */
export function safeClose(ws: WebSocket, code: number, reason: string): void {
  try {
    ws.close(code, closeReason(reason));
  } catch {
    try {
      ws.terminate();
    } catch {
      // Nothing left to close.
    }
  }
}

export class MessageSocket {
  lastReceived = Date.now();
  private closing: SocketClose | undefined;
  private closed = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private nonce = 0;
  private maxMessageBytes: number;

  constructor(
    readonly ws: WebSocket,
    private readonly options: MessageSocketOptions,
  ) {
    this.maxMessageBytes = options.maxMessageBytes;
    this.established = options.pingsBeforeHandshake !== false;
    ws.binaryType = 'nodebuffer';
    ws.on('message', (data, isBinary) => this.receive(data, isBinary));
    ws.on('close', (code, reason) => this.onClosed(code, reason.toString()));
    ws.on('error', (error) => {
      // `ws` reports an oversize message (then closes with 1009) and connection failures as errors;
      // keep them as the reason of the close that follows.
      const tooLarge = /max payload size exceeded/i.test(error.message);
      const wrapped = tooLarge ? new ProtocolError('too-large', `message larger than the limit of ${options.maxMessageBytes} bytes`) : error;
      this.closing ??= { code: tooLarge ? CLOSE.tooLarge : 1006, reason: closeReason(wrapped.message), error: wrapped, local: tooLarge };
    });
  }

  private established: boolean;

  /** The handshake is done: accept messages up to `maxMessageBytes` from now on, answer pings. */
  establish(maxMessageBytes: number): void {
    this.maxMessageBytes = maxMessageBytes;
    this.established = true;
  }

  get open(): boolean {
    return !this.closed && this.closing === undefined && this.ws.readyState === this.ws.OPEN;
  }

  send(message: Message): void {
    if (!this.open) return;
    this.ws.send(encodeMessage(message), { binary: true });
  }

  /** Sends `error` and closes: the peer broke the protocol (or the handshake failed). */
  fail(error: ProtocolError | Error, phase?: ErrorPhase): void {
    if (!this.open) return;
    const code = error instanceof ProtocolError ? error.closeCode : CLOSE.unexpected;
    const p: ErrorPhase = phase ?? (error instanceof ProtocolError && error.phase === 'handshake' ? 'handshake' : 'protocol');
    const hint = error instanceof SbevalError ? error.hint : undefined;
    this.send({ type: 'error', phase: p, fault: 'engine', message: error.message, ...(hint ? { hint } : {}) });
    this.closing = { code, reason: closeReason(error.message), error, local: true };
    safeClose(this.ws, code, this.closing.reason);
    this.forceCloseLater();
  }

  /** A normal close (after `bye`, or when the connection is no longer needed). */
  close(code: number = CLOSE.normal, reason = ''): void {
    if (this.closed || this.closing) return;
    this.closing = { code, reason: closeReason(reason), local: true };
    this.stopHeartbeat();
    if (this.ws.readyState === this.ws.CONNECTING || this.ws.readyState === this.ws.OPEN) safeClose(this.ws, code, this.closing.reason);
    this.forceCloseLater();
  }

  /** Tears the connection down at once (the peer is unresponsive). */
  terminate(error: Error, code: number = CLOSE.timeout): void {
    if (this.closed) return;
    this.closing ??= { code, reason: closeReason(error.message), error, local: true };
    this.ws.terminate();
  }

  /**
   * Sends a ping every `intervalMs` and closes the connection when nothing at all (any message counts)
   * arrived for `timeoutMs`.
   */
  startHeartbeat(intervalMs: number, timeoutMs: number): void {
    this.stopHeartbeat();
    this.lastReceived = Date.now();
    this.heartbeat = setInterval(() => {
      const silent = Date.now() - this.lastReceived;
      if (silent > timeoutMs) {
        const error = new ProtocolError(
          'timeout',
          `no message from the ${this.options.peer} for ${(silent / 1000).toFixed(1)} s (heartbeat timeout ${timeoutMs} ms)`,
        );
        if (this.open) this.send({ type: 'error', phase: 'protocol', fault: 'engine', message: error.message });
        this.terminate(error);
        return;
      }
      this.nonce = (this.nonce + 1) % 0x7fffffff;
      this.send({ type: 'ping', nonce: this.nonce });
    }, intervalMs);
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private forceCloseLater(): void {
    // A peer that never completes the closing handshake must not keep us waiting.
    setTimeout(() => {
      if (!this.closed) this.ws.terminate();
    }, 2000).unref();
  }

  private receive(data: WebSocket.RawData, isBinary: boolean): void {
    if (this.closed || this.closing) return;
    this.lastReceived = Date.now();
    if (!isBinary) {
      this.fail(new ProtocolError('malformed', 'text frames are not part of the protocol (messages are binary msgpack)'));
      return;
    }
    const bytes = Array.isArray(data) ? Buffer.concat(data) : data instanceof ArrayBuffer ? new Uint8Array(data) : data;
    let message: Message;
    try {
      message = decodeMessage(bytes, { from: this.options.peer, maxBytes: this.maxMessageBytes });
    } catch (error) {
      this.fail(error instanceof ProtocolError ? error : new ProtocolError('malformed', describeError(error)));
      return;
    }
    if (this.established && message.type === 'ping') {
      this.send({ type: 'pong', nonce: message.nonce });
      return;
    }
    if (this.established && message.type === 'pong') return;
    try {
      this.options.onMessage(message);
    } catch (error) {
      this.fail(error instanceof ProtocolError ? error : new ProtocolError('unexpected', describeError(error)));
    }
  }

  private onClosed(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.stopHeartbeat();
    const local = this.closing;
    this.options.onClose(local ?? { code, reason, local: false });
  }
}
