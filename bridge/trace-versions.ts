import { SbevalError } from '../core/errors.js';
import { invariant } from '../core/invariant.js';

/**
 * Trace format versions (Playwright's lesson, reference/model-codebases.md §2): every version that was
 * ever written is frozen here as types, and a typed chain of upgrades turns an old trace into the
 * current one step by step. A version above the newest gives a plain "newer sbeval" error.
 *
 * Version history:
 * - 1 (sbeval 0.1, 2025): header record + the bridge protocol's level messages (frames, events,
 *   capture, done, error) as msgpack maps, optionally gzip-compressed.
 *
 * To add version N+1: freeze the old header/record types below as `TraceHeaderVN`, bump
 * `TRACE_VERSION`, and append one `TraceUpgrade` to `TRACE_UPGRADES` (the compile-time check at the
 * bottom fails until the chain is complete). Keep a real version-N file as a test fixture.
 */

/** The newest version this sbeval writes and reads. */
export const TRACE_VERSION = 1;
export const TRACE_FORMAT = 'sbeval-trace';

/** Version 1 header (frozen: never edit, add a new version instead). Field order is the file order. */
export interface TraceHeaderV1 {
  type: 'trace';
  format: 'sbeval-trace';
  version: 1;
  /** The program that wrote the trace, e.g. `sbeval 0.1.0`. */
  producer: string;
  /** ISO time the recording started; absent when the recorder was asked for a reproducible file. */
  recordedAt?: string;
  /** The `runId` every following record carries. */
  runId: string;
  levelId: string;
  engine: { kind: string; version: string; description: string };
  settings: {
    windowSteps: number;
    trial: number;
    damage: string;
    capture: boolean;
    captureRaw: boolean;
    framesPerBatch: number;
  };
  xml: string;
  dt: number;
  bodies: Array<{
    id: number;
    kind: string;
    type: string;
    material?: string;
    counted: boolean;
    x: number;
    y: number;
    angle: number;
  }>;
}

/**
 * One step of the chain: turns a version-`from` header into a version-`from + 1` header and each
 * version-`from` record into zero or more version-`from + 1` records. Works on unvalidated maps
 * (validation happens once, against the newest schema, after the last step).
 */
export interface TraceUpgrade {
  from: number;
  header(header: Record<string, unknown>): Record<string, unknown>;
  record(record: Record<string, unknown>): Record<string, unknown>[];
}

/** `TRACE_UPGRADES[i]` upgrades version `i + 1` to `i + 2`. */
const TRACE_UPGRADES = [] as const satisfies readonly TraceUpgrade[];

// Compile-time completeness: the chain has exactly TRACE_VERSION - 1 steps.
type Previous = [never, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const chainIsComplete: Previous[typeof TRACE_VERSION] = TRACE_UPGRADES.length;
void chainIsComplete;

/** The error for a trace written by a newer sbeval; the message says what to do. */
export function newerTraceError(version: number, path?: string): SbevalError {
  return new SbevalError(
    'input',
    `${path ? `${path}: ` : ''}this trace was written by a newer sbeval (trace format version ${version}); ` +
      `this sbeval reads versions 1 to ${TRACE_VERSION}. Upgrade sbeval to open it.`,
  );
}

/**
 * Brings a header and a stream of records from `version` to `chain.length + 1` (the newest), one
 * upgrade at a time. Pure; the chain is a parameter so tests can exercise the mechanism.
 */
export function upgradeHeader(header: Record<string, unknown>, version: number, chain: readonly TraceUpgrade[] = TRACE_UPGRADES): Record<string, unknown> {
  let h = header;
  for (let v = version; v <= chain.length; v += 1) {
    const step = chain[v - 1] as TraceUpgrade;
    invariant(step.from === v, `trace upgrade chain is out of order at version ${v}`);
    h = step.header(h);
  }
  return h;
}

export function upgradeRecord(record: Record<string, unknown>, version: number, chain: readonly TraceUpgrade[] = TRACE_UPGRADES): Record<string, unknown>[] {
  let records = [record];
  for (let v = version; v <= chain.length; v += 1) {
    const step = chain[v - 1] as TraceUpgrade;
    records = records.flatMap((r) => step.record(r));
  }
  return records;
}
