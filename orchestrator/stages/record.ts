import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { DEFAULT_SIMULATION, type Engine, type SimulationSettings } from '../../bridge/engine.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { memorySink } from '../../bridge/memory-sink.js';
import { TraceRecorder, teeSinks } from '../../bridge/trace.js';
import { describeError, SbevalError } from '../../core/errors.js';
import { throwIfStorageFault } from '../../core/storage.js';
import { confineWrites, guardWrite } from '../../core/write-guard.js';
import { trialStability } from '../../scoring/stability.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { type ProgressSink, SILENT_PROGRESS } from '../progress/types.js';

/**
 * `sbeval record <levels-dir> --out <corpus>`: runs every level XML under a folder once (trial 1) and
 * keeps the whole run as a trace, so a later engine can be checked against it (`sbeval verify`).
 *
 * Corpus layout: `<corpus>/<path of the level relative to levels-dir, without .xml>.sbtrace.gz` plus
 * `<corpus>/corpus.json`, an index with the recorded verdict of every level (plain JSON so a
 * re-recording shows up in a diff). Traces are written without a recording time and with a zero
 * duration, so recording the same levels with the same engine gives byte-identical files.
 */
const CORPUS_INDEX = 'corpus.json';
const CORPUS_FORMAT = 'sbeval-corpus';
const TRACE_SUFFIX = '.sbtrace.gz';

export interface RecordOptions {
  levelsDir: string;
  out: string;
  /** Overrides of the default simulation settings (trial 1, 500-step window, no capture unless asked). */
  settings?: Partial<SimulationSettings>;
  engine?: Engine;
}

export interface CorpusEntry {
  /** The level's path relative to the levels folder, `/`-separated. */
  level: string;
  /** The trace's path relative to the corpus folder. */
  trace: string;
  bodies: number;
  steps: number;
  /** Official verdict of the recorded trial. */
  score: number;
  moving: number[];
}

export interface CorpusIndex {
  format: typeof CORPUS_FORMAT;
  version: 1;
  engine: { kind: string; version: string; description: string };
  settings: SimulationSettings;
  levels: CorpusEntry[];
}

export interface RecordSummary {
  recorded: CorpusEntry[];
  failed: Array<{ level: string; reason: string }>;
  bytes: number;
}

/** Every `.xml` under a folder, recursively, in a stable order. */
function findLevelFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name.toLowerCase().endsWith('.xml')) out.push(path);
    }
  };
  walk(dir);
  return out;
}

const toPosix = (p: string): string => p.split(sep).join('/');

/** Records one level into `tracePath`; its entry, or throws (a storage fault stops the corpus: core/storage.ts). */
async function recordLevel(engine: Engine, file: string, level: string, trace: string, tracePath: string, settings: SimulationSettings): Promise<CorpusEntry> {
  const xml = readFileSync(file, 'utf8');
  const levelId = level.replace(/\.xml$/i, '');
  const { sink, data } = memorySink();
  const job = { levelId, xml, settings };
  // No recording time and no wall-clock duration: the same levels on the same engine give the same bytes.
  // The recorder passes the write guard: a link inside the corpus folder is refused, never written through.
  const recorder = new TraceRecorder(tracePath, { job, engine: engine.identity, recordedAt: null, producer: 'sbeval record' });
  try {
    await engine.run(job, teeSinks(recorder, sink));
  } catch (error) {
    await recorder.discard();
    throw error;
  }
  await recorder.finish({ elapsedMs: 0 });
  const verdict = trialStability(data.bodies, data.frames, data.events, settings.windowSteps);
  return { level, trace, bodies: data.bodies.length, steps: data.frames.reduce((n, f) => n + f.stepCount, 0), score: verdict.score, moving: verdict.moving };
}

export async function recordCorpus(options: RecordOptions, progress: ProgressSink = SILENT_PROGRESS): Promise<RecordSummary> {
  let files: string[];
  try {
    if (!statSync(options.levelsDir).isDirectory()) throw new Error('not a folder');
    files = findLevelFiles(options.levelsDir);
  } catch (error) {
    throw new SbevalError('input', `cannot read the levels folder ${options.levelsDir}: ${describeError(error)}`);
  }
  if (files.length === 0) throw new SbevalError('input', `no .xml levels under ${options.levelsDir}`);
  const settings: SimulationSettings = { ...DEFAULT_SIMULATION, capture: false, ...options.settings };
  const engine = options.engine ?? new HeadlessEngine();
  const summary: RecordSummary = { recorded: [], failed: [], bytes: 0 };
  // The corpus folder is a root of the one write guard (core/write-guard.ts), like a competition's.
  const withdraw = confineWrites(options.out);
  progress.start('record', files.length);
  try {
    guardWrite(options.out, { folder: true });
    for (const file of files) {
      const level = toPosix(relative(options.levelsDir, file));
      const trace = `${level.replace(/\.xml$/i, '')}${TRACE_SUFFIX}`;
      const tracePath = join(options.out, ...trace.split('/'));
      try {
        summary.recorded.push(await recordLevel(engine, file, level, trace, tracePath, settings));
        summary.bytes += statSync(tracePath).size;
        progress.tick('record', 'ok', level);
      } catch (error) {
        throwIfStorageFault(error);
        summary.failed.push({ level, reason: describeError(error) });
        progress.tick('record', 'failed', level, describeError(error));
      }
    }
    const index: CorpusIndex = { format: CORPUS_FORMAT, version: 1, engine: engine.identity, settings, levels: summary.recorded };
    await writeFileAtomic(join(options.out, CORPUS_INDEX), `${JSON.stringify(index, null, 2)}\n`);
  } finally {
    progress.end('record');
    if (!options.engine) await engine.close();
    withdraw();
  }
  return summary;
}
