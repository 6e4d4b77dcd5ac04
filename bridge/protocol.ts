import type { z } from 'zod';
import { SbevalError } from '../core/errors.js';
import { bytesToFloat32, float32ToBytes, ownBytes, packValue, unpackValue } from './codec.js';
import type { CaptureResult, EngineIdentity, SimulationSettings } from './engine.js';
import type { BodyInfo, FrameBatch, SimEvent } from './frames.js';
import { fieldSchema, lengthProblem, MESSAGE_SCHEMAS, objectSchema } from './message-validators.js';
import {
  BODY_INFO,
  ENGINE_IDENTITY,
  type ERROR_PHASES,
  MESSAGES,
  SIMULATION_SETTINGS,
  type Side,
  type WireMessage,
  type WireObject,
  type WireOf,
} from './messages.js';

/**
 * The bridge protocol (bridge/PROTOCOL.md is the human-readable specification; the messages are
 * defined once in bridge/messages.ts; this module is the TypeScript implementation,
 * `unity-plugin/Runtime/Protocol.cs` with the generated `Messages.cs` the C# one).
 *
 * Version history (bump MINOR for additions a peer may ignore, MAJOR for anything else):
 * - 1.0.0: hello/welcome handshake with token and capabilities; load, loaded, frames, events,
 *   capture, done, error, cancel, ping/pong, bye.
 */
export const PROTOCOL_VERSION = '1.0.0';

/** Default ceiling for one message (a textured 1024² `_raw` capture is a few MB; frames are ~40 KB). */
export const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** What an engine can do; announced in `hello`. Every field is a feature flag a newer minor may add. */
export interface Capabilities {
  /** Streams `frames` (per-step states). */
  frames: boolean;
  /** Streams `events` (contacts, damage, deaths). */
  events: boolean;
  /** Can render the black-on-white capture. */
  capture: boolean;
  /** Can render the textured `_raw` capture. */
  captureRaw: boolean;
  /** Honours `cancel` for a running level. */
  cancel: boolean;
  /** Selectable `settings.damage` formulas; empty = the engine has one native rule (Unity). */
  damageFormulas: string[];
}

export interface RunSummary {
  /** Physics steps simulated in the window. */
  steps: number;
  bodies: number;
  events: number;
  /** Engine-side wall time for the run, milliseconds (informative only). */
  elapsedMs: number;
}

export type ErrorPhase = (typeof ERROR_PHASES)[number];

export interface HelloMessage {
  type: 'hello';
  protocol: string;
  token: string;
  /** The name its launcher gave this engine process (argv), so a restarted process takes its old slot. */
  instance?: string;
  engine: EngineIdentity;
  capabilities: Capabilities;
  maxMessageBytes: number;
}
export interface WelcomeMessage {
  type: 'welcome';
  protocol: string;
  sessionId: string;
  /** The name the orchestrator gives this engine in logs and results. */
  engineId: string;
  heartbeatMs: number;
  maxMessageBytes: number;
}
export interface LoadMessage {
  type: 'load';
  runId: string;
  levelId: string;
  xml: string;
  settings: SimulationSettings;
}
export interface LoadedMessage {
  type: 'loaded';
  runId: string;
  dt: number;
  bodies: BodyInfo[];
}
export interface FramesMessage {
  type: 'frames';
  runId: string;
  batch: FrameBatch;
}
export interface EventsMessage {
  type: 'events';
  runId: string;
  events: SimEvent[];
}
export interface CaptureMessage {
  type: 'capture';
  runId: string;
  png: Uint8Array;
  raw?: Uint8Array;
}
export interface DoneMessage {
  type: 'done';
  runId: string;
  summary: RunSummary;
}
/** Who is to blame: `level` = the level itself cannot run (another engine would fail the same way, no retry). */
export type ErrorFault = WireOf<'error'>['fault'];

export interface ErrorMessage {
  type: 'error';
  runId?: string;
  levelId?: string;
  phase: ErrorPhase;
  fault: ErrorFault;
  message: string;
  hint?: string;
}
interface CancelMessage {
  type: 'cancel';
  runId: string;
}
interface PingMessage {
  type: 'ping';
  nonce: number;
}
interface PongMessage {
  type: 'pong';
  nonce: number;
}
interface ByeMessage {
  type: 'bye';
  reason: string;
}

export type Message =
  | HelloMessage
  | WelcomeMessage
  | LoadMessage
  | LoadedMessage
  | FramesMessage
  | EventsMessage
  | CaptureMessage
  | DoneMessage
  | ErrorMessage
  | CancelMessage
  | PingMessage
  | PongMessage
  | ByeMessage;
export type MessageType = Message['type'];
export type { Side };

export const MESSAGE_TYPES = Object.keys(MESSAGES) as MessageType[];
/** Which side may send which type (a message from the wrong side is a protocol error). */
export const SENDERS = sendersByType();

function sendersByType(): Readonly<Record<MessageType, readonly Side[]>> {
  const senders: Partial<Record<MessageType, readonly Side[]>> = {};
  for (const type of MESSAGE_TYPES) senders[type] = MESSAGES[type].senders;
  return senders as Record<MessageType, readonly Side[]>;
}

/** WebSocket close codes (4000-4999 are the application's range; 1000/1009 are the standard ones). */
export const CLOSE = {
  normal: 1000,
  tooLarge: 1009,
  badToken: 4001,
  incompatible: 4002,
  malformed: 4003,
  unknownType: 4004,
  unexpected: 4005,
  timeout: 4006,
  superseded: 4007,
} as const;

export type ProtocolErrorCode = 'malformed' | 'unknown-type' | 'too-large' | 'bad-token' | 'incompatible' | 'unexpected' | 'timeout';

const CLOSE_FOR: Record<ProtocolErrorCode, number> = {
  malformed: CLOSE.malformed,
  'unknown-type': CLOSE.unknownType,
  'too-large': CLOSE.tooLarge,
  'bad-token': CLOSE.badToken,
  incompatible: CLOSE.incompatible,
  unexpected: CLOSE.unexpected,
  timeout: CLOSE.timeout,
};

/** A violation of the protocol: the receiver sends `error` and closes the connection with `closeCode`. */
export class ProtocolError extends SbevalError {
  readonly code: ProtocolErrorCode;
  readonly closeCode: number;
  constructor(code: ProtocolErrorCode, message: string, hint?: string) {
    super(code === 'bad-token' || code === 'incompatible' ? 'handshake' : 'protocol', message, hint);
    this.name = 'ProtocolError';
    this.code = code;
    this.closeCode = CLOSE_FOR[code];
  }
}

// ---------------------------------------------------------------------------------------------
// Compatibility (ML-Agents' rule, one pure function tested from one table on both sides)

export type Compatibility = { ok: true; warning?: string } | { ok: false; reason: string };

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/**
 * Can a peer speaking protocol `theirs` talk to us (`ours`)? Majors must match; on 0.x the minors must
 * match too; a different minor on 1.x+ works (additions are capability-gated) with a warning; patch,
 * pre-release and build tags never matter. Anything that is not a semantic version is incompatible.
 */
export function checkCompatibility(ours: string, theirs: string): Compatibility {
  const a = SEMVER.exec(ours);
  const b = SEMVER.exec(theirs);
  if (!a) return { ok: false, reason: `our protocol version "${ours}" is not a semantic version` };
  if (!b) return { ok: false, reason: `peer protocol version "${theirs}" is not a semantic version` };
  const [, aMajor, aMinor] = a;
  const [, bMajor, bMinor] = b;
  if (aMajor !== bMajor) return { ok: false, reason: `protocol major versions differ (ours ${ours}, peer ${theirs})` };
  if (aMajor === '0' && aMinor !== bMinor) {
    return { ok: false, reason: `protocol 0.x minor versions differ (ours ${ours}, peer ${theirs})` };
  }
  if (aMinor !== bMinor) {
    return { ok: true, warning: `protocol minor versions differ (ours ${ours}, peer ${theirs}); features are limited to announced capabilities` };
  }
  return { ok: true };
}

// ---------------------------------------------------------------------------------------------
// Encoding: every message is built field by field in the documented order (canonical bytes).

function defined<T extends Record<string, unknown>>(entries: T): T {
  for (const key of Object.keys(entries)) if (entries[key] === undefined) delete entries[key];
  return entries;
}

function wireSettings(s: SimulationSettings): WireOf<'load'>['settings'] {
  return {
    windowSteps: s.windowSteps,
    trial: s.trial,
    damage: s.damage,
    capture: s.capture,
    captureRaw: s.captureRaw,
    framesPerBatch: s.framesPerBatch,
  };
}

function wireBody(b: BodyInfo): WireOf<'loaded'>['bodies'][number] {
  return defined({ id: b.id, kind: b.kind, type: b.type, material: b.material, counted: b.counted, x: b.x, y: b.y, angle: b.angle });
}

function wireEvent(e: SimEvent): WireOf<'events'>['events'][number] {
  switch (e.kind) {
    case 'contact':
      return { kind: e.kind, step: e.step, a: e.a, b: e.b, relativeSpeed: e.relativeSpeed };
    case 'damage':
      return { kind: e.kind, step: e.step, id: e.id, amount: e.amount, health: e.health };
    case 'destroyed':
      return { kind: e.kind, step: e.step, id: e.id };
    case 'removed':
      return { kind: e.kind, step: e.step, id: e.id, reason: e.reason };
    case 'explosion':
      return { kind: e.kind, step: e.step, id: e.id, x: e.x, y: e.y };
  }
}

/** The frame batch's wire fields (shared with the trace format). */
function wireFrames(batch: FrameBatch): Omit<WireOf<'frames'>, 'type' | 'runId'> {
  return {
    firstStep: batch.firstStep,
    stepCount: batch.stepCount,
    bodyCount: batch.bodyCount,
    states: float32ToBytes(batch.states),
    alive: batch.alive,
  };
}

/** The message as the plain map that goes on the wire (field order = PROTOCOL.md order). */
export function toWire(m: Message): WireMessage {
  switch (m.type) {
    case 'hello':
      return defined({
        type: m.type,
        protocol: m.protocol,
        token: m.token,
        instance: m.instance,
        engine: defined({ kind: m.engine.kind, version: m.engine.version, description: m.engine.description, build: m.engine.build }),
        capabilities: {
          frames: m.capabilities.frames,
          events: m.capabilities.events,
          capture: m.capabilities.capture,
          captureRaw: m.capabilities.captureRaw,
          cancel: m.capabilities.cancel,
          damageFormulas: [...m.capabilities.damageFormulas],
        },
        maxMessageBytes: m.maxMessageBytes,
      });
    case 'welcome':
      return {
        type: m.type,
        protocol: m.protocol,
        sessionId: m.sessionId,
        engineId: m.engineId,
        heartbeatMs: m.heartbeatMs,
        maxMessageBytes: m.maxMessageBytes,
      };
    case 'load':
      return { type: m.type, runId: m.runId, levelId: m.levelId, xml: m.xml, settings: wireSettings(m.settings) };
    case 'loaded':
      return { type: m.type, runId: m.runId, dt: m.dt, bodies: m.bodies.map(wireBody) };
    case 'frames':
      return { type: m.type, runId: m.runId, ...wireFrames(m.batch) };
    case 'events':
      return { type: m.type, runId: m.runId, events: m.events.map(wireEvent) };
    case 'capture':
      return defined({ type: m.type, runId: m.runId, png: m.png, raw: m.raw });
    case 'done':
      return {
        type: m.type,
        runId: m.runId,
        summary: { steps: m.summary.steps, bodies: m.summary.bodies, events: m.summary.events, elapsedMs: m.summary.elapsedMs },
      };
    case 'error':
      return defined({ type: m.type, runId: m.runId, levelId: m.levelId, phase: m.phase, fault: m.fault, message: m.message, hint: m.hint });
    case 'cancel':
      return { type: m.type, runId: m.runId };
    case 'ping':
    case 'pong':
      return { type: m.type, nonce: m.nonce };
    case 'bye':
      return { type: m.type, reason: m.reason };
  }
}

export function encodeMessage(m: Message): Uint8Array {
  return packValue(toWire(m));
}

// ---------------------------------------------------------------------------------------------
// Decoding and validation

/** A validator built from the definition, typed as the wire value it accepts. */
function typed<T>(schema: z.ZodType): z.ZodType<T> {
  return schema as unknown as z.ZodType<T>;
}

/** The limits of a `load`'s settings; trace headers are held to the same ones (bridge/trace.ts). */
export const settingsSchema = typed<WireObject<typeof SIMULATION_SETTINGS.fields>>(objectSchema(SIMULATION_SETTINGS.fields));
export const bodySchema = typed<WireObject<typeof BODY_INFO.fields>>(objectSchema(BODY_INFO.fields));
/** An engine as it introduces itself in `hello` (and as a trace header names it). */
export const engineSchema = typed<EngineIdentity>(objectSchema(ENGINE_IDENTITY.fields));
export const runIdSchema = typed<string>(fieldSchema(MESSAGES.load.fields.runId.type));
export const levelIdSchema = typed<string>(fieldSchema(MESSAGES.load.fields.levelId.type));

interface DecodeOptions {
  /** Who sent the bytes; a message type the other side never sends is `unexpected` (undefined: any side, for tools). */
  from: Side | undefined;
  maxBytes?: number;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(message)'}: ${issue.message}`)
    .join('; ');
}

/** Decodes and validates one message; any problem is a ProtocolError naming what was wrong. */
export function decodeMessage(data: Uint8Array, options: DecodeOptions): Message {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  if (data.byteLength > maxBytes) {
    throw new ProtocolError('too-large', `message of ${data.byteLength} bytes exceeds the limit of ${maxBytes} bytes`);
  }
  let value: unknown;
  try {
    value = unpackValue(data);
  } catch (error) {
    throw new ProtocolError('malformed', `message is not valid msgpack (${(error as Error).message})`);
  }
  return messageFromValue(value, options.from);
}

/** Validates an already unpacked msgpack value as a message sent by `from` (traces reuse this). */
export function messageFromValue(value: unknown, from: Side | undefined): Message {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Uint8Array) {
    throw new ProtocolError('malformed', 'message is not a msgpack map');
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') throw new ProtocolError('malformed', 'message has no string "type" field');
  if (!Object.hasOwn(SENDERS, type)) {
    throw new ProtocolError('unknown-type', `unknown message type "${type.slice(0, 64)}"`, `this side speaks protocol ${PROTOCOL_VERSION}`);
  }
  const messageType = type as MessageType;
  if (from !== undefined && !SENDERS[messageType].includes(from)) {
    throw new ProtocolError('unexpected', `"${messageType}" is never sent by the ${from}`);
  }
  const parsed = MESSAGE_SCHEMAS[messageType].safeParse(value);
  if (!parsed.success) throw new ProtocolError('malformed', `invalid "${messageType}" message: ${describeIssues(parsed.error)}`);
  const lengths = lengthProblem(MESSAGES[messageType], parsed.data);
  if (lengths !== undefined) throw new ProtocolError('malformed', `invalid "${messageType}" message: ${lengths}`);
  return fromWire(parsed.data as WireMessage);
}

function fromWire(w: WireMessage): Message {
  switch (w.type) {
    case 'frames': {
      const batch: FrameBatch = {
        firstStep: w.firstStep,
        stepCount: w.stepCount,
        bodyCount: w.bodyCount,
        states: bytesToFloat32(w.states),
        alive: ownBytes(w.alive),
      };
      return { type: 'frames', runId: w.runId, batch };
    }
    case 'capture': {
      const m: CaptureMessage = { type: 'capture', runId: w.runId, png: ownBytes(w.png) };
      if (w.raw) m.raw = ownBytes(w.raw);
      return m;
    }
    case 'loaded':
      return {
        type: 'loaded',
        runId: w.runId,
        dt: w.dt,
        bodies: w.bodies.map((b) => ({ ...b, material: b.material })),
      };
    case 'error': {
      const m: ErrorMessage = { type: 'error', phase: w.phase, fault: w.fault, message: w.message };
      if (w.runId !== undefined) m.runId = w.runId;
      if (w.levelId !== undefined) m.levelId = w.levelId;
      if (w.hint !== undefined) m.hint = w.hint;
      return m;
    }
    case 'hello': {
      const m: HelloMessage = { ...w };
      if (w.instance === undefined) delete m.instance;
      return m;
    }
    case 'welcome':
    case 'load':
    case 'events':
    case 'done':
    case 'cancel':
    case 'ping':
    case 'pong':
    case 'bye':
      return w;
  }
}

/** The capture part of a `capture` message as the engine interface's result. */
export function captureResult(m: CaptureMessage): CaptureResult {
  return m.raw ? { png: m.png, raw: m.raw } : { png: m.png };
}
