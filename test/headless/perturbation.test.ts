import { describe, expect, it } from 'vitest';
import type { Perturbation } from '../../bridge/engine.js';
import { block, GROUND, level, record } from './helpers.js';

/**
 * The robustness runs' perturbations (`SimulationSettings.perturbation`): seeded and deterministic, the
 * creation positions moved by at most the noise, and no perturbation = the evaluator's trial bit for bit.
 */
// A stack of three 0.43-unit squares dropped from just above the ground and one another.
const stack = level([block('SquareSmall', 3, GROUND + 0.25), block('SquareSmall', 3, GROUND + 0.75), block('SquareSmall', 3, GROUND + 1.25)]);
const states = (rec: ReturnType<typeof record>) => rec.batches.map((b) => Array.from(b.states));
const perturbed = (p: Partial<Perturbation>): Perturbation => ({ seed: 7, shuffleOrder: true, positionNoise: 1e-4, warmStarting: true, ...p });

describe('perturbed runs', () => {
  it('the same perturbation gives the same frames; another seed gives other frames', () => {
    const a = record(stack, { windowSteps: 60, perturbation: perturbed({}) });
    const b = record(stack, { windowSteps: 60, perturbation: perturbed({}) });
    const c = record(stack, { windowSteps: 60, perturbation: perturbed({ seed: 8 }) });
    expect(states(a)).toEqual(states(b));
    expect(states(c)).not.toEqual(states(a));
  });

  it('position noise moves every creation position by at most the noise, and not at all without it', () => {
    const plain = record(stack, { windowSteps: 1 });
    const noisy = record(stack, { windowSteps: 1, perturbation: perturbed({ positionNoise: 1e-4, shuffleOrder: false }) });
    const still = record(stack, { windowSteps: 1, perturbation: perturbed({ positionNoise: 0, shuffleOrder: false }) });
    let moved = 0;
    for (let body = 0; body < 3; body++) {
      for (const field of ['x', 'y'] as const) {
        const d = Math.abs(noisy.at(0, body, field) - plain.at(0, body, field));
        expect(d).toBeLessThanOrEqual(1e-4 + 1e-6); // float32 frames
        if (d > 0) moved += 1;
        expect(still.at(0, body, field)).toBe(plain.at(0, body, field));
      }
    }
    expect(moved).toBeGreaterThan(3);
  });

  it('without perturbation the trial is the evaluator trial exactly; warm starting off changes the solve', () => {
    const a = record(stack, { windowSteps: 80 });
    const b = record(stack, { windowSteps: 80, perturbation: perturbed({ shuffleOrder: false, positionNoise: 0, warmStarting: true }) });
    const cold = record(stack, { windowSteps: 80, perturbation: perturbed({ shuffleOrder: false, positionNoise: 0, warmStarting: false }) });
    expect(states(b)).toEqual(states(a));
    expect(states(cold)).not.toEqual(states(a));
  });
});
