import type { DamageFormula } from '../../bridge/engine.js';
import type { LevelRobustness } from '../../scoring/robustness.js';
import { OFFICIAL_RULE } from '../../scoring/stability.js';
import type { StageFilter } from '../layout/competition.js';
import type { EnginePool } from '../pool/index.js';
import type { ProgressSink } from '../progress/types.js';
import { runRobustnessStage, type LevelRobustnessResult, type RobustnessSummary } from '../stages/robustness.js';
import { poolRunner } from '../stages/simulate.js';

/**
 * `sbeval run --robustness N` on one competition folder, after its levels and stability files: the
 * stage `sbeval simulate --robustness N` runs (orchestrator/stages/robustness.ts), with the run's
 * simulation settings (so it finds the verdicts the level machines committed) and on the run's engine
 * pool when there is one (the headless engines), else on headless engines of its own.
 */
export interface RunRobustnessOptions {
  root: string;
  /** Model folder in multi-model runs. */
  model: string | undefined;
  runs: number;
  filter: StageFilter;
  simulationTrials: number;
  damage: DamageFormula;
  /** The run's engine kind: part of the verdicts' cache digest (only `headless` reaches here). */
  engine: string;
  workers: number;
  pool: EnginePool | undefined;
  progress: ProgressSink;
}

export function runRobustnessForRun(options: RunRobustnessOptions): Promise<RobustnessSummary> {
  return runRobustnessStage(
    {
      root: options.root,
      runs: options.runs,
      filter: options.filter,
      trials: options.simulationTrials,
      damage: options.damage,
      rule: OFFICIAL_RULE,
      rawImages: false,
      engine: options.engine,
      workers: options.workers,
      ...(options.pool ? { runner: poolRunner(options.pool) } : {}),
      ...(options.model !== undefined ? { model: options.model } : {}),
    },
    options.progress,
  );
}

/** A level's robustness by model folder, team, letter and trial base name (for `result/trials.csv`). */
export function robustnessLookup(results: readonly LevelRobustnessResult[]): (level: { model?: string | undefined; team: string; character: string; base: string }) => LevelRobustness | undefined {
  const key = (model: string | undefined, team: string, character: string, base: string) => JSON.stringify([model ?? '', team, character, base]);
  const byLevel = new Map(results.map((r) => [key(r.model, r.team, r.character, r.base), r.robustness]));
  return (level) => byLevel.get(key(level.model, level.team, level.character, level.base));
}
