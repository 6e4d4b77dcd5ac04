import { existsSync } from 'node:fs';
import { createEngines } from '../../bridge/engines.js';
import { SbevalError } from '../../core/errors.js';
import type { Settings } from '../config/index.js';
import { type EngineFactory, EnginePool, type PoolEvent } from '../pool/index.js';
import type { ProgressSink } from '../progress/types.js';
import { checksEngineIdentity, EngineIdentityCheck } from '../stages/level-cache.js';
import { bridgePool } from './bridge-pool.js';
import type { RunContext } from './context.js';
import type { PlannedLevel } from './levels.js';
import type { RunLog } from './run-log.js';

/**
 * The engine pool of `sbeval run`: `settings.engine` (or an injected factory), with the run's limits.
 * `warn` makes a warning of the run (printed now, repeated in its summary and report): an engine
 * retired for a lie, a token file others can read.
 */
export async function createPool(
  settings: Settings,
  injected: EngineFactory | undefined,
  log: RunLog,
  progress: ProgressSink,
  warn: (message: string) => void,
): Promise<EnginePool> {
  const discredited = new Set<string>();
  const common = {
    stallMs: settings.limits.stallMs,
    jobTimeoutMs: settings.limits.trialMs,
    maxAttempts: 1,
    onEvent: (event: PoolEvent) => {
      log.pool(event);
      if (event.type === 'engine-discredited') {
        discredited.add(event.engineId);
        warn(`engine ${event.engineId} retired for a lie: ${event.reason}`);
      }
      // Engines retired because the pool closes at the end are not news; a liar was announced above
      // (its retirement follows its discredit at once: the id is forgotten, a replacement may reuse it).
      if (event.type === 'engine-retired' && event.reason !== 'the engine pool closed' && !discredited.delete(event.engineId))
        progress.note('simulate', `engine ${event.engineId} retired: ${event.reason}`);
      if (event.type === 'engine-replace-failed') progress.note('simulate', `engine slot ${event.slot} not replaced: ${event.reason}`);
    },
  };
  if (injected) return EnginePool.create({ ...common, size: settings.workers, factory: injected });
  if (settings.engine === 'bridge') return bridgePool(settings, common, log, progress, warn);
  // One call for all engines (one endpoint for process fleets); replacements one by one.
  const engines = await createEngines(settings.engine, settings.workers);
  const factory: EngineFactory = async (slot, generation) => {
    const [engine] = await createEngines(settings.engine, 1);
    if (!engine) throw new SbevalError('launch', `no ${settings.engine} engine for slot ${slot} (generation ${generation})`);
    return engine;
  };
  return new EnginePool({ ...common, engines, factory });
}

/**
 * For engines known only by their `hello` (`unity`, `bridge`: stages/level-cache.ts
 * `checksEngineIdentity`): the run's pool, started now, and the check of the cached results of
 * `levels` against its first engine (a bridge run waits for one to dial in). Undefined for the
 * engines of this installation (their version is in the settings digest) and when no level is there.
 */
export async function engineIdentityCheck(ctx: RunContext, levels: readonly PlannedLevel[]): Promise<EngineIdentityCheck | undefined> {
  if (!checksEngineIdentity(ctx.settings.engine) || !levels.some((l) => existsSync(l.paths.level))) return undefined;
  ctx.pool ??= await createPool(ctx.settings, ctx.options.engineFactory, ctx.log, ctx.progress, (message) => ctx.warn('simulate', message));
  // Stopped before any engine came: nothing cached is vouched for (the levels count as not run).
  return new EngineIdentityCheck(await ctx.pool.firstEngine(ctx.options.signal));
}
