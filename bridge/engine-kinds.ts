/**
 * Every engine kind a run can use, in a module of its own so that reading a config names them without
 * loading the engines. `createEngines` (bridge/engines.ts) starts the first three; `bridge` starts
 * none: the run listens and takes whatever engines dial in (Unity or headless workers on other
 * machines, orchestrator/run/pool.ts).
 */
export const ENGINE_KINDS = ['headless', 'headless-ws', 'unity', 'bridge'] as const;
export type EngineKind = (typeof ENGINE_KINDS)[number];

/**
 * What each kind is, beside its name: whether its trials run off this machine's cores (Unity editors,
 * engines that dial in), and whether it is this installation's own headless engine (in worker threads
 * or `sbeval engine` children). A new kind does not compile until it says both.
 */
const TRAITS: Record<EngineKind, { offMachine: boolean; ownHeadless: boolean }> = {
  headless: { offMachine: false, ownHeadless: true },
  'headless-ws': { offMachine: false, ownHeadless: true },
  unity: { offMachine: true, ownHeadless: false },
  bridge: { offMachine: true, ownHeadless: false },
};

/** The kinds whose trials do not run on this machine's cores. */
export const OFF_MACHINE_ENGINES: readonly EngineKind[] = ENGINE_KINDS.filter((kind) => TRAITS[kind].offMachine);

/** The kinds that run this installation's own headless engine. */
export const OWN_HEADLESS_ENGINES: readonly EngineKind[] = ENGINE_KINDS.filter((kind) => TRAITS[kind].ownHeadless);
