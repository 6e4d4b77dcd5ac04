import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Packr } from 'msgpackr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELD_COUNT } from '../../bridge/frames.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import {
  MAX_TRACE_BYTES,
  openTrace,
  readTrace,
  runRecorded,
  TRACE_VERSION,
  TraceFormatError,
  TraceRecorder,
  TraceTooLargeError,
  traceFromBytes,
} from '../../bridge/trace.js';
import { type TraceUpgrade, upgradeHeader, upgradeRecord } from '../../bridge/trace-versions.js';
import { stepsToSimulate } from '../../bridge/window.js';
import { SbevalError } from '../../core/errors.js';
import { DEFAULT_MAX_LEVEL_OBJECTS, DEFAULT_MAX_LEVEL_SIZE } from '../../levels/xml-read.js';
import { Collected } from './collect.js';
import { goldenLevel, job, thirtyBlockLevel } from './levels.js';

const plain = new Packr({ useRecords: false, variableMapSize: true });
let dir: string;
const engine = new HeadlessEngine('trace-test');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sbeval-trace-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('trace round trip', () => {
  it.each(['plain.sbtrace', 'compressed.sbtrace.gz'])('reads back exactly what the engine streamed (%s)', async (name) => {
    const path = join(dir, name);
    const collected = new Collected();
    const levelJob = job('sample/L/V1_L_1', goldenLevel('V1_L_1'), { captureRaw: true });
    await runRecorded(engine, levelJob, path, collected.sink);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const gz = readFileSync(path).subarray(0, 2);
    expect(gz[0] === 0x1f && gz[1] === 0x8b).toBe(name.endsWith('.gz'));

    const trace = await readTrace(path);
    expect(trace.complete).toBe(true);
    expect(trace.fileVersion).toBe(TRACE_VERSION);
    expect(trace.header.xml).toBe(levelJob.xml);
    expect(trace.header.settings).toEqual(levelJob.settings);
    expect(trace.header.engine).toEqual(engine.identity);
    expect(trace.header.levelId).toBe('sample/L/V1_L_1');
    expect(trace.bodies).toEqual(collected.bodies);
    expect(trace.dt).toBe(collected.dt);
    const frames = collected.allFrames();
    expect(trace.frames.stepCount).toBe(frames.stepCount);
    expect(trace.frames.bodyCount).toBe(frames.bodyCount);
    expect(Buffer.from(trace.frames.states.buffer).equals(Buffer.from(frames.states.buffer))).toBe(true);
    expect(Buffer.from(trace.frames.alive).equals(Buffer.from(frames.alive))).toBe(true);
    expect(trace.events).toEqual(collected.eventList);
    expect(collected.captures).toHaveLength(1);
    expect(Buffer.from(trace.capture?.png ?? []).equals(Buffer.from(collected.captures[0]?.png ?? [1]))).toBe(true);
    expect(Buffer.from(trace.capture?.raw ?? []).equals(Buffer.from(collected.captures[0]?.raw ?? [1]))).toBe(true);
    expect(trace.done).toMatchObject({ steps: frames.stepCount - 1, bodies: frames.bodyCount, events: collected.eventList.length });

    // The in-memory reader agrees with the streaming one.
    const fromBytes = traceFromBytes(readFileSync(path));
    expect(fromBytes.events).toEqual(trace.events);
    expect(Buffer.from(fromBytes.frames.states.buffer).equals(Buffer.from(trace.frames.states.buffer))).toBe(true);
  });

  it('streams records in the order they were recorded', async () => {
    const path = join(dir, 'stream.sbtrace');
    const collected = new Collected();
    await runRecorded(engine, job('stream', goldenLevel('V1_L_5')), path, collected.sink);
    const stream = await openTrace(path);
    const types: string[] = [];
    for await (const record of stream.records) types.push(record.type);
    const expected = collected.calls.filter((c) => c !== 'loaded');
    expect(types).toEqual([...expected, 'done']);
    expect(stream.truncated).toBe(false);
  });

  it('is reproducible byte for byte without a recording time', async () => {
    const a = join(dir, 'a.sbtrace');
    const b = join(dir, 'b.sbtrace');
    const levelJob = job('repro', goldenLevel('V1_L_1'));
    for (const path of [a, b]) {
      const recorder = new TraceRecorder(path, { job: levelJob, engine: engine.identity, recordedAt: null });
      await engine.run(levelJob, recorder);
      await recorder.finish({ elapsedMs: 0 });
    }
    expect(readFileSync(a).equals(readFileSync(b))).toBe(true);
  });

  it('keeps a failed run with its error and blame', async () => {
    const path = join(dir, 'failed.sbtrace');
    await expect(runRecorded(engine, job('broken', '<Level><GameObjects><Block type="Nope"'), path)).rejects.toThrow();
    const trace = await readTrace(path);
    expect(trace.complete).toBe(true);
    expect(trace.error?.fault).toBe('level');
    expect(trace.error?.message).toMatch(/XML/);
    expect(trace.frames.stepCount).toBe(0);
  });

  it('a 10-second level of 30 blocks stays well under 1 MB', async () => {
    const xml = thirtyBlockLevel();
    expect(xml.match(/<Block /g)).toHaveLength(30);
    const path = join(dir, 'thirty.sbtrace');
    const gz = join(dir, 'thirty.sbtrace.gz');
    const levelJob = job('thirty', xml);
    await runRecorded(engine, levelJob, path);
    await runRecorded(engine, levelJob, gz);
    const trace = await readTrace(path);
    const size = statSync(path).size;
    // Lossless: at least every float32 state and alive byte is in the file.
    const stateBytes = trace.frames.stepCount * 30 * (FIELD_COUNT * 4 + 1);
    expect(trace.frames.stepCount).toBeGreaterThanOrEqual(501);
    expect(size).toBeGreaterThan(stateBytes);
    expect(size).toBeLessThan(512 * 1024);
    expect(statSync(gz).size).toBeLessThan(size);
  });
});

describe('damaged and foreign files', () => {
  it('reads the prefix of a trace whose recorder died', async () => {
    const full = join(dir, 'whole.sbtrace');
    await runRecorded(engine, job('cut', goldenLevel('V1_L_1')), full);
    const bytes = readFileSync(full);
    const cut = join(dir, 'cut.sbtrace');
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.4)));
    const trace = await readTrace(cut);
    expect(trace.complete).toBe(false);
    expect(trace.done).toBeUndefined();
    const whole = await readTrace(full);
    expect(trace.frames.stepCount).toBeGreaterThan(0);
    expect(trace.frames.stepCount).toBeLessThan(whole.frames.stepCount);
    expect(Array.from(trace.frames.states)).toEqual(Array.from(whole.frames.states.subarray(0, trace.frames.states.length)));

    const cutGz = join(dir, 'cut.sbtrace.gz');
    const gz = gzipSync(bytes);
    writeFileSync(cutGz, gz.subarray(0, Math.floor(gz.length * 0.6)));
    const fromGz = await readTrace(cutGz);
    expect(fromGz.complete).toBe(false);
    expect(fromGz.frames.stepCount).toBeLessThan(whole.frames.stepCount);
    // The in-memory reader tolerates the same damage.
    expect(traceFromBytes(readFileSync(cut)).frames.stepCount).toBe(trace.frames.stepCount);
    expect(traceFromBytes(readFileSync(cutGz)).frames.stepCount).toBe(fromGz.frames.stepCount);
  });

  it('says plainly that a trace from the future needs a newer sbeval', async () => {
    const path = join(dir, 'future.sbtrace');
    writeFileSync(path, plain.pack({ type: 'trace', format: 'sbeval-trace', version: TRACE_VERSION + 1, producer: 'sbeval 9.0.0', somethingNew: true }));
    const error = await readTrace(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SbevalError);
    expect((error as SbevalError).phase).toBe('input');
    expect((error as Error).message).toBe(
      `${path}: this trace was written by a newer sbeval (trace format version ${TRACE_VERSION + 1}); this sbeval reads versions 1 to ${TRACE_VERSION}. Upgrade sbeval to open it.`,
    );
  });

  it('rejects files that are not traces', async () => {
    const path = join(dir, 'other.sbtrace');
    writeFileSync(path, plain.pack({ type: 'hello', protocol: '1.0.0' }));
    await expect(readTrace(path)).rejects.toBeInstanceOf(TraceFormatError);
    writeFileSync(path, '');
    await expect(readTrace(path)).rejects.toThrow(/empty trace/);
  });

  it('stops inflating at the size limit, in the streaming and the in-memory reader (gzip bomb)', async () => {
    const path = join(dir, 'limit.sbtrace.gz');
    await runRecorded(engine, job('limit', goldenLevel('V1_L_1')), path);
    const bytes = readFileSync(path);
    const whole = await readTrace(path);
    const inflated = gunzipSync(bytes).length;
    for (const maxBytes of [1_000, Math.floor(inflated / 2)]) {
      const error = await readTrace(path, { maxBytes }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TraceTooLargeError);
      expect((error as Error).message).toMatch(/limit\.sbtrace\.gz: the trace holds more than/);
      expect(() => traceFromBytes(bytes, 'limit', { maxBytes })).toThrow(TraceTooLargeError);
      expect(() => traceFromBytes(gunzipSync(bytes), 'limit', { maxBytes })).toThrow(TraceTooLargeError);
    }
    // At exactly its size the trace is read whole.
    expect((await readTrace(path, { maxBytes: inflated })).frames.stepCount).toBe(whole.frames.stepCount);
    expect(traceFromBytes(bytes, 'limit', { maxBytes: inflated }).frames.stepCount).toBe(whole.frames.stepCount);
  });

  it('the default limit holds the largest trace an engine records at the evaluator window', () => {
    const steps = stepsToSimulate({ windowSteps: 500, capture: true }) + 1;
    const frames = DEFAULT_MAX_LEVEL_OBJECTS * steps * (FIELD_COUNT * 4 + 1);
    // Frames, the level in the header, and room for events and captures.
    expect(MAX_TRACE_BYTES).toBeGreaterThan(1.5 * (frames + DEFAULT_MAX_LEVEL_SIZE));
  });

  it('rejects a record that does not belong (wrong run, gap in the steps)', async () => {
    const full = join(dir, 'whole2.sbtrace');
    await runRecorded(engine, job('gap', goldenLevel('V1_L_1'), { framesPerBatch: 10 }), full);
    const values = new Packr({ useRecords: false }).unpackMultiple(readFileSync(full)) as Array<Record<string, unknown>>;
    const withoutSecondBatch = values.filter((v, i) => !(v.type === 'frames' && i === values.findIndex((w, j) => j > 1 && w.type === 'frames')));
    const gapPath = join(dir, 'gap.sbtrace');
    writeFileSync(gapPath, Buffer.concat(withoutSecondBatch.map((v) => plain.pack(v))));
    await expect(readTrace(gapPath)).rejects.toThrow(/frames start at step 10, expected 0|expected 10/);
    const foreign = values.map((v, i) => (i === 2 ? { ...v, runId: 'someone-else' } : v));
    writeFileSync(gapPath, Buffer.concat(foreign.map((v) => plain.pack(v))));
    await expect(readTrace(gapPath)).rejects.toThrow(/someone-else/);
  });
});

describe('upgrade chain', () => {
  // The mechanism, with a made-up chain (version 1 is the only real version so far).
  const chain: TraceUpgrade[] = [
    { from: 1, header: (h) => ({ ...h, version: 2, units: 'm' }), record: (r) => (r.type === 'events' ? [r, { type: 'marker' }] : [r]) },
    { from: 2, header: (h) => ({ ...h, version: 3 }), record: (r) => (r.type === 'marker' ? [] : [{ ...r, seen: true }]) },
  ];

  it('applies every step from the file version to the newest', () => {
    expect(upgradeHeader({ version: 1 }, 1, chain)).toEqual({ version: 3, units: 'm' });
    expect(upgradeHeader({ version: 2 }, 2, chain)).toEqual({ version: 3 });
    expect(upgradeHeader({ version: 3 }, 3, chain)).toEqual({ version: 3 });
    expect(upgradeRecord({ type: 'events' }, 1, chain)).toEqual([{ type: 'events', seen: true }]);
    expect(upgradeRecord({ type: 'frames' }, 2, chain)).toEqual([{ type: 'frames', seen: true }]);
  });

  it('refuses a chain whose steps are out of order', () => {
    expect(() => upgradeHeader({}, 1, [chain[1] as TraceUpgrade])).toThrow(/out of order/);
  });
});
