import type { Engine } from './engine.js';
import type { FleetOptions } from './remote-fleet.js';
import type { UnityLaunchOptions } from './remote-launchers.js';

/**
 * Every engine kind a run can use: what it is and how this machine starts it, one entry each. Reading
 * a config names the kinds without loading any engine: each `start` imports its engine's modules when
 * it runs. `createEngines` (bridge/engines.ts) calls the kind's `start`; a kind without one (`bridge`)
 * starts nothing here: the run listens and takes whatever engines dial in (Unity or headless workers
 * on other machines, orchestrator/run/pool.ts).
 */
export interface CreateEnginesOptions {
  /** Run the headless engine in the calling thread instead of worker threads. */
  inProcess?: boolean;
  /** `unity`: the editor binary and the project (default: SBEVAL_UNITY_EDITOR / SBEVAL_UNITY_PROJECT). */
  unity?: UnityLaunchOptions;
  /** `headless-ws` / `unity`: fleet settings (log folder, restart budget, endpoint host/port, log lines). */
  fleet?: Omit<FleetOptions, 'launcher' | 'count'>;
}

type StartEngines = (count: number, options: CreateEnginesOptions) => Promise<Engine[]>;

interface EngineKindEntry {
  /** Whether its trials run off this machine's cores (Unity editors, engines that dial in). */
  offMachine: boolean;
  /** Whether it is this installation's own headless engine (in worker threads or `sbeval engine` children). */
  ownHeadless: boolean;
  /** How this machine starts `count` engines of the kind; undefined: nobody here starts them. */
  start: StartEngines | undefined;
}

/** Engines behind the bridge protocol, one launched instance each, in a fleet that restarts the ones that die. */
async function fleetEngines(
  count: number,
  options: CreateEnginesOptions,
  launcher: (launchers: typeof import('./remote-launchers.js')) => FleetOptions['launcher'],
) {
  const [{ EngineFleet }, launchers] = await Promise.all([import('./remote-fleet.js'), import('./remote-launchers.js')]);
  return (await EngineFleet.start({ ...options.fleet, launcher: launcher(launchers), count })).engines;
}

const KINDS = {
  /** The planck.js engine in worker threads (one per engine, so levels run in parallel), or in this thread with `inProcess` (tests, one-level commands). */
  headless: {
    offMachine: false,
    ownHeadless: true,
    async start(count, options) {
      if (options.inProcess) {
        const { HeadlessEngine } = await import('./headless/engine.js');
        return Array.from({ length: count }, () => new HeadlessEngine());
      }
      return (await import('./headless/worker-engine.js')).startWorkerEngines(count);
    },
  },
  /** The headless engine in `sbeval engine` child processes (an endpoint on 127.0.0.1 plus one worker per engine). */
  'headless-ws': {
    offMachine: false,
    ownHeadless: true,
    start: (count, options) => fleetEngines(count, options, (launchers) => launchers.headlessWorkerLauncher()),
  },
  /** Science Birds Unity editors with the sbeval plugin (options.unity, or SBEVAL_UNITY_EDITOR and SBEVAL_UNITY_PROJECT). */
  unity: {
    offMachine: true,
    ownHeadless: false,
    start: (count, options) => fleetEngines(count, options, (launchers) => launchers.unityLauncher(options.unity ?? launchers.unityFromEnvironment())),
  },
  /** Engines that dial in to the run's endpoint from anywhere. */
  bridge: { offMachine: true, ownHeadless: false, start: undefined },
} satisfies Record<string, EngineKindEntry>;

export type EngineKind = keyof typeof KINDS;
export const ENGINE_KINDS = Object.keys(KINDS) as [EngineKind, ...EngineKind[]];

const entryOf = (kind: EngineKind): EngineKindEntry => KINDS[kind];

/** The kinds whose trials do not run on this machine's cores. */
export const OFF_MACHINE_ENGINES: readonly EngineKind[] = ENGINE_KINDS.filter((kind) => entryOf(kind).offMachine);

/** The kinds that run this installation's own headless engine. */
export const OWN_HEADLESS_ENGINES: readonly EngineKind[] = ENGINE_KINDS.filter((kind) => entryOf(kind).ownHeadless);

/** The kinds this machine starts (`createEngines`). */
export const STARTED_ENGINES: readonly EngineKind[] = ENGINE_KINDS.filter((kind) => entryOf(kind).start !== undefined);

/** How this machine starts engines of `kind`; undefined for a kind it does not start or does not know. */
export function engineStart(kind: string): StartEngines | undefined {
  return Object.hasOwn(KINDS, kind) ? entryOf(kind as EngineKind).start : undefined;
}
