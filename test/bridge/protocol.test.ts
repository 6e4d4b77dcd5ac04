import { readFileSync } from 'node:fs';
import { Packr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import {
  CLOSE,
  checkCompatibility,
  decodeMessage,
  encodeMessage,
  MESSAGE_TYPES,
  type Message,
  PROTOCOL_VERSION,
  ProtocolError,
  SENDERS,
} from '../../bridge/protocol.js';
import { sampleMessages, toHex } from './samples.js';

const plain = new Packr({ useRecords: false, variableMapSize: true });

function senderOf(m: Message): 'engine' | 'orchestrator' {
  return SENDERS[m.type][0] as 'engine' | 'orchestrator';
}

function decodeError(bytes: Uint8Array, from: 'engine' | 'orchestrator' = 'engine', maxBytes?: number): ProtocolError {
  try {
    decodeMessage(bytes, { from, maxBytes });
  } catch (error) {
    expect(error).toBeInstanceOf(ProtocolError);
    return error as ProtocolError;
  }
  throw new Error('expected a ProtocolError');
}

describe('messages', () => {
  it('has a sample of every message type', () => {
    expect(new Set(sampleMessages().map((m) => m.type))).toEqual(new Set(MESSAGE_TYPES));
  });

  it('decodes every sample to what was encoded, and re-encodes to the same bytes', () => {
    for (const m of sampleMessages()) {
      const bytes = encodeMessage(m);
      const back = decodeMessage(bytes, { from: senderOf(m) });
      expect(back).toEqual(m);
      expect(toHex(encodeMessage(back))).toBe(toHex(bytes));
    }
  });

  it('writes canonical msgpack, byte for byte as the spec says (PROTOCOL.md worked example)', () => {
    // {type: "ping", nonce: 7}: fixmap(2), fixstr "type", fixstr "ping", fixstr "nonce", positive fixint 7.
    expect(toHex(encodeMessage({ type: 'ping', nonce: 7 }))).toBe('82a474797065a470696e67a56e6f6e636507');
    // uint8 / uint16 / uint32 boundaries, then an integer above 2^32 - 1 that is written as float64.
    const tail = (nonce: number): string => toHex(encodeMessage({ type: 'pong', nonce })).slice('82a474797065a4706f6e67a56e6f6e6365'.length);
    expect(tail(127)).toBe('7f');
    expect(tail(128)).toBe('cc80');
    expect(tail(256)).toBe('cd0100');
    expect(tail(65536)).toBe('ce00010000');
    expect(tail(2 ** 32)).toBe('cb41f0000000000000');
    // frames: states are little-endian float32 in a bin, alive a bin of bytes.
    const frames = encodeMessage({
      type: 'frames',
      runId: 'r',
      batch: { firstStep: 0, stepCount: 1, bodyCount: 1, states: new Float32Array([1, -2, 0.5, 0, 0, 0]), alive: new Uint8Array([1]) },
    });
    expect(toHex(frames)).toContain(`a6737461746573c4180000803f000000c00000003f${'00000000'.repeat(3)}`);
    expect(toHex(frames)).toContain('a5616c697665c40101');
  });

  it('leaves optional fields out instead of writing nil', () => {
    const bytes = encodeMessage({ type: 'error', phase: 'simulate', fault: 'engine', message: 'm' });
    expect(plain.unpack(bytes)).toEqual({ type: 'error', phase: 'simulate', fault: 'engine', message: 'm' });
    expect(toHex(bytes)).not.toContain('c0');
  });

  it('ignores unknown fields (a newer minor may add optional ones)', () => {
    const bytes = plain.pack({ type: 'ping', nonce: 3, sentAt: 'later' });
    expect(decodeMessage(bytes, { from: 'engine' })).toEqual({ type: 'ping', nonce: 3 });
  });
});

describe('validation on receipt', () => {
  it('rejects bytes that are not msgpack', () => {
    const error = decodeError(new Uint8Array([0xc1]));
    expect(error.code).toBe('malformed');
    expect(error.closeCode).toBe(CLOSE.malformed);
  });

  it('rejects a truncated message', () => {
    const bytes = encodeMessage({ type: 'bye', reason: 'done for today' });
    expect(decodeError(bytes.subarray(0, bytes.length - 3)).code).toBe('malformed');
  });

  it('rejects values that are not maps, and maps without a type', () => {
    expect(decodeError(plain.pack([1, 2])).message).toMatch(/not a msgpack map/);
    expect(decodeError(plain.pack('hello')).message).toMatch(/not a msgpack map/);
    expect(decodeError(plain.pack({ nonce: 1 })).message).toMatch(/no string "type"/);
  });

  it('rejects unknown message types with their name', () => {
    const error = decodeError(plain.pack({ type: 'teleport', x: 1 }));
    expect(error.code).toBe('unknown-type');
    expect(error.closeCode).toBe(CLOSE.unknownType);
    expect(error.message).toContain('teleport');
  });

  it('rejects a message the sender never sends', () => {
    const load = encodeMessage(sampleMessages().find((m) => m.type === 'load') as Message);
    const error = decodeError(load, 'engine');
    expect(error.code).toBe('unexpected');
    expect(error.message).toMatch(/"load" is never sent by the engine/);
  });

  it('names the invalid field', () => {
    expect(decodeError(plain.pack({ type: 'ping', nonce: -1 })).message).toMatch(/nonce/);
    expect(decodeError(plain.pack({ type: 'ping', nonce: 1.5 })).message).toMatch(/nonce/);
    expect(decodeError(plain.pack({ type: 'ping', nonce: Number.NaN })).message).toMatch(/nonce/);
    expect(decodeError(plain.pack({ type: 'events', runId: 'r', events: [{ kind: 'contact', step: 1, a: 0 }] })).message).toMatch(/events\.0/);
    expect(decodeError(plain.pack({ type: 'events', runId: 'r', events: [{ kind: 'melted', step: 1, id: 0 }] })).message).toMatch(/events\.0/);
    expect(
      decodeError(
        plain.pack({ type: 'loaded', runId: 'r', dt: 0.02, bodies: [{ id: 0, kind: 'bird', type: 'BirdRed', counted: false, x: 0, y: 0, angle: 0 }] }),
      ).message,
    ).toMatch(/bodies\.0\.kind/);
  });

  it('checks that frame arrays match their declared shape', () => {
    const ok = { type: 'frames', runId: 'r', firstStep: 0, stepCount: 2, bodyCount: 3 };
    const states = new Uint8Array(2 * 3 * 6 * 4);
    expect(decodeError(plain.pack({ ...ok, states: states.subarray(4), alive: new Uint8Array(6) })).message).toMatch(/states has 140 bytes, expected 144/);
    expect(decodeError(plain.pack({ ...ok, states, alive: new Uint8Array(5) })).message).toMatch(/alive has 5 bytes, expected 6/);
    expect(decodeError(plain.pack({ ...ok, states: 'abc', alive: new Uint8Array(6) })).message).toMatch(/states/);
  });

  it('rejects a message above the size limit before decoding it', () => {
    const big = encodeMessage({ type: 'capture', runId: 'r', png: new Uint8Array(5000) });
    const error = decodeError(big, 'engine', 4096);
    expect(error.code).toBe('too-large');
    expect(error.closeCode).toBe(CLOSE.tooLarge);
    expect(error.message).toContain('4096');
  });

  it('decodes float32 frames from an unaligned bin exactly', () => {
    const values = new Float32Array([Math.fround(0.1), -3.37995, 1e-30, 7]);
    const m = decodeMessage(
      encodeMessage({
        type: 'frames',
        runId: 'rr',
        batch: { firstStep: 3, stepCount: 1, bodyCount: 1, states: new Float32Array([...values, 0, 0]), alive: new Uint8Array([1]) },
      }),
      { from: 'engine' },
    );
    if (m.type !== 'frames') throw new Error('not frames');
    expect(Array.from(m.batch.states.subarray(0, 4))).toEqual(Array.from(values));
  });
});

describe('checkCompatibility', () => {
  const table = JSON.parse(readFileSync(new URL('./fixtures/compatibility.json', import.meta.url), 'utf8')) as {
    cases: Array<{ ours: string; theirs: string; expect: 'ok' | 'warn' | 'incompatible' }>;
  };

  it.each(table.cases)('$ours with $theirs → $expect', ({ ours, theirs, expect: expected }) => {
    const result = checkCompatibility(ours, theirs);
    const verdict = !result.ok ? 'incompatible' : result.warning ? 'warn' : 'ok';
    expect(verdict).toBe(expected);
    if (!result.ok) expect(result.reason).toMatch(/version/);
  });

  it('accepts its own version', () => {
    expect(checkCompatibility(PROTOCOL_VERSION, PROTOCOL_VERSION)).toEqual({ ok: true });
  });
});
