import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EngineEndpoint } from '../../bridge/endpoint.js';
import { DEFAULT_SIMULATION, type Engine, type LevelJob, type LevelSink } from '../../bridge/engine.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { decodeMessage, encodeMessage } from '../../bridge/protocol.js';
import { EngineFleet } from '../../bridge/remote-fleet.js';
import { headlessWorkerLauncher } from '../../bridge/remote-launchers.js';
import { runRecorded } from '../../bridge/trace.js';
import { headlessCapabilities, runEngineWorker } from '../../bridge/worker.js';
import { programToXml } from '../../levels/pipeline.js';
import type { BenchSuite } from './suite.js';

/**
 * The bridge's costs: msgpack codec throughput on a typical `frames` message, the time per level of
 * the headless engine in process vs behind the protocol (worker in this process over a loopback
 * socket, and `sbeval engine` child processes), and trace sizes for a busy 30-block level.
 */
const REFERENCE = fileURLToPath(new URL('../../calibration/reference-levels/v1/levels/', import.meta.url));

const NULL_SINK: LevelSink = { loaded: () => {}, frames: () => {}, events: () => {}, capture: () => {} };

function referenceJobs(): LevelJob[] {
  const jobs: LevelJob[] = [];
  for (const c of ['I', 'L', 'U']) {
    for (const f of readdirSync(join(REFERENCE, c))
      .filter((n) => n.endsWith('.xml'))
      .sort()) {
      jobs.push({ levelId: `${c}/${f}`, xml: readFileSync(join(REFERENCE, c, f), 'utf8'), settings: { ...DEFAULT_SIMULATION } });
    }
  }
  return jobs;
}

function thirtyBlocks(): string {
  const calls: string[] = [];
  for (let layer = 0; layer < 6; layer += 1) for (const column of [1, 5, 9, 13, 17]) calls.push(`drop_block('${layer % 2 === 0 ? 'b13' : 'b11'}', ${column})`);
  return programToXml(calls.join('\n'));
}

/** Mean ms per level: every job once to warm the JIT (in the engine's process), then `rounds` timed passes; the fastest pass counts. */
async function timePerLevel(engine: Engine, jobs: LevelJob[], rounds = 3): Promise<number> {
  for (const job of jobs) await engine.run(job, NULL_SINK);
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < rounds; r += 1) {
    const start = performance.now();
    for (const job of jobs) await engine.run(job, NULL_SINK);
    best = Math.min(best, (performance.now() - start) / jobs.length);
  }
  return best;
}

export const bridgeSuite: BenchSuite = {
  name: 'bridge',
  description: 'msgpack codec, socket overhead per level (in process vs protocol), trace sizes',
  async run() {
    const rows: Array<Record<string, string | number>> = [];

    // Codec: a frames batch of 50 steps × 30 bodies (the default batch of a 30-block level).
    const states = new Float32Array(50 * 30 * 6).map((_, i) => Math.sin(i) * 3);
    const frames = {
      type: 'frames' as const,
      runId: 'bench',
      batch: { firstStep: 0, stepCount: 50, bodyCount: 30, states, alive: new Uint8Array(50 * 30).fill(1) },
    };
    const bytes = encodeMessage(frames);
    const n = 2000;
    let t = performance.now();
    for (let i = 0; i < n; i += 1) encodeMessage(frames);
    const encodeMs = (performance.now() - t) / n;
    t = performance.now();
    for (let i = 0; i < n; i += 1) decodeMessage(bytes, { from: 'engine' });
    const decodeMs = (performance.now() - t) / n;
    rows.push({
      measure: 'frames message 50 steps × 30 bodies',
      bytes: bytes.length,
      'encode µs': Math.round(encodeMs * 1000),
      'decode+validate µs': Math.round(decodeMs * 1000),
    });

    // Per level: in process vs the same engine behind the protocol.
    const jobs = referenceJobs();
    const inProcess = await timePerLevel(new HeadlessEngine(), jobs);
    const endpoint = await EngineEndpoint.listen();
    const stop = new AbortController();
    const worker = runEngineWorker({
      url: endpoint.url,
      token: endpoint.token,
      engine: new HeadlessEngine(),
      capabilities: headlessCapabilities(),
      signal: stop.signal,
    });
    const [remote] = await endpoint.waitForEngines(1);
    const overSocket = await timePerLevel(remote as Engine, jobs);
    stop.abort();
    await endpoint.close();
    await worker.catch(() => undefined);
    const fleet = await EngineFleet.start({ launcher: headlessWorkerLauncher(), count: 1 });
    const childProcess = await timePerLevel(fleet.engines[0] as Engine, jobs);
    await fleet.close();
    rows.push({
      measure: `ms per level (${jobs.length} reference levels, 1 trial + image)`,
      'in process': inProcess.toFixed(1),
      'loopback socket': overSocket.toFixed(1),
      'sbeval engine process': childProcess.toFixed(1),
      'socket overhead %': (((overSocket - inProcess) / inProcess) * 100).toFixed(1),
    });

    // Trace sizes for a busy level.
    const dir = mkdtempSync(join(tmpdir(), 'sbeval-bench-trace-'));
    try {
      const job: LevelJob = { levelId: 'thirty', xml: thirtyBlocks(), settings: { ...DEFAULT_SIMULATION } };
      const engine = new HeadlessEngine();
      await runRecorded(engine, job, join(dir, 't.sbtrace'));
      await runRecorded(engine, job, join(dir, 't.sbtrace.gz'));
      rows.push({
        measure: 'trace of a 30-block level (10 s + capture, 515 steps)',
        'plain KB': (statSync(join(dir, 't.sbtrace')).size / 1024).toFixed(1),
        'gzip KB': (statSync(join(dir, 't.sbtrace.gz')).size / 1024).toFixed(1),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return rows;
  },
};
