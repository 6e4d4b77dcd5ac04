/**
 * Every engine kind a run can use, in a module of its own so that reading a config names them without
 * loading the engines. `createEngines` (bridge/engines.ts) starts the first three; `bridge` starts
 * none: the run listens and takes whatever engines dial in (Unity or headless workers on other
 * machines, orchestrator/run/pool.ts).
 */
export const ENGINE_KINDS = ['headless', 'headless-ws', 'unity', 'bridge'] as const;
export type EngineKind = (typeof ENGINE_KINDS)[number];

/** The kinds whose trials do not run on this machine's cores (Unity editors, engines that dial in). */
export const OFF_MACHINE_ENGINES: readonly EngineKind[] = ['unity', 'bridge'];

/** The kinds that run this installation's own headless engine (in worker threads or `sbeval engine` children). */
export const OWN_HEADLESS_ENGINES: readonly EngineKind[] = ['headless', 'headless-ws'];
