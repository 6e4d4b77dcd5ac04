import { describe, expect, it } from 'vitest';
import { fdlibmAtan2, fdlibmCos, fdlibmSin } from '../../bridge/headless/fdlibm.js';

/**
 * The playground's sin, cos and atan2 (bridge/headless/fdlibm.ts) give Node's bits: on random angles at
 * every scale a body's angle takes, on angles within 1e-12…1e-3 of k·π/2 (where the reduction cancels:
 * blocks rotated 90° sit there), on atan2's quadrants and special values. A page that rounds one of
 * them otherwise simulates other frames.
 */
describe("sin, cos and atan2 as Node's V8 computes them", () => {
  it('equal Math.sin, Math.cos and Math.atan2 bit for bit on a million inputs each', () => {
    let seed = 987654321;
    const random = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 4294967296;
    };
    const inputs: Array<[number, number]> = [];
    for (let i = 0; i < 500_000; i++) {
      const scale = [1e-9, 1e-3, 0.5, 1, 3, 10, 100, 1e4, 8e5][i % 9]!;
      inputs.push([(random() - 0.5) * 2 * scale, (random() - 0.5) * 2 * [1e-9, 1, 10, 1e5][i % 4]!]);
      const k = Math.floor(random() * 200) - 100;
      inputs.push([k * (Math.PI / 2) + (random() - 0.5) * [1e-12, 1e-8, 1e-5, 1e-3][i % 4]!, random() - 0.5]);
    }
    const special = [0, -0, 1, -1, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN, Math.PI, -Math.PI, Math.PI / 2, 5e-324, 1e300];
    for (const a of special) for (const b of special) inputs.push([a, b]);
    const differing: string[] = [];
    for (const [x, y] of inputs) {
      if (!Object.is(fdlibmSin(x), Math.sin(x))) differing.push(`sin(${x})`);
      if (!Object.is(fdlibmCos(x), Math.cos(x))) differing.push(`cos(${x})`);
      if (!Object.is(fdlibmAtan2(y, x), Math.atan2(y, x))) differing.push(`atan2(${y}, ${x})`);
    }
    expect(differing.slice(0, 10)).toEqual([]);
  });
});
