import { describe, expect, it } from 'vitest';
import { headlessFactory, loadReference, measureAgreement } from '../../orchestrator/stages/agreement.js';
import { FakeEngine } from './helpers/fake-engines.js';

/**
 * "The pool never shrinks silently", on the agreement path (`npm run fidelity`,
 * `sbeval unity calibrate`): an engine retired for one bad result must not take every following level
 * down with it. With a factory it is replaced and every level gets its result; without one the levels
 * left without an engine are recorded as failures and the measurement still completes.
 */
const LEVELS = loadReference().filter((l) => ['V1_I_1', 'V2_I_1', 'V3_U_2'].includes(l.level));

describe('agreement when the pool retires an engine', () => {
  it('replaces a retired engine through the factory: every level gets its result', async () => {
    expect(LEVELS).toHaveLength(3);
    // The liar answers with another level's body table: garbage, so the pool retires it at once.
    const liar = new FakeEngine('liar', ['garbage-bodies']);
    const agreement = await measureAgreement({ engines: [liar], levels: LEVELS, pool: { factory: headlessFactory() } });
    expect(liar.jobs.length).toBe(1);
    expect(liar.closeCalls).toBe(1);
    expect(agreement.levels.map((l) => [l.level, l.failure])).toEqual(LEVELS.map((l) => [l.level, undefined]));
    expect(agreement.summary.failed).toBe(0);
    expect(agreement.summary.stableAgreement).toBe(3);
  }, 120_000);

  it('without a factory, records the levels left without an engine as failures and completes', async () => {
    const liar = new FakeEngine('liar', ['garbage-bodies']);
    const agreement = await measureAgreement({ engines: [liar], levels: LEVELS });
    expect(agreement.levels).toHaveLength(3);
    for (const l of agreement.levels) expect(l.failure).toMatch(/no engine left to run it/);
    expect(agreement.levels[0]!.failure).toMatch(/does not match the level/);
    expect(agreement.summary).toMatchObject({ levels: 3, failed: 3, stableAgreement: 0 });
  }, 120_000);
});
