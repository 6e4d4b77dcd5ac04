import { DEFAULT_SIMULATION, type Engine, type SimulationSettings } from '../bridge/engine.js';
import { HeadlessEngine } from '../bridge/headless/engine.js';
import { memorySink } from '../bridge/memory-sink.js';
import type { TrialData } from './trial.js';

/** Runs one trial of a level on an engine (the in-process headless one by default) and keeps all of it. */
export async function simulateTrialData(levelId: string, xml: string, settings: Partial<SimulationSettings> = {}, engine?: Engine): Promise<TrialData> {
  const own = engine ?? new HeadlessEngine();
  const full: SimulationSettings = { ...DEFAULT_SIMULATION, ...settings };
  const { sink, data } = memorySink();
  try {
    await own.run({ levelId, xml, settings: full }, sink);
  } finally {
    if (!engine) await own.close();
  }
  return {
    levelId,
    dt: data.dt,
    bodies: data.bodies,
    frames: data.frames,
    events: data.events,
    settings: full,
    xml,
    capture: data.png,
    engine: own.identity,
    source: 'simulated',
  };
}
