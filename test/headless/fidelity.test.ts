import { describe, expect, it } from 'vitest';
import { createEngines } from '../../bridge/engines.js';
import { fidelityMarkdown, runFidelity } from '../../scripts/fidelity.js';

/**
 * The "Done when" targets, measured against the Unity evaluator's own results on the 90
 * reference levels (stability JSON and images of chatgpt4pcg/modified-science-birds @84df32e).
 */
describe('fidelity against the Unity evaluator (90 reference levels)', () => {
  it('stable/unstable 90/90, moving count equal on ≥ 89, every Unity-stable level IoU ≥ 0.99, mean IoU ≥ 0.96', async () => {
    const report = await runFidelity({ engines: await createEngines('headless', 2) });
    const s = report.summary;
    expect(s.levels).toBe(90);
    expect(s.stableAgreement).toBe(90);
    expect(s.movingEqual).toBeGreaterThanOrEqual(89);
    expect(s.minStableIou).toBeGreaterThanOrEqual(0.99);
    expect(s.meanIou).toBeGreaterThanOrEqual(0.96);
    expect(s.unityStable).toBeGreaterThan(0);
    const table = fidelityMarkdown(report);
    expect(table.split('\n').filter((l) => /^\| [vV]\d_/.test(l))).toHaveLength(90);
  }, 300_000);
});
