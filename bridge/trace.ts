import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { type Readable, Transform, type Writable } from 'node:stream';
import { createGunzip, createGzip, gunzipSync, constants as zlibConstants } from 'node:zlib';
import { UnpackrStream } from 'msgpackr';
import { z } from 'zod';
import { describeError, SbevalError } from '../core/errors.js';
import { storageFault } from '../core/storage.js';
import { guardWrite } from '../core/write-guard.js';
import { DEFAULT_MAX_LEVEL_OBJECTS } from '../levels/xml-read.js';
import { packValue, unpackValues } from './codec.js';
import type { CaptureResult, Engine, EngineIdentity, LevelJob, LevelSink, SimulationSettings } from './engine.js';
import { type BodyInfo, FIELD_COUNT, type FrameBatch, type SimEvent } from './frames.js';
import {
  bodySchema,
  type CaptureMessage,
  type DoneMessage,
  type ErrorFault,
  type ErrorMessage,
  type ErrorPhase,
  type EventsMessage,
  engineSchema,
  type FramesMessage,
  levelIdSchema,
  messageFromValue,
  ProtocolError,
  type RunSummary,
  runIdSchema,
  settingsSchema,
  toWire,
} from './protocol.js';
import { newerTraceError, TRACE_FORMAT, TRACE_VERSION, upgradeHeader, upgradeRecord } from './trace-versions.js';
import { stepsToSimulate } from './window.js';

export { TRACE_FORMAT, TRACE_VERSION } from './trace-versions.js';

/**
 * Trace files: one level run (one trial) recorded for replay, `explain`, the viewer and regression
 * comparisons. A trace is a stream of msgpack maps, optionally gzip-compressed (detected on read by
 * the gzip magic bytes, so any name works; `.sbtrace` by convention, `.sbtrace.gz` compressed):
 *
 *   header  {type: 'trace', format: 'sbeval-trace', version, producer, recordedAt?, runId, levelId,
 *            engine, settings, xml, dt, bodies}
 *   then the bridge protocol's level messages exactly as on the wire (PROTOCOL.md), each with the
 *   header's runId: frames, events, capture, and finally done or error.
 *
 * States are float32 as the engines emit them, so a trace is lossless. Writing streams (a crash
 * leaves a readable prefix in the temporary file); the file appears under its name only when the
 * recording ends (atomic rename).
 */

export interface TraceHeader {
  type: 'trace';
  format: typeof TRACE_FORMAT;
  version: typeof TRACE_VERSION;
  producer: string;
  recordedAt?: string;
  runId: string;
  levelId: string;
  engine: EngineIdentity;
  settings: SimulationSettings;
  xml: string;
  /** Seconds per step; 0 when the run failed before the level was loaded. */
  dt: number;
  bodies: BodyInfo[];
}

export type TraceRecord = FramesMessage | EventsMessage | CaptureMessage | DoneMessage | ErrorMessage;

const TRACE_RECORD_TYPES = new Set(['frames', 'events', 'capture', 'done', 'error']);

/**
 * A trace header is held to the wire protocol's own limits (bridge/protocol.ts: the `load` settings —
 * at most 1,000,000 window steps —, the `hello` engine, the run and level ids), and to the largest
 * level sbeval reads (levels/xml-read.ts, 10,000 objects), before anything is replayed or allocated:
 * a 1.7 KB file that claims 20,000,000 steps is refused here instead of replaying for minutes.
 */
const headerSchema = z.object({
  type: z.literal('trace'),
  format: z.literal(TRACE_FORMAT),
  version: z.literal(TRACE_VERSION),
  producer: z.string().max(4096),
  recordedAt: z.string().max(64).optional(),
  runId: runIdSchema,
  levelId: levelIdSchema,
  engine: engineSchema,
  settings: settingsSchema,
  xml: z.string(),
  dt: z.number().min(0),
  bodies: z.array(bodySchema).max(DEFAULT_MAX_LEVEL_OBJECTS),
});

/** A trace file that cannot be read (not a trace, damaged header, invalid record). */
export class TraceFormatError extends SbevalError {
  constructor(message: string, hint?: string) {
    super('input', message, hint);
    this.name = 'TraceFormatError';
  }
}

/**
 * The most a trace may hold once decompressed. A trace is one trial: per step and body six float32
 * values and an alive byte (25 bytes plus msgpack framing). The largest level the reader accepts has
 * 10,000 objects (levels/xml-read.ts DEFAULT_MAX_LEVEL_OBJECTS), which at the evaluator's window
 * (steps 0 … 514 with the capture, bridge/window.ts) record 10,000 × 515 × 25 B ≈ 123 MiB of frames; the level (≤ 1 MiB),
 * the capture PNGs (a few MiB) and the events come on top. 256 MiB keeps every trace an engine
 * records at the evaluator's window with room to spare, and stops a gzip bomb (a 976 KB file
 * can inflate to 1 GB, ~3 GB in memory once assembled) at a quarter of that, before it grows.
 */
export const MAX_TRACE_BYTES = 256 * 1024 * 1024;

export interface TraceReadOptions {
  /** Largest decompressed size accepted (default MAX_TRACE_BYTES). */
  maxBytes?: number;
}

/** A trace larger than the limit once decompressed: refused before it takes the memory. */
export class TraceTooLargeError extends TraceFormatError {
  constructor(name: string, limit: number, message?: string) {
    super(
      message ?? `${name}: the trace holds more than ${Math.round(limit / 1024 / 1024)} MiB once decompressed`,
      "a trace of one trial at the evaluator's window stays far below that (bridge/trace.ts MAX_TRACE_BYTES): this file is damaged or not an sbeval trace",
    );
    this.name = 'TraceTooLargeError';
  }
}

/** Bytes per body and step once assembled: six float32 state values and an alive byte (bridge/frames.ts). */
const BYTES_PER_BODY_STEP = FIELD_COUNT * 4 + 1;

/**
 * The memory the frames of one trial take once assembled (steps 0 … `stepsToSimulate`, every body),
 * computed from the settings and the body count before anything is allocated.
 */
function trialFrameBytes(bodyCount: number, settings: Pick<SimulationSettings, 'windowSteps' | 'capture'>): number {
  return (stepsToSimulate(settings) + 1) * bodyCount * BYTES_PER_BODY_STEP;
}

/** A trial whose frames would take more than `limit` bytes (default MAX_TRACE_BYTES), refused before it runs or is read. */
export function checkTrialFrameBytes(
  bodyCount: number,
  settings: Pick<SimulationSettings, 'windowSteps' | 'capture'>,
  what: string,
  limit = MAX_TRACE_BYTES,
): void {
  const bytes = trialFrameBytes(bodyCount, settings);
  if (bytes <= limit) return;
  const mib = (n: number) => `${Math.ceil(n / 1024 / 1024)} MiB`;
  throw new TraceTooLargeError(
    what,
    limit,
    `${what}: ${stepsToSimulate(settings) + 1} steps × ${bodyCount} bodies would take ${mib(bytes)} of frames, more than the ${mib(limit)} a trace may hold`,
  );
}

function headerWire(h: TraceHeader): Record<string, unknown> {
  const wire: Record<string, unknown> = {
    type: h.type,
    format: h.format,
    version: h.version,
    producer: h.producer,
  };
  if (h.recordedAt !== undefined) wire.recordedAt = h.recordedAt;
  Object.assign(wire, {
    runId: h.runId,
    levelId: h.levelId,
    engine: {
      kind: h.engine.kind,
      version: h.engine.version,
      description: h.engine.description,
      ...(h.engine.build === undefined ? {} : { build: h.engine.build }),
    },
    settings: {
      windowSteps: h.settings.windowSteps,
      trial: h.settings.trial,
      damage: h.settings.damage,
      capture: h.settings.capture,
      captureRaw: h.settings.captureRaw,
      framesPerBatch: h.settings.framesPerBatch,
    },
    xml: h.xml,
    dt: h.dt,
    bodies: h.bodies.map((b) => {
      const body: Record<string, unknown> = { id: b.id, kind: b.kind, type: b.type };
      if (b.material !== undefined) body.material = b.material;
      Object.assign(body, { counted: b.counted, x: b.x, y: b.y, angle: b.angle });
      return body;
    }),
  });
  return wire;
}

/** Encodes a header (exported for tools that assemble traces, and tests). */
export function encodeTraceHeader(header: TraceHeader): Uint8Array {
  return packValue(headerWire(header));
}

/** Encodes one record exactly as the protocol message. */
export function encodeTraceRecord(record: TraceRecord): Uint8Array {
  return packValue(toWire(record));
}

// ---------------------------------------------------------------------------------------------
// Reading

/** Validates a decoded header map of any known version and brings it to the current version. */
export function parseTraceHeader(value: unknown, path?: string): { header: TraceHeader; version: number } {
  const where = path ? `${path}: ` : '';
  if (
    typeof value !== 'object' ||
    value === null ||
    (value as { type?: unknown }).type !== 'trace' ||
    (value as { format?: unknown }).format !== TRACE_FORMAT
  ) {
    throw new TraceFormatError(`${where}not an sbeval trace (the first record is not a "${TRACE_FORMAT}" header)`);
  }
  const version = (value as { version?: unknown }).version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new TraceFormatError(`${where}trace header has an invalid version ${JSON.stringify(version)}`);
  }
  if (version > TRACE_VERSION) throw newerTraceError(version, path);
  const upgraded = upgradeHeader(value as Record<string, unknown>, version);
  const parsed = headerSchema.safeParse(upgraded);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TraceFormatError(`${where}invalid trace header: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'unknown problem'}`);
  }
  const header = parsed.data as TraceHeader;
  header.bodies = header.bodies.map((b) => ({ ...b, material: b.material }));
  // The frames the header announces must fit what a trace may hold (bodies × steps, computed, not allocated).
  checkTrialFrameBytes(header.bodies.length, header.settings, path ?? 'trace');
  return { header, version };
}

/** Validates one decoded record of a version-`version` trace; an old record may become several. */
function parseTraceRecords(value: unknown, version: number, runId: string, path?: string): TraceRecord[] {
  const where = path ? `${path}: ` : '';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TraceFormatError(`${where}trace record is not a map`);
  const out: TraceRecord[] = [];
  for (const raw of upgradeRecord(value as Record<string, unknown>, version)) {
    const type = (raw as { type?: unknown }).type;
    if (typeof type !== 'string' || !TRACE_RECORD_TYPES.has(type)) {
      throw new TraceFormatError(`${where}unexpected trace record type ${JSON.stringify(type)}`);
    }
    let message;
    try {
      message = messageFromValue(raw, 'engine');
    } catch (error) {
      if (error instanceof ProtocolError) throw new TraceFormatError(`${where}${error.message}`);
      throw error;
    }
    if ((message as TraceRecord).runId !== undefined && (message as TraceRecord).runId !== runId) {
      throw new TraceFormatError(`${where}record of run "${(message as TraceRecord).runId}" in the trace of run "${runId}"`);
    }
    out.push(message as TraceRecord);
  }
  return out;
}

async function isGzipFile(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const magic = Buffer.alloc(2);
    const { bytesRead } = await handle.read(magic, 0, 2, 0);
    return bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

export interface TraceStream {
  header: TraceHeader;
  /** The version the file was written in (older versions are upgraded on the fly). */
  fileVersion: number;
  /** The records after the header, validated, in file order. Ends early (no error) on a truncated file. */
  records: AsyncIterableIterator<TraceRecord>;
  /** True once `records` ended because the file was cut off (a crashed recorder). */
  readonly truncated: boolean;
  close(): void;
}

/** A trace file's decoded values, as they are read, and the streams behind them. */
interface DecodedTrace {
  file: ReturnType<typeof createReadStream>;
  unpack: UnpackrStream;
  values: AsyncIterableIterator<unknown>;
  /** Set once the file turned out cut off (a crashed recorder). */
  state: { truncated: boolean };
}

/**
 * The file (gunzipped when it is gzip) through a byte counter into the msgpack decoder. Bytes are counted
 * as they leave the decompressor, so inflation stops at `limit` (TraceTooLargeError).
 */
function decodeTraceFile(path: string, gzip: boolean, limit: number): DecodedTrace {
  const file = createReadStream(path);
  const unpack = new UnpackrStream({ useRecords: false, mapsAsObjects: true } as ConstructorParameters<typeof UnpackrStream>[0]);
  const state = { truncated: false };
  let source: Readable = file;
  if (gzip) {
    const gunzip = createGunzip();
    file.on('error', (error) => gunzip.destroy(error));
    source = file.pipe(gunzip);
  }
  source.on('error', (error: NodeJS.ErrnoException) => {
    // A gzip stream cut off mid-way (the recorder crashed) is a truncated trace, not a broken one.
    if (error.code === 'Z_BUF_ERROR' || /unexpected end of file/i.test(error.message)) {
      state.truncated = true;
      unpack.end();
    } else {
      unpack.destroy(error);
    }
  });
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > limit) {
        file.destroy();
        done(new TraceTooLargeError(path, limit));
      } else done(null, chunk);
    },
  });
  counter.on('error', (error) => unpack.destroy(error));
  source.pipe(counter).pipe(unpack as unknown as Writable);
  return { file, unpack, values: unpack[Symbol.asyncIterator]() as AsyncIterableIterator<unknown>, state };
}

/** The first value, checked as a trace header; the streams are closed when it is not one. */
async function readTraceHeader(decoded: DecodedTrace, path: string): Promise<{ header: TraceHeader; version: number }> {
  const { file, unpack, values } = decoded;
  let first: IteratorResult<unknown>;
  try {
    first = await values.next();
  } catch (error) {
    file.destroy();
    if (error instanceof TraceTooLargeError) throw error;
    throw new TraceFormatError(`${path}: cannot read the trace (${describeError(error)})`);
  }
  if (first.done) {
    file.destroy();
    throw new TraceFormatError(`${path}: empty trace file`);
  }
  try {
    return parseTraceHeader(first.value, path);
  } catch (error) {
    file.destroy();
    unpack.destroy();
    throw error;
  }
}

/** The records after the header, validated; ends early (no error) when the last value was cut off mid-way. */
async function* traceRecords(decoded: DecodedTrace, version: number, runId: string, path: string): AsyncGenerator<TraceRecord> {
  try {
    for (;;) {
      let next: IteratorResult<unknown>;
      try {
        next = await decoded.values.next();
      } catch (error) {
        // The last value cut off mid-way: the recorder died while writing. Everything before is valid.
        if (error instanceof TraceTooLargeError) throw error;
        if ((error as { incomplete?: unknown }).incomplete === true || /unexpected end of messagepack data/i.test(describeError(error))) {
          decoded.state.truncated = true;
          return;
        }
        throw new TraceFormatError(`${path}: cannot read the trace (${describeError(error)})`);
      }
      if (next.done) return;
      for (const record of parseTraceRecords(next.value, version, runId, path)) yield record;
    }
  } finally {
    decoded.file.destroy();
  }
}

/**
 * Opens a trace for streaming: the header at once, the records as they are read. At most
 * `maxBytes` (default MAX_TRACE_BYTES) are read once decompressed; past that, TraceTooLargeError.
 */
export async function openTrace(path: string, options: TraceReadOptions = {}): Promise<TraceStream> {
  const limit = options.maxBytes ?? MAX_TRACE_BYTES;
  const gzip = await isGzipFile(path);
  const decoded = decodeTraceFile(path, gzip, limit);
  const { header, version } = await readTraceHeader(decoded, path);
  return {
    header,
    fileVersion: version,
    records: traceRecords(decoded, version, header.runId, path),
    get truncated() {
      return decoded.state.truncated;
    },
    close: () => {
      decoded.file.destroy();
      decoded.unpack.destroy();
    },
  };
}

/** A whole trace in memory, frames assembled into one batch. */
export interface LoadedTrace {
  header: TraceHeader;
  fileVersion: number;
  dt: number;
  bodies: BodyInfo[];
  /** Every recorded step, `firstStep` 0 (empty when the run failed before its first frame). */
  frames: FrameBatch;
  events: SimEvent[];
  capture?: CaptureResult;
  done?: RunSummary;
  error?: { phase: ErrorPhase; fault: ErrorFault; message: string; hint?: string };
  /** The recording ended with `done` or `error` (false: the recorder died; what is here is still valid). */
  complete: boolean;
}

/** Collects records into a `LoadedTrace`, checking that frames are contiguous and shaped like the header. */
export class TraceAssembler {
  private readonly batches: FrameBatch[] = [];
  private nextStep = 0;
  private readonly events: SimEvent[] = [];
  private capture: CaptureResult | undefined;
  private done: RunSummary | undefined;
  private error: LoadedTrace['error'];
  private ended = false;
  /** The last step the header's settings stream (bridge/window.ts): frames past it are refused. */
  private readonly lastStep: number;

  constructor(
    private readonly header: TraceHeader,
    private readonly fileVersion: number,
    private readonly path = 'trace',
  ) {
    this.lastStep = stepsToSimulate(header.settings);
  }

  add(record: TraceRecord): void {
    if (this.ended) throw new TraceFormatError(`${this.path}: "${record.type}" record after the end of the run`);
    switch (record.type) {
      case 'frames': {
        const b = record.batch;
        if (b.bodyCount !== this.header.bodies.length) {
          throw new TraceFormatError(`${this.path}: frames for ${b.bodyCount} bodies, the header lists ${this.header.bodies.length}`);
        }
        if (b.firstStep !== this.nextStep) throw new TraceFormatError(`${this.path}: frames start at step ${b.firstStep}, expected ${this.nextStep}`);
        if (b.firstStep + b.stepCount > this.lastStep + 1) {
          throw new TraceFormatError(
            `${this.path}: frames up to step ${b.firstStep + b.stepCount - 1}, past the last step ${this.lastStep} of the header's window`,
          );
        }
        this.batches.push(b);
        this.nextStep += b.stepCount;
        break;
      }
      case 'events':
        for (const e of record.events) this.events.push(e);
        break;
      case 'capture':
        this.capture = record.raw ? { png: record.png, raw: record.raw } : { png: record.png };
        break;
      case 'done':
        this.done = record.summary;
        this.ended = true;
        break;
      case 'error':
        this.error = { phase: record.phase, fault: record.fault, message: record.message };
        if (record.hint !== undefined) this.error.hint = record.hint;
        this.ended = true;
        break;
    }
  }

  result(): LoadedTrace {
    const bodyCount = this.header.bodies.length;
    const stepCount = this.nextStep;
    const states = new Float32Array(stepCount * bodyCount * FIELD_COUNT);
    const alive = new Uint8Array(stepCount * bodyCount);
    for (const b of this.batches) {
      states.set(b.states, b.firstStep * bodyCount * FIELD_COUNT);
      alive.set(b.alive, b.firstStep * bodyCount);
    }
    const trace: LoadedTrace = {
      header: this.header,
      fileVersion: this.fileVersion,
      dt: this.header.dt,
      bodies: this.header.bodies,
      frames: { firstStep: 0, stepCount, bodyCount, states, alive },
      events: this.events,
      complete: this.ended,
    };
    if (this.capture) trace.capture = this.capture;
    if (this.done) trace.done = this.done;
    if (this.error) trace.error = this.error;
    return trace;
  }
}

/** Reads a whole trace file (any known version, gzip or not), at most `maxBytes` once decompressed. */
export async function readTrace(path: string, options: TraceReadOptions = {}): Promise<LoadedTrace> {
  const stream = await openTrace(path, options);
  const assembler = new TraceAssembler(stream.header, stream.fileVersion, path);
  for await (const record of stream.records) assembler.add(record);
  return assembler.result();
}

/** Parses a trace held in memory (e.g. uploaded to the viewer's server); gzip is detected; at most `maxBytes` once decompressed. */
export function traceFromBytes(bytes: Uint8Array, name = 'trace', options: TraceReadOptions = {}): LoadedTrace {
  const limit = options.maxBytes ?? MAX_TRACE_BYTES;
  let values: unknown[];
  const gzip = bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
  if (!gzip && bytes.length > limit) throw new TraceTooLargeError(name, limit);
  try {
    const plain = gzip ? gunzipSync(bytes, { finishFlush: zlibConstants.Z_SYNC_FLUSH, maxOutputLength: limit }) : bytes;
    values = unpackValues(plain).values;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new TraceTooLargeError(name, limit);
    throw new TraceFormatError(`${name}: cannot read the trace (${describeError(error)})`);
  }
  if (values.length === 0) throw new TraceFormatError(`${name}: empty trace`);
  const { header, version } = parseTraceHeader(values[0], name);
  const assembler = new TraceAssembler(header, version, name);
  for (const value of values.slice(1)) for (const record of parseTraceRecords(value, version, header.runId, name)) assembler.add(record);
  return assembler.result();
}

// ---------------------------------------------------------------------------------------------
// Writing

export interface TraceRecorderOptions {
  job: LevelJob;
  engine: EngineIdentity;
  /** Default: gzip when the path ends with `.gz`. */
  gzip?: boolean;
  /** Default `<levelId>#<trial>`. */
  runId?: string;
  /** Default now; `null` leaves the time out (byte-reproducible traces). */
  recordedAt?: string | null;
  /** Default `sbeval`. */
  producer?: string;
}

/**
 * Records one run to a trace file while it streams: use it as the run's `LevelSink` (or tee it with
 * another sink), then call `finish()` when the run resolved or `fail(error)` when it rejected.
 */
export class TraceRecorder implements LevelSink {
  readonly path: string;
  private readonly tmp: string;
  private readonly file: WriteStream;
  private readonly out: Writable;
  private readonly header: TraceHeader;
  private headerWritten = false;
  private writeError: Error | undefined;
  private steps = 0;
  private eventCount = 0;
  private readonly started = Date.now();
  private closed = false;

  constructor(path: string, options: TraceRecorderOptions) {
    this.path = path;
    this.tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    // Through the write guard (its folders real, not links); the temporary is created exclusively.
    guardWrite(path);
    this.file = createWriteStream(this.tmp, { flags: 'wx' });
    this.file.on('error', (error) => {
      this.writeError ??= error;
    });
    const gzip = options.gzip ?? path.endsWith('.gz');
    if (gzip) {
      const z = createGzip();
      z.on('error', (error) => {
        this.writeError ??= error;
      });
      z.pipe(this.file);
      this.out = z;
    } else {
      this.out = this.file;
    }
    const header: TraceHeader = {
      type: 'trace',
      format: TRACE_FORMAT,
      version: TRACE_VERSION,
      producer: options.producer ?? 'sbeval',
      runId: options.runId ?? `${options.job.levelId}#${options.job.settings.trial}`,
      levelId: options.job.levelId,
      engine: options.engine,
      settings: options.job.settings,
      xml: options.job.xml,
      dt: 0,
      bodies: [],
    };
    if (options.recordedAt !== null) header.recordedAt = options.recordedAt ?? new Date().toISOString();
    this.header = header;
  }

  get runId(): string {
    return this.header.runId;
  }

  private write(bytes: Uint8Array): void {
    if (this.closed) throw new SbevalError('simulate', `trace ${this.path}: record after the recording ended`);
    this.out.write(bytes);
  }

  private writeHeader(): void {
    if (this.headerWritten) return;
    this.headerWritten = true;
    this.write(encodeTraceHeader(this.header));
  }

  loaded(bodies: BodyInfo[], dt: number): void {
    if (this.headerWritten) throw new SbevalError('simulate', `trace ${this.path}: "loaded" twice`);
    this.header.bodies = bodies;
    this.header.dt = dt;
    this.writeHeader();
  }

  /** A batch is encoded (copied) into the trace at once. */
  readonly borrowsFrames = true;

  frames(batch: FrameBatch): void {
    this.writeHeader();
    this.steps = Math.max(this.steps, batch.firstStep + batch.stepCount - 1);
    this.write(encodeTraceRecord({ type: 'frames', runId: this.header.runId, batch }));
  }

  events(events: SimEvent[]): void {
    this.writeHeader();
    this.eventCount += events.length;
    this.write(encodeTraceRecord({ type: 'events', runId: this.header.runId, events }));
  }

  capture(result: CaptureResult): void {
    this.writeHeader();
    const record: CaptureMessage = { type: 'capture', runId: this.header.runId, png: result.png };
    if (result.raw) record.raw = result.raw;
    this.write(encodeTraceRecord(record));
  }

  /** Ends a successful run: writes `done` and moves the file into place. */
  async finish(summary?: Partial<RunSummary>): Promise<void> {
    this.writeHeader();
    this.write(
      encodeTraceRecord({
        type: 'done',
        runId: this.header.runId,
        summary: {
          steps: summary?.steps ?? this.steps,
          bodies: summary?.bodies ?? this.header.bodies.length,
          events: summary?.events ?? this.eventCount,
          elapsedMs: summary?.elapsedMs ?? Date.now() - this.started,
        },
      }),
    );
    await this.close(true);
  }

  /** Ends a failed run: writes `error` (the trace keeps everything streamed before) and moves it into place. */
  async fail(error: unknown): Promise<void> {
    this.writeHeader();
    const phase: ErrorPhase = error instanceof SbevalError && error.phase === 'capture' ? 'capture' : 'simulate';
    const levelFault = (error as { levelError?: unknown } | null)?.levelError === true;
    const record: ErrorMessage = { type: 'error', runId: this.header.runId, phase, fault: levelFault ? 'level' : 'engine', message: describeError(error) };
    this.write(encodeTraceRecord(record));
    await this.close(true);
  }

  /** Drops the recording (no file is left behind). */
  async discard(): Promise<void> {
    await this.close(false);
  }

  private async close(keep: boolean): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await new Promise<void>((resolve) => {
      this.file.once('close', () => resolve());
      this.out.end();
    });
    if (this.writeError || !keep) {
      await rm(this.tmp, { force: true });
      if (this.writeError) {
        throw (
          storageFault(this.writeError, this.path) ??
          new SbevalError('simulate', `cannot write trace ${this.path}: ${this.writeError.message}`, undefined, { cause: this.writeError })
        );
      }
      return;
    }
    try {
      await rename(this.tmp, this.path);
    } catch (error) {
      await rm(this.tmp, { force: true }).catch(() => undefined);
      throw storageFault(error, this.path) ?? error;
    }
  }
}

/** A sink that forwards every call to several sinks, in order; it borrows frames when all of them do. */
export function teeSinks(...sinks: LevelSink[]): LevelSink {
  return {
    borrowsFrames: sinks.every((s) => s.borrowsFrames === true),
    loaded: (bodies, dt) => sinks.forEach((s) => s.loaded(bodies, dt)),
    frames: (batch) => sinks.forEach((s) => s.frames(batch)),
    events: (events) => sinks.forEach((s) => s.events(events)),
    capture: (result) => sinks.forEach((s) => s.capture(result)),
  };
}

/** Runs one job on an engine while recording it to `path`; the trace is kept whether the run succeeds or fails. */
export async function runRecorded(
  engine: Engine,
  job: LevelJob,
  path: string,
  sink?: LevelSink,
  options: Omit<TraceRecorderOptions, 'job' | 'engine'> & { signal?: AbortSignal } = {},
): Promise<void> {
  const { signal, ...recorderOptions } = options;
  const recorder = new TraceRecorder(path, { ...recorderOptions, job, engine: engine.identity });
  try {
    await engine.run(job, sink ? teeSinks(recorder, sink) : recorder, signal);
  } catch (error) {
    await recorder.fail(error);
    throw error;
  }
  await recorder.finish();
}
