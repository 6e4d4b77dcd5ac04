import type { Engine } from '../../bridge/engine.js';
import type { EngineHealth } from './types.js';

/** One engine of the pool, as the pool keeps it (retired ones stay listed: serials keep their meaning). */
export interface Member {
  engine: Engine;
  /**
   * The pool's own number for it, unique over the pool's life (an engine id can come back: a bridge
   * engine reconnecting under its name, a fleet's replacement).
   */
  serial: number;
  /** The referee: runs only jobs whose level fault claims need checking (`EnginePoolOptions.referee`). */
  referee: boolean;
  slot: number | undefined;
  generation: number;
  /** Runs the engine accepts at once (`Engine.capacity`, at least 1). */
  capacity: number;
  /** Attempts holding one of its places (a cancelled run holds its place until it settles). */
  inFlight: number;
  /**
   * Attempts handed to the engine whose run has not settled, in hand-over order: the engine works on
   * the first, so only the first one's watchdogs run (`arm` starts them once; attempt.ts).
   */
  lineup: Array<{ arm: () => void }>;
  retired: boolean;
  jobsDone: number;
  consecutiveFailures: number;
  totalFailures: number;
  /** The engine's runs, settled or not (awaited by `close`). */
  running: Set<Promise<unknown>>;
}

export function newMember(engine: Engine, serial: number, slot: number | undefined, generation: number, referee: boolean): Member {
  return {
    engine,
    serial,
    referee,
    slot,
    generation,
    capacity: Math.max(1, Math.floor(engine.capacity ?? 1)),
    inFlight: 0,
    lineup: [],
    retired: false,
    jobsDone: 0,
    consecutiveFailures: 0,
    totalFailures: 0,
    running: new Set(),
  };
}

/** An engine that says it is dead (`alive === false`, e.g. a remote engine whose socket closed). */
export function isReportedDead(engine: Engine): boolean {
  return (engine as { alive?: unknown }).alive === false;
}

export function healthOf(member: Member): EngineHealth {
  return {
    engineId: member.engine.id,
    slot: member.slot,
    busy: member.inFlight > 0,
    jobsDone: member.jobsDone,
    consecutiveFailures: member.consecutiveFailures,
    totalFailures: member.totalFailures,
  };
}
