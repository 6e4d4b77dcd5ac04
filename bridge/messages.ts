import { DAMAGE_FORMULAS } from './engine.js';
import { FIELD_COUNT } from './frames.js';

/**
 * The bridge protocol's messages, defined once as data: every message's fields in wire order (the
 * order of the tables in bridge/PROTOCOL.md §4), their types, optionality and limits, and who sends
 * each message. The TypeScript validators are built from it (bridge/message-validators.ts) and the
 * plugin's C# message types, encoders and decoders are generated from it
 * (`npm run protocol:cs` writes unity-plugin/Runtime/Messages.cs; a test fails when the checked-in
 * file is not what this definition generates).
 */

/** A string of at most `max` UTF-16 code units (and at least `min`). */
interface StringType {
  readonly kind: 'string';
  readonly min?: number;
  readonly max?: number;
}
/** An integer (C# `long`) within [min, max]. */
interface IntType {
  readonly kind: 'int';
  readonly min?: number;
  readonly max?: number;
}
/** A finite number (C# `double`); `above` is an exclusive lower bound, `min` an inclusive one. */
interface NumberType {
  readonly kind: 'number';
  readonly above?: number;
  readonly min?: number;
}
interface BoolType {
  readonly kind: 'bool';
}
/**
 * Bytes (msgpack bin). `float32` = little-endian float32 values (C# `float[]`). `cellsOf` = its length
 * is the product of those integer fields of the same message times `bytesPerCell`.
 */
interface BytesType {
  readonly kind: 'bytes';
  readonly float32?: boolean;
  readonly cellsOf?: readonly string[];
  readonly bytesPerCell?: number;
}
/** One of a fixed list of strings; `name` names the list in C# (`Protocol.<name>`). */
interface EnumType {
  readonly kind: 'enum';
  readonly name: string;
  readonly values: readonly string[];
}
/** A nested map with fields of its own; `name` is its C# class. */
interface MapType {
  readonly kind: 'map';
  readonly struct: StructDef;
}
interface ListType {
  readonly kind: 'list';
  readonly of: FieldType;
  readonly max?: number;
}
/**
 * A map whose `tag` field (written first) selects which fields follow. C# holds every variant in one
 * class `name` with the union of the fields and one factory per variant.
 */
export interface UnionType {
  readonly kind: 'union';
  readonly name: string;
  readonly tag: string;
  readonly tagList: string;
  readonly variants: Readonly<Record<string, Fields>>;
}
export type FieldType = StringType | IntType | NumberType | BoolType | BytesType | EnumType | MapType | ListType | UnionType;

export interface Field {
  readonly type: FieldType;
  readonly optional?: boolean;
  /** The C# member name when PascalCase of the wire name does not suit (C#: `ErrorMessage.Text`). */
  readonly cs?: string;
  /** Documentation carried into the generated C#. */
  readonly doc?: string;
}
export type Fields = Readonly<Record<string, Field>>;

export interface StructDef {
  readonly name: string;
  readonly fields: Fields;
}

export type Side = 'engine' | 'orchestrator';

export interface MessageDef {
  readonly senders: readonly Side[];
  readonly fields: Fields;
}

// ---------------------------------------------------------------------------------------------
// Building blocks (each returns its literal type, so the wire types below follow from the data)

function req<const T extends FieldType>(type: T): { readonly type: T } {
  return { type };
}
function opt<const T extends FieldType>(type: T): { readonly type: T; readonly optional: true } {
  return { type, optional: true };
}
function str<const O extends Omit<StringType, 'kind'>>(limits: O): { readonly kind: 'string' } & O {
  return { kind: 'string', ...limits };
}
function int<const O extends Omit<IntType, 'kind'>>(limits: O): { readonly kind: 'int' } & O {
  return { kind: 'int', ...limits };
}
function num<const O extends Omit<NumberType, 'kind'>>(limits: O): { readonly kind: 'number' } & O {
  return { kind: 'number', ...limits };
}
const bool = { kind: 'bool' } as const;
const bytes = { kind: 'bytes' } as const;
function oneOf<const V extends readonly string[]>(name: string, values: V): { readonly kind: 'enum'; readonly name: string; readonly values: V } {
  return { kind: 'enum', name, values };
}
function map<const S extends StructDef>(struct: S): { readonly kind: 'map'; readonly struct: S } {
  return { kind: 'map', struct };
}
function list<const T extends FieldType, const O extends { max?: number }>(of: T, limits: O): { readonly kind: 'list'; readonly of: T } & O {
  return { kind: 'list', of, ...limits };
}

/** Run and session names (`runId`, `sessionId`, `engineId`). */
const id = str({ min: 1, max: 256 });
const nonNegInt = int({ min: 0 });
const finite = num({});
const levelId = str({ max: 4096 });

/** Where an error happened, as the engine or the orchestrator saw it. */
export const ERROR_PHASES = ['handshake', 'protocol', 'load', 'simulate', 'capture', 'cancelled', 'internal'] as const;

export const ENGINE_IDENTITY = {
  name: 'EngineIdentity',
  fields: {
    kind: req(str({ min: 1, max: 64 })),
    version: req(str({ max: 256 })),
    description: req(str({ max: 4096 })),
    build: {
      ...opt(str({ min: 1, max: 256 })),
      doc: 'What else decides its results besides the version: the sbeval plugin package version (Unity), the physics digest (headless).',
    },
  },
} as const satisfies StructDef;

const CAPABILITIES = {
  name: 'Capabilities',
  fields: {
    frames: req(bool),
    events: req(bool),
    capture: req(bool),
    captureRaw: req(bool),
    cancel: req(bool),
    damageFormulas: req(list(str({ max: 64 }), { max: 64 })),
  },
} as const satisfies StructDef;

/** The limits of a `load`'s settings; trace headers are held to the same ones (bridge/trace.ts). */
export const SIMULATION_SETTINGS = {
  name: 'SimulationSettings',
  fields: {
    windowSteps: req(int({ min: 0, max: 1_000_000 })),
    trial: req(int({ min: 1, max: 1000 })),
    damage: req(oneOf('DamageFormulas', DAMAGE_FORMULAS)),
    capture: req(bool),
    captureRaw: req(bool),
    framesPerBatch: req(int({ min: 1, max: 100_000 })),
  },
} as const satisfies StructDef;

export const BODY_INFO = {
  name: 'BodyInfo',
  fields: {
    id: req(nonNegInt),
    kind: req(oneOf('BodyKinds', ['block', 'pig', 'tnt', 'platform'])),
    type: req(str({})),
    material: { ...opt(str({})), doc: 'Null when the object has no material (pigs, TNT, platforms).' },
    counted: req(bool),
    x: req(finite),
    y: req(finite),
    angle: req(finite),
  },
} as const satisfies StructDef;

const SIM_EVENT = {
  kind: 'union',
  name: 'SimEvent',
  tag: 'kind',
  tagList: 'EventKinds',
  variants: {
    contact: { step: req(nonNegInt), a: req(int({ min: -2 })), b: req(int({ min: -2 })), relativeSpeed: req(finite) },
    damage: { step: req(nonNegInt), id: req(nonNegInt), amount: req(finite), health: req(finite) },
    destroyed: { step: req(nonNegInt), id: req(nonNegInt) },
    removed: { step: req(nonNegInt), id: req(nonNegInt), reason: req(oneOf('RemovedReasons', ['death', 'out-of-world'])) },
    explosion: { step: req(nonNegInt), id: req(nonNegInt), x: req(finite), y: req(finite) },
  },
} as const satisfies UnionType;

const RUN_SUMMARY = {
  name: 'RunSummary',
  fields: { steps: req(nonNegInt), bodies: req(nonNegInt), events: req(nonNegInt), elapsedMs: req(num({ min: 0 })) },
} as const satisfies StructDef;

/** Every message type, in PROTOCOL.md's order. */
export const MESSAGES = {
  hello: {
    senders: ['engine'],
    fields: {
      protocol: req(str({ max: 64 })),
      token: req(str({ max: 1024 })),
      instance: opt(str({ min: 1, max: 256 })),
      engine: req(map(ENGINE_IDENTITY)),
      capabilities: req(map(CAPABILITIES)),
      maxMessageBytes: req(int({ min: 1024 })),
    },
  },
  welcome: {
    senders: ['orchestrator'],
    fields: {
      protocol: req(str({ max: 64 })),
      sessionId: req(id),
      engineId: req(id),
      heartbeatMs: req(int({ min: 1 })),
      maxMessageBytes: req(int({ min: 1024 })),
    },
  },
  load: {
    senders: ['orchestrator'],
    fields: { runId: req(id), levelId: req(levelId), xml: req(str({})), settings: req(map(SIMULATION_SETTINGS)) },
  },
  loaded: {
    senders: ['engine'],
    fields: { runId: req(id), dt: req(num({ above: 0 })), bodies: req(list(map(BODY_INFO), {})) },
  },
  frames: {
    senders: ['engine'],
    fields: {
      runId: req(id),
      firstStep: req(nonNegInt),
      stepCount: req(int({ min: 1 })),
      bodyCount: req(nonNegInt),
      states: {
        type: { kind: 'bytes', float32: true, cellsOf: ['stepCount', 'bodyCount'], bytesPerCell: FIELD_COUNT * 4 },
        doc: `StepCount × BodyCount × ${FIELD_COUNT} values: x, y, angle, vx, vy, omega (radians, rad/s).`,
      },
      alive: { type: { kind: 'bytes', cellsOf: ['stepCount', 'bodyCount'], bytesPerCell: 1 }, doc: 'StepCount × BodyCount bytes, 1 = alive.' },
    },
  },
  events: { senders: ['engine'], fields: { runId: req(id), events: req(list(SIM_EVENT, {})) } },
  capture: { senders: ['engine'], fields: { runId: req(id), png: req(bytes), raw: opt(bytes) } },
  done: { senders: ['engine'], fields: { runId: req(id), summary: req(map(RUN_SUMMARY)) } },
  error: {
    senders: ['engine', 'orchestrator'],
    fields: {
      runId: opt(id),
      levelId: opt(levelId),
      phase: req(oneOf('ErrorPhases', ERROR_PHASES)),
      fault: req(oneOf('Faults', ['level', 'engine'])),
      message: { ...req(str({ max: 65_536 })), cs: 'Text' },
      hint: opt(str({ max: 65_536 })),
    },
  },
  cancel: { senders: ['orchestrator'], fields: { runId: req(id) } },
  ping: { senders: ['engine', 'orchestrator'], fields: { nonce: req(nonNegInt) } },
  pong: { senders: ['engine', 'orchestrator'], fields: { nonce: req(nonNegInt) } },
  bye: { senders: ['engine', 'orchestrator'], fields: { reason: req(str({ max: 4096 })) } },
} as const satisfies Readonly<Record<string, MessageDef>>;

type Messages = typeof MESSAGES;
export type MessageType = keyof Messages;

// ---------------------------------------------------------------------------------------------
// The wire types the definition implies (what `toWire` must write and the validators return)

type Simplify<T> = { -readonly [K in keyof T]: T[K] } & {};

/** The value of a field of type T on the wire, as msgpackr decodes it. */
type WireValue<T> = T extends { kind: 'string' }
  ? string
  : T extends { kind: 'int' | 'number' }
    ? number
    : T extends { kind: 'bool' }
      ? boolean
      : T extends { kind: 'bytes' }
        ? Uint8Array
        : T extends { kind: 'enum'; values: readonly (infer V)[] }
          ? V
          : T extends { kind: 'map'; struct: { fields: infer F } }
            ? WireObject<F>
            : T extends { kind: 'list'; of: infer E }
              ? Array<WireValue<E>>
              : T extends { kind: 'union'; tag: infer Tag extends string; variants: infer V }
                ? { [K in keyof V]: Simplify<{ [P in Tag]: K } & WireObject<V[K]>> }[keyof V]
                : never;

type FieldValue<F> = F extends { type: infer T } ? WireValue<T> : never;

/** A map with the fields F: required ones as they are, optional ones as optional properties. */
export type WireObject<F> = Simplify<
  { [K in keyof F as F[K] extends { optional: true } ? never : K]: FieldValue<F[K]> } & {
    [K in keyof F as F[K] extends { optional: true } ? K : never]?: FieldValue<F[K]>;
  }
>;

export type WireOf<T extends MessageType> = Simplify<{ type: T } & WireObject<Messages[T]['fields']>>;
export type WireMessage = { [T in MessageType]: WireOf<T> }[MessageType];
