import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Packr } from 'msgpackr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unpackValues } from '../../bridge/codec.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import {
  checkTrialFrameBytes,
  MAX_TRACE_BYTES,
  parseTraceHeader,
  runRecorded,
  TraceFormatError,
  TraceTooLargeError,
  traceFromBytes,
} from '../../bridge/trace.js';
import { stepsToSimulate } from '../../bridge/window.js';
import { programToXml } from '../../levels/pipeline.js';
import { runSbeval } from '../helpers/cli.js';
import { job } from './levels.js';

/**
 * A trace is bounded by its own header. Every header field is held to the wire
 * protocol's limits and the frames it announces (bodies × steps) to what a trace may hold, before
 * anything is replayed or allocated. The red team's file: a 1.7 KB trace of a 4-block level whose
 * header says `windowSteps: 20000000` made `sbeval verify` replay for 73 s at 4.3 GB.
 */
const plain = new Packr({ useRecords: false, variableMapSize: true });
const engine = new HeadlessEngine('trace-bounds');
let dir: string;
/** A recorded trace of a 4-block level, as msgpack values (header first). */
let values: Record<string, unknown>[];

const FOUR_BLOCKS = programToXml(["drop_block('b13', 4)", "drop_block('b13', 8)", "drop_block('b31', 6)", "drop_block('b11', 12)"].join('\n'));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sbeval-trace-bounds-'));
  const path = join(dir, 'four.sbtrace');
  await runRecorded(engine, job('hostile/I/four', FOUR_BLOCKS), path, undefined, { recordedAt: null });
  values = unpackValues(readFileSync(path)).values as Record<string, unknown>[];
});
afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The recorded trace with its header changed by `edit`. */
function tampered(edit: (header: Record<string, any>) => void): Uint8Array {
  const [header, ...records] = structuredClone(values);
  edit(header as Record<string, any>);
  return Buffer.concat([header, ...records].map((v) => plain.pack(v)));
}

describe("a trace header is held to the wire protocol's limits", () => {
  it('the recorded trace itself is a 4-block level within every limit', () => {
    const trace = traceFromBytes(tampered(() => undefined));
    expect(trace.bodies.length).toBe(4);
    expect(trace.complete).toBe(true);
  });

  it.each([
    ['settings.windowSteps', (h: Record<string, any>) => (h.settings.windowSteps = 20_000_000)],
    ['settings.framesPerBatch', (h: Record<string, any>) => (h.settings.framesPerBatch = 1e9)],
    ['settings.trial', (h: Record<string, any>) => (h.settings.trial = 1e6)],
    ['runId', (h: Record<string, any>) => (h.runId = 'r'.repeat(10_000))],
    ['engine.description', (h: Record<string, any>) => (h.engine.description = 'd'.repeat(100_000))],
    ['bodies', (h: Record<string, any>) => (h.bodies = Array.from({ length: 10_001 }, (_, id) => ({ ...h.bodies[0], id })))],
  ])('refuses a header whose %s is past the limit', (field, edit) => {
    expect(() => traceFromBytes(tampered(edit), 'hostile.sbtrace')).toThrow(new RegExp(`invalid trace header: ${field.replace('.', '\\.')}`));
  });

  it('refuses a header whose window would not fit a trace (bodies × steps, computed before anything is allocated)', () => {
    // Each field within its own limit, together 10,000 bodies × ~1,000,000 steps ≈ 236 GiB of frames.
    const header = tampered((h) => {
      h.settings.windowSteps = 1_000_000;
      h.bodies = Array.from({ length: 10_000 }, (_, id) => ({ ...h.bodies[0], id }));
    });
    expect(() => parseTraceHeader(unpackValues(header).values[0], 'big.sbtrace')).toThrow(TraceTooLargeError);
    const steps = stepsToSimulate({ windowSteps: 1_000_000, capture: true }) + 1;
    expect(() => parseTraceHeader(unpackValues(header).values[0], 'big.sbtrace')).toThrow(
      new RegExp(`${steps} steps × 10000 bodies would take \\d+ MiB of frames, more than the 256 MiB a trace may hold`),
    );
    // The largest level at the evaluator's window fits.
    expect(() => checkTrialFrameBytes(10_000, { windowSteps: 500, capture: true }, 'largest')).not.toThrow();
    expect(() => checkTrialFrameBytes(1, { windowSteps: 1_000_000, capture: false }, 'long', MAX_TRACE_BYTES)).not.toThrow();
  });

  it("refuses frames past the last step of the header's window", () => {
    // The recording streams steps 0 … stepsToSimulate; a header that claims a shorter window is a lie about its frames.
    const short = tampered((h) => (h.settings.windowSteps = 10));
    expect(() => traceFromBytes(short, 'short.sbtrace')).toThrow(TraceFormatError);
    expect(() => traceFromBytes(short, 'short.sbtrace')).toThrow(
      new RegExp(`past the last step ${stepsToSimulate({ windowSteps: 10, capture: true })} of the header's window`),
    );
  });
});

describe('sbeval verify on the 20,000,000-step trace', () => {
  it('refuses it with the field and the limit, without replaying (the command ends at once, exit 1)', async () => {
    const corpus = join(dir, 'corpus');
    mkdirSync(corpus);
    writeFileSync(
      join(corpus, 'hostile.sbtrace'),
      tampered((h) => (h.settings.windowSteps = 20_000_000)),
    );
    writeFileSync(
      join(corpus, 'honest.sbtrace'),
      tampered(() => undefined),
    );
    // Before the fix the replay ran for over a minute at gigabytes: the deadline ends it (and the test) long before.
    const result = await runSbeval(['verify', corpus, '--json'], { timeout: 60_000 });
    expect(result.exitCode, result.stderr).toBe(1);
    const summary = JSON.parse(result.stdout) as { levels: Array<{ trace: string; error: string | null; comparison: { agreement: string } | null }> };
    const hostile = summary.levels.find((l) => l.trace === 'hostile.sbtrace')!;
    expect(hostile.error).toMatch(/invalid trace header: settings\.windowSteps: .*1000000/);
    expect(hostile.comparison).toBeNull();
    expect(summary.levels.find((l) => l.trace === 'honest.sbtrace')?.comparison?.agreement).toBe('identical');
  }, 120_000);
});
