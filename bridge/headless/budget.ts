import { SbevalError } from '../../core/errors.js';

/**
 * The per-trial simulation budget of the headless engine: a limit on the work one trial may do, so a
 * pathological level (hundreds of objects stacked on one spot, a thousand pigs) fails as a level with
 * its own reason instead of keeping an engine busy for minutes. It is counted, never timed: the same
 * level with the same settings gets the same verdict on any machine, in any engine process, in a
 * resumed or re-routed run.
 *
 * The cost of a step is the work its narrow phase and its solver do (each of the evaluator's 100
 * velocity and 100 position iterations visits the same bodies and contacts): the dynamic bodies awake
 * at the start of the step plus the contacts (collider pairs whose bounding boxes overlap) that
 * involve an awake dynamic body. Before the first step the pairs are counted from the broad phase's
 * boxes, i.e. the contacts that step will create. The check runs before the step: a trial whose next
 * step would exceed `maxStepCost`, or take the trial's total past `maxTrialCost`, ends there.
 *
 * Rule for shortcuts (engine-speed: "end the trial early when everything is asleep"): a step in which
 * no dynamic body is awake costs 0, so a shortcut may skip exactly those steps — skipping them leaves
 * every running total, and therefore every verdict, unchanged. A shortcut that skips steps with a
 * non-zero cost must charge them (`CostMeter.charge`) as if they had run.
 *
 * The limits are fitted on the most expensive level the official drop can build: the full 20 × 16
 * grid of SquareTiny (320 blocks, the most bodies and the densest contacts a drop program can make;
 * a tall wobbly stack that stays awake the whole window). Its trials cost at most 0.96 million with at
 * most 2,036 per step (`npx tsx scripts/budget-costs.ts`), and no buildable level can exceed
 * 514 steps × ~2,040 ≈ 1.05 million. The limits are ~4× (step) and ~2.4× (trial) above that. Checked
 * on data they were not fitted on: the 100-level corpus (max 19,929 per trial, 185 per step) passes
 * `sbeval verify` under the budget, random drop programs stay far below it (test/headless/
 * budget.test.ts), and 500 blocks on one spot (≈125,000 contacts) stops before its first step, which
 * alone would take over a minute.
 */
export interface SimulationBudget {
  /** Largest cost of one step (awake dynamic bodies + their contacts). */
  maxStepCost: number;
  /** Largest cost of one trial (window, plus the capture steps when the trial captures). */
  maxTrialCost: number;
}

export const SIMULATION_BUDGET: SimulationBudget = Object.freeze({ maxStepCost: 8_000, maxTrialCost: 2_500_000 });

/** The reasons recorded for a level over budget (fixed wording, so failure reports group them). */
export const BUDGET_REASONS = {
  step: (budget: SimulationBudget) => `Simulation budget exceeded: more than ${budget.maxStepCost} bodies and contacts to update in one step.`,
  trial: (budget: SimulationBudget) => `Simulation budget exceeded: more than ${budget.maxTrialCost} body and contact updates in one trial.`,
} as const;

/** A level that needs more work than the budget allows; another engine would say the same (`levelError`). */
export class SimulationBudgetError extends SbevalError {
  readonly levelError = true;
  readonly limit: 'step' | 'trial';
  /** The step that would have exceeded the budget (1-based) and the cost counted when it did. */
  readonly step: number;
  readonly cost: number;
  constructor(limit: 'step' | 'trial', step: number, cost: number, budget: SimulationBudget) {
    super('simulate', BUDGET_REASONS[limit](budget));
    this.name = 'SimulationBudgetError';
    this.limit = limit;
    this.step = step;
    this.cost = cost;
  }
}

/** Keeps one trial's running cost and throws `SimulationBudgetError` before a step that would exceed the budget. */
export class CostMeter {
  total = 0;
  constructor(private readonly budget: SimulationBudget = SIMULATION_BUDGET) {}

  charge(step: number, cost: number): void {
    if (cost > this.budget.maxStepCost) throw new SimulationBudgetError('step', step, cost, this.budget);
    if (this.total + cost > this.budget.maxTrialCost) throw new SimulationBudgetError('trial', step, this.total + cost, this.budget);
    this.total += cost;
  }
}
