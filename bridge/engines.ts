import { availableParallelism } from 'node:os';
import { SbevalError } from '../core/errors.js';
import type { Engine } from './engine.js';
import { ENGINE_KINDS, type EngineKind } from './engine-kinds.js';
import { HeadlessEngine } from './headless/engine.js';
import { WorkerEngine } from './headless/worker-engine.js';
import { EngineFleet, type FleetOptions } from './remote-fleet.js';
import { headlessWorkerLauncher, type UnityLaunchOptions, unityLauncher } from './remote-launchers.js';

/**
 * Engine construction by kind, for stages and the pool. One switch, one case per engine kind it starts:
 * - `headless`: the planck.js engine in worker threads (one per engine, so levels run in parallel),
 *   or in this thread with `inProcess` (tests, one-level commands).
 * - `headless-ws`: the headless engine in `sbeval engine` child processes behind the bridge protocol
 *   (an endpoint on 127.0.0.1 plus one worker per engine; a worker that dies is restarted).
 * - `unity`: Science Birds Unity editors with the sbeval plugin (options.unity, or the environment
 *   variables SBEVAL_UNITY_EDITOR and SBEVAL_UNITY_PROJECT).
 */
export interface CreateEnginesOptions {
  /** Run the headless engine in the calling thread instead of worker threads. */
  inProcess?: boolean;
  /** `unity`: the editor binary and the project (default: SBEVAL_UNITY_EDITOR / SBEVAL_UNITY_PROJECT). */
  unity?: UnityLaunchOptions;
  /** `headless-ws` / `unity`: fleet settings (log folder, restart budget, endpoint host/port, log lines). */
  fleet?: Omit<FleetOptions, 'launcher' | 'count'>;
}

/** Engines to start by default: one per core. */
export function defaultEngineCount(): number {
  return Math.max(1, availableParallelism());
}

export async function createEngines(kind: string, count: number, options: CreateEnginesOptions = {}): Promise<Engine[]> {
  if (!Number.isInteger(count) || count < 1) throw new SbevalError('config', `engine count must be a positive integer, got ${count}`);
  const known = (ENGINE_KINDS as readonly string[]).includes(kind) ? (kind as EngineKind) : undefined;
  // Every kind has its case: a new one does not compile until it says how it starts.
  switch (known) {
    case 'headless': {
      if (options.inProcess) return Array.from({ length: count }, () => new HeadlessEngine());
      const engines = Array.from({ length: count }, () => new WorkerEngine());
      try {
        await Promise.all(engines.map((e) => e.started()));
      } catch (error) {
        await Promise.all(engines.map((e) => e.close()));
        throw new SbevalError('launch', `headless worker failed to start: ${(error as Error).message}`, undefined, { cause: error });
      }
      return engines;
    }
    case 'headless-ws': {
      const fleet = await EngineFleet.start({ ...options.fleet, launcher: headlessWorkerLauncher(), count });
      return fleet.engines;
    }
    case 'unity': {
      const unity = options.unity ?? unityFromEnvironment();
      const fleet = await EngineFleet.start({ ...options.fleet, launcher: unityLauncher(unity), count });
      return fleet.engines;
    }
    // `bridge` is started by nobody here: the run listens and takes the engines that dial in.
    case 'bridge':
    case undefined:
      throw new SbevalError('config', `unknown engine "${kind}"`, `choose one of: ${ENGINE_KINDS.filter((k) => k !== 'bridge').join(', ')}`);
    default:
      return known satisfies never;
  }
}

function unityFromEnvironment(): UnityLaunchOptions {
  const editor = process.env.SBEVAL_UNITY_EDITOR;
  const project = process.env.SBEVAL_UNITY_PROJECT;
  if (!editor || !project) {
    throw new SbevalError(
      'config',
      'the unity engine needs the editor binary and the Science Birds project',
      'set SBEVAL_UNITY_EDITOR and SBEVAL_UNITY_PROJECT (see unity-plugin/README.md)',
    );
  }
  return { editor, project };
}
