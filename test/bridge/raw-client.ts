import WebSocket from 'ws';
import { decodeMessage, encodeMessage, type HelloMessage, type Message, PROTOCOL_VERSION } from '../../bridge/protocol.js';

/**
 * A hand-driven engine connection for tests: a real WebSocket that sends exactly what the test says
 * (valid messages, garbage, nothing at all) and records what the orchestrator sends back.
 */
export class RawClient {
  readonly received: Message[] = [];
  closed: Promise<{ code: number; reason: string }>;
  private waiters: Array<{ type: string; resolve: (m: Message) => void }> = [];
  private constructor(readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    ws.on('message', (data: Buffer) => {
      const message = decodeMessage(data, { from: 'orchestrator' });
      if (message.type === 'ping' && this.answerPings) this.send({ type: 'pong', nonce: message.nonce });
      this.received.push(message);
      const i = this.waiters.findIndex((w) => w.type === message.type);
      if (i >= 0) {
        const [w] = this.waiters.splice(i, 1);
        w?.resolve(message);
      }
    });
  }

  answerPings = true;

  static async connect(url: string): Promise<RawClient> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new RawClient(ws);
  }

  /** Connects and completes the handshake. */
  static async ready(url: string, token: string, hello: Partial<HelloMessage> = {}): Promise<RawClient> {
    const client = await RawClient.connect(url);
    client.send(helloMessage(token, hello));
    await client.next('welcome');
    return client;
  }

  send(message: Message): void {
    this.ws.send(encodeMessage(message));
  }

  sendBytes(bytes: Uint8Array | string): void {
    this.ws.send(bytes);
  }

  /** The next message of a type (already received ones count). */
  next<T extends Message['type']>(type: T, timeoutMs = 10_000): Promise<Extract<Message, { type: T }>> {
    const seen = this.received.findIndex((m) => m.type === type);
    if (seen >= 0) {
      const [m] = this.received.splice(seen, 1);
      return Promise.resolve(m as Extract<Message, { type: T }>);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "${type}" within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({
        type,
        resolve: (m) => {
          clearTimeout(timer);
          const i = this.received.indexOf(m);
          if (i >= 0) this.received.splice(i, 1);
          resolve(m as Extract<Message, { type: T }>);
        },
      });
    });
  }

  close(): void {
    this.ws.close();
  }
}

export function helloMessage(token: string, overrides: Partial<HelloMessage> = {}): HelloMessage {
  return {
    type: 'hello',
    protocol: PROTOCOL_VERSION,
    token,
    engine: { kind: 'test', version: '0.0.0', description: 'raw test client' },
    capabilities: { frames: true, events: true, capture: true, captureRaw: true, cancel: true, damageFormulas: [] },
    maxMessageBytes: 1 << 20,
    ...overrides,
  };
}
