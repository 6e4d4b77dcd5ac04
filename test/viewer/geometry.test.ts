import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFrames, poseAt } from '../../viewer/static/frames.js';
import {
  boundsOf,
  evaluatorView,
  fitView,
  labelFontSize,
  niceInterval,
  pickBody,
  pixelToWorld,
  placePath,
  pointInPaths,
  stepToX,
  ticks,
  valueToY,
  worldToPixel,
  xToStep,
} from '../../viewer/static/geometry.js';
import { advance, createPlayback, pause, play, seek, setSpeed, stepBy, toggle } from '../../viewer/static/playback.js';

/** The page's pure modules (plain JS served as files), tested in Node. */
describe('viewer geometry', () => {
  it('maps world to pixels and back (y up in the world, down on the canvas)', () => {
    const view = fitView({ minX: 2, maxX: 6, minY: -3.5, maxY: -1.5 }, 800, 600, 20);
    // The larger relative side (4 units over 760 px vs 2 over 560) sets the scale.
    expect(view.scale).toBeCloseTo(760 / 4, 10);
    const [px, py] = worldToPixel(view, 4, -2.5);
    expect(px).toBeCloseTo(400, 10);
    expect(py).toBeCloseTo(300, 10);
    const [, top] = worldToPixel(view, 4, -1.5);
    expect(top).toBeLessThan(py);
    fc.assert(
      fc.property(fc.double({ min: -50, max: 50, noNaN: true }), fc.double({ min: -50, max: 50, noNaN: true }), (x, y) => {
        const [wx, wy] = pixelToWorld(view, ...worldToPixel(view, x, y));
        return Math.abs(wx - x) < 1e-9 && Math.abs(wy - y) < 1e-9;
      }),
    );
  });

  it('frames a bound as the evaluator camera does: its larger side fills 824 of 1024 px, centred', () => {
    // The worked check of reference/science-birds-evaluator.md §5: a bound 1.159 high fills 824 px.
    const bound = { minX: 2, maxX: 2.72, minY: -3.5, maxY: -3.5 + 1.159 };
    const view = evaluatorView(bound, 1024);
    expect(view.scale).toBeCloseTo(824 / 1.159, 9);
    const [, yTop] = worldToPixel(view, 2.36, bound.maxY);
    const [, yBottom] = worldToPixel(view, 2.36, bound.minY);
    expect(yTop).toBeCloseTo(100, 9);
    expect(yBottom).toBeCloseTo(924, 9);
    const [xLeft] = worldToPixel(view, bound.minX, 0);
    const [xRight] = worldToPixel(view, bound.maxX, 0);
    expect((xLeft + xRight) / 2).toBeCloseTo(512, 9);
  });

  it('places body outlines and bounds them', () => {
    const square = [
      [-0.5, -0.25],
      [0.5, -0.25],
      [0.5, 0.25],
      [-0.5, 0.25],
    ] as const;
    const turned = placePath(square, 1, 2, Math.PI / 2);
    const b = boundsOf([turned])!;
    expect(b.minX).toBeCloseTo(0.75, 12);
    expect(b.maxX).toBeCloseTo(1.25, 12);
    expect(b.minY).toBeCloseTo(1.5, 12);
    expect(b.maxY).toBeCloseTo(2.5, 12);
    expect(boundsOf([])).toBeUndefined();
  });

  it('maps steps to the time axis and back, clamped', () => {
    expect(stepToX(0, 515, 40, 600)).toBe(40);
    expect(stepToX(514, 515, 40, 600)).toBe(640);
    expect(xToStep(0, 515, 40, 600)).toBe(0);
    expect(xToStep(10_000, 515, 40, 600)).toBe(514);
    fc.assert(fc.property(fc.integer({ min: 0, max: 514 }), (s) => xToStep(stepToX(s, 515, 40, 600), 515, 40, 600) === s));
    expect(valueToY(0, 2, 10, 100)).toBe(110);
    expect(valueToY(2, 2, 10, 100)).toBe(10);
    expect(valueToY(5, 2, 10, 100)).toBe(10);
  });

  it('picks nice tick intervals at least the minimum spacing apart', () => {
    expect(niceInterval(10, 600, 48)).toBe(1);
    expect(niceInterval(10.28, 300, 48)).toBe(2);
    expect(niceInterval(0.5, 200, 24)).toBe(0.1);
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 1000, noNaN: true }), fc.integer({ min: 50, max: 2000 }), (range, px) => {
        const interval = niceInterval(range, px, 30);
        const mantissa = interval / 10 ** Math.floor(Math.log10(interval) + 1e-12);
        const nice = [1, 2, 5, 10].some((m) => Math.abs(mantissa - m) < 1e-9);
        return nice && (interval / range) * px >= 30 - 1e-6;
      }),
    );
    expect(ticks(0, 10, 600, 48)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});

describe('viewer playback', () => {
  it('plays at real speed: one step per dt of wall time at 1×, fractions carried', () => {
    let p = play(createPlayback(515, 0.02));
    p = advance(p, 0.05); // 2.5 steps
    expect(p.step).toBe(2);
    p = advance(p, 0.05); // 2.5 more: 5 in all
    expect(p.step).toBe(5);
    p = advance(setSpeed(p, 2), 0.1); // 10 steps at 2×
    expect(p.step).toBe(15);
    p = advance(p, 100);
    expect(p.step).toBe(514);
    expect(p.playing).toBe(false);
    // Play at the end starts over.
    expect(play(p).step).toBe(0);
  });

  it('steps, seeks and pauses', () => {
    let p = createPlayback(100, 0.02);
    expect(advance(p, 1).step).toBe(0); // paused: time does not move it
    p = toggle(p);
    expect(p.playing).toBe(true);
    p = stepBy(p, 1);
    expect(p).toMatchObject({ step: 1, playing: false });
    expect(stepBy(p, -5).step).toBe(0);
    expect(seek(p, 250).step).toBe(99);
    expect(seek(p, 42.4).step).toBe(42);
    expect(pause(play(p)).playing).toBe(false);
    expect(setSpeed(p, -1).speed).toBe(1);
  });
});

describe('viewer frames decoding', () => {
  it('reads the server body (float32 LE states, alive bytes, then the displacement table) into per-body series', () => {
    const steps = 3;
    const bodies = 2;
    const cells = steps * bodies;
    const buffer = new ArrayBuffer(cells * 6 * 4 + cells + cells * 4);
    const view = new DataView(buffer);
    const put = (s: number, b: number, f: number, v: number) => view.setFloat32(((s * bodies + b) * 6 + f) * 4, v, true);
    const putDisplacement = (s: number, b: number, v: number) => view.setFloat32(cells * 25 + (s * bodies + b) * 4, v, true);
    for (let s = 0; s < steps; s++) {
      put(s, 0, 0, 1 + 0.5 * s);
      put(s, 1, 1, -3 - s);
      putDisplacement(s, 0, 0.5 * s);
      putDisplacement(s, 1, s === 0 ? 0 : 1);
    }
    new Uint8Array(buffer, cells * 24, cells).set([1, 1, 1, 1, 1, 0]);
    const frames = decodeFrames(buffer, steps, bodies);
    expect(poseAt(frames, 2, 0)).toMatchObject({ x: 2, alive: true });
    expect(poseAt(frames, 2, 1)).toMatchObject({ y: -5, alive: false });
    // The server's table, read per body (the page computes no displacement of its own).
    expect(Array.from(frames.displacement[0]!)).toEqual([0, 0.5, 1]);
    expect(Array.from(frames.displacement[1]!)).toEqual([0, 1, 1]);
    expect(() => decodeFrames(new ArrayBuffer(10), steps, bodies)).toThrow(/expected 174 bytes/);
  });
});

describe('viewer picking and labels', () => {
  const square = (x: number, y: number, h: number): Array<[number, number]> => [
    [x - h, y - h],
    [x + h, y - h],
    [x + h, y + h],
    [x - h, y + h],
  ];

  it('tells inside from outside by the even-odd rule, holes included', () => {
    expect(pointInPaths([square(0, 0, 1)], 0.5, -0.9)).toBe(true);
    expect(pointInPaths([square(0, 0, 1)], 1.1, 0)).toBe(false);
    // A frame: outer square with a hole.
    const frame = [square(0, 0, 2), square(0, 0, 1)];
    expect(pointInPaths(frame, 1.5, 0)).toBe(true);
    expect(pointInPaths(frame, 0, 0)).toBe(false);
    fc.assert(
      fc.property(fc.double({ min: -3, max: 3, noNaN: true }), fc.double({ min: -3, max: 3, noNaN: true }), (x, y) => {
        // Away from the edges, the even-odd answer is the box test.
        fc.pre(Math.abs(Math.abs(x) - 1) > 1e-9 && Math.abs(Math.abs(y) - 1) > 1e-9);
        return pointInPaths([square(0, 0, 1)], x, y) === (Math.abs(x) < 1 && Math.abs(y) < 1);
      }),
    );
  });

  it('picks the body drawn last where shapes overlap, skips hidden ones, and finds none in empty space', () => {
    const shapes = [[square(0, 0, 1)], [square(1, 0, 1)], null];
    expect(pickBody(shapes, 0.5, 0)).toBe(1);
    expect(pickBody(shapes, -0.5, 0)).toBe(0);
    expect(pickBody(shapes, 5, 5)).toBe(-1);
    expect(pickBody([[square(0, 0, 1)], null], 0, 0)).toBe(0);
  });

  it('sizes block numbers from the view scale, readable at every zoom', () => {
    expect(labelFontSize(10)).toBe(9);
    expect(labelFontSize(40)).toBe(12);
    expect(labelFontSize(500)).toBe(14);
  });
});
