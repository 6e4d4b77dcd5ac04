import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { traceFromBytes } from '../../bridge/trace.js';
import { findTraceFiles, verifyCorpus } from '../../orchestrator/stages/verify.js';
import { explainFrames } from '../../scoring/explain.js';
import { viewerFrames, viewerMeta } from '../../viewer/trial.js';
import type { BenchSuite } from './suite.js';

/**
 * The trace tools on the committed corpus (test/fixtures/corpus: 90 reference levels + 10 hard
 * generated ones, 504 steps each: steps 0 … 503, the evaluator's window): reading a trace, `explain`, the viewer's payload, and a whole
 * `sbeval verify` (re-simulation + comparison) in this thread.
 */
const CORPUS = fileURLToPath(new URL('../../test/fixtures/corpus/', import.meta.url));

function stats(values: number[]): { mean: number; p95: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    mean: values.reduce((s, v) => s + v, 0) / values.length,
    p95: sorted[Math.floor(0.95 * (sorted.length - 1))]!,
    max: sorted.at(-1)!,
  };
}

const ms = (v: number): number => Math.round(v * 100) / 100;

export const explainSuite: BenchSuite = {
  name: 'explain',
  description: 'trace read, explain, viewer payload per trace; sbeval verify over the committed corpus',
  async run() {
    const files = findTraceFiles(CORPUS);
    const read: number[] = [];
    const explain: number[] = [];
    const payload: number[] = [];
    let bytes = 0;
    for (const file of files) {
      const raw = readFileSync(file);
      bytes += raw.length;
      let t = performance.now();
      const trace = traceFromBytes(raw, file);
      read.push(performance.now() - t);
      t = performance.now();
      explainFrames({ dt: trace.dt, bodies: trace.bodies, frames: [trace.frames], events: trace.events, windowSteps: trace.header.settings.windowSteps });
      explain.push(performance.now() - t);
      t = performance.now();
      const trial = {
        levelId: trace.header.levelId,
        dt: trace.dt,
        bodies: trace.bodies,
        frames: [trace.frames],
        events: trace.events,
        settings: trace.header.settings,
        xml: trace.header.xml,
        capture: undefined,
        engine: trace.header.engine,
        source: file,
      };
      viewerMeta(trial);
      viewerFrames(trial);
      payload.push(performance.now() - t);
    }
    const started = performance.now();
    const summary = await verifyCorpus({ corpus: CORPUS });
    const verifyMs = performance.now() - started;
    const row = (what: string, values: number[]) => {
      const s = stats(values);
      return { measure: what, traces: files.length, mean_ms: ms(s.mean), p95_ms: ms(s.p95), max_ms: ms(s.max) };
    };
    return [
      row('read trace (gzip msgpack)', read),
      row('explain', explain),
      row('viewer meta + frames', payload),
      {
        measure: 'sbeval verify (whole corpus)',
        traces: files.length,
        total_s: ms(verifyMs / 1000),
        per_trace_ms: ms(verifyMs / files.length),
        identical: summary.counts.identical,
        corpus_kib: Math.round(bytes / 1024),
      },
    ];
  },
};
