import { type Message, PROTOCOL_VERSION } from '../../bridge/protocol.js';

/**
 * One sample of every message type, with values chosen to hit each msgpack format boundary (fixint,
 * uint8/16/32, negative fixint, int8/16/32, an integer above 2^32 that must become float64, float64,
 * fixstr/str8, multi-byte UTF-8, bin, optional fields present and absent).
 * `unity-plugin/Tests/Samples.cs` builds the same messages in C# and is generated from these
 * (`npm run protocol:cs`); the cross-language test checks that both encoders produce the same bytes
 * and that each side decodes and re-encodes the other's bytes unchanged.
 */
export function sampleMessages(): Message[] {
  const states = new Float32Array([0.5, -3.37995, Math.fround(Math.PI / 2), 0, -0.25, 1e-7, 2.12005, -3.1, 0, 1.5, 0, -2]);
  return [
    {
      type: 'hello',
      protocol: PROTOCOL_VERSION,
      token: 'tok-ÄÖ-🐦',
      instance: 'unity-0',
      engine: { kind: 'unity', version: '2019.4.40f1', description: 'Science Birds (ICE) sbeval plugin 0.1.0' },
      capabilities: { frames: true, events: true, capture: true, captureRaw: false, cancel: true, damageFormulas: [] },
      maxMessageBytes: 33554432,
    },
    { type: 'welcome', protocol: PROTOCOL_VERSION, sessionId: 's-1', engineId: 'unity-0', heartbeatMs: 5000, maxMessageBytes: 65536 },
    {
      type: 'load',
      runId: 'r-12',
      levelId: 'team/L/team_L_1',
      xml: '<?xml version="1.0" encoding="utf-16"?>\n<Level width="3">\n</Level>\n',
      settings: { windowSteps: 500, trial: 2, damage: 'contact-point', capture: true, captureRaw: true, framesPerBatch: 50 },
    },
    {
      type: 'loaded',
      runId: 'r-12',
      dt: 0.02,
      bodies: [
        { id: 0, kind: 'block', type: 'RectSmall', material: 'wood', counted: true, x: 2.12005, y: -3.37995, angle: 0 },
        { id: 1, kind: 'pig', type: 'BasicSmall', material: undefined, counted: true, x: -1, y: 127.5, angle: 1.5707963705062866 },
        { id: 200, kind: 'platform', type: 'Platform', material: undefined, counted: false, x: 300, y: -33, angle: -0.5 },
      ],
    },
    { type: 'frames', runId: 'r-12', batch: { firstStep: 65535, stepCount: 2, bodyCount: 1, states, alive: new Uint8Array([1, 0]) } },
    {
      type: 'events',
      runId: 'r-12',
      events: [
        { kind: 'contact', step: 1, a: 0, b: -1, relativeSpeed: 0.123 },
        { kind: 'contact', step: 128, a: 3, b: -2, relativeSpeed: 5 },
        { kind: 'damage', step: 256, id: 3, amount: 5.25, health: -0.25 },
        { kind: 'destroyed', step: 65536, id: 3 },
        { kind: 'removed', step: 4294967295, id: 3, reason: 'death' },
        { kind: 'removed', step: 40, id: 4, reason: 'out-of-world' },
        { kind: 'explosion', step: 41, id: 5, x: -129, y: -32768 },
      ],
    },
    { type: 'capture', runId: 'r-12', png: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
    { type: 'capture', runId: 'r-13', png: new Uint8Array(300).fill(7), raw: new Uint8Array([1, 2, 3]) },
    { type: 'done', runId: 'r-12', summary: { steps: 514, bodies: 30, events: 0, elapsedMs: 4294967296 } },
    { type: 'error', runId: 'r-12', levelId: 'team/L/team_L_1', phase: 'load', fault: 'level', message: 'Block type "Foo" is unknown', hint: 'check the XML' },
    { type: 'error', phase: 'protocol', fault: 'engine', message: 'x'.repeat(31) },
    { type: 'cancel', runId: 'r-12' },
    { type: 'ping', nonce: 2147483648 },
    { type: 'pong', nonce: 0 },
    { type: 'bye', reason: 'x'.repeat(32) },
  ];
}

/** Hex of the bytes, as the byte examples in bridge/PROTOCOL.md and the failure messages show them. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
