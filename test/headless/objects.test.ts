import { describe, expect, it } from 'vitest';
import { convexPieces, isConvex, signedArea, type Vec } from '../../bridge/headless/geometry.js';
import { groundTiles, planObjects, worldHalfWidth } from '../../bridge/headless/objects.js';
import { LevelWorld } from '../../bridge/headless/world.js';
import { BLOCKS, type Collider, PIGS, PLATFORM, TNT } from '../../levels/catalog.js';
import type { LevelObject } from '../../levels/level.js';
import { StabilityTracker } from '../../scoring/stability.js';
import { block, GROUND, level, record } from './helpers.js';

/** Shoelace area, computed here independently of the engine's geometry module. */
function area(points: ReadonlyArray<readonly [number, number]>): number {
  let s = 0;
  for (let i = 0; i < points.length; i++) {
    const [x1, y1] = points[i]!;
    const [x2, y2] = points[(i + 1) % points.length]!;
    s += x1 * y2 - x2 * y1;
  }
  return Math.abs(s) / 2;
}

function colliderArea(c: Collider): number {
  if (c.shape === 'box') return c.width * c.height;
  return area(c.points) - (c.holes ?? []).reduce((sum, h) => sum + area(h), 0);
}

function lowestY(c: Collider): number {
  return c.shape === 'box' ? -c.height / 2 : Math.min(...c.points.map((p) => p[1]));
}

/** Core gap of two resting polygons: 2 × b2_polygonRadius (0.01) − b2_linearSlop (0.005). */
const REST_GAP = 2 * 0.01 - 0.005;

/** Every object the evaluator can load, resting on the ground 0.005 above it. */
const RESTING: Array<{ name: string; object: LevelObject }> = [
  ...Object.entries(BLOCKS).flatMap(([type, spec]) =>
    (['wood', 'stone', 'ice'] as const).map((material) => ({
      name: `${type} ${material}`,
      object: block(type, 3, GROUND - lowestY(spec.collider) + 0.005, { material }),
    })),
  ),
  ...Object.entries(PIGS).map(([type, spec]) => ({
    name: `pig ${type}`,
    object: { kind: 'pig', type, x: 3, y: GROUND - lowestY(spec.collider) + 0.005, rotation: 0 } as LevelObject,
  })),
  { name: 'TNT', object: { kind: 'tnt', type: '', x: 3, y: GROUND + 0.33 + 0.005, rotation: 0 } },
];

describe('every object type', () => {
  it.each(RESTING)('$name rests on the ground: alive, not destroyed, moved < 0.1 in 10 s', ({ object }) => {
    const rec = record(level([object]));
    const tracker = new StabilityTracker(rec.bodies);
    tracker.events(rec.events);
    for (const b of rec.batches) tracker.frames(b);
    expect(rec.bodies[0]?.counted).toBe(true);
    expect(rec.events.filter((e) => e.kind === 'destroyed')).toEqual([]);
    expect(rec.alive(500, 0)).toBe(true);
    const [d] = tracker.details();
    expect(d!.displacement).toBeLessThan(0.1);
    expect(tracker.result()).toMatchObject({ startingObjects: 1, movingObjects: 0, score: 1 });
    // It really stands on the ground: Box2D keeps two polygons' cores 2 × skin (0.01) − linear slop
    // (0.005) = 0.015 apart, so it ends 0.01 above where it started.
    expect(Math.abs(rec.at(500, 0, 'y') - (object.y + REST_GAP - 0.005))).toBeLessThan(0.003);
  });

  it('masses: blocks auto-mass (area × density 1, hole subtracted), pigs and TNT their fixed prefab mass', () => {
    const objects: LevelObject[] = [
      ...Object.keys(BLOCKS).map((type, i) => block(type, i * 3 - 15, 5)),
      ...Object.keys(PIGS).map((type, i) => ({ kind: 'pig', type, x: i * 3, y: 10, rotation: 0 }) as LevelObject),
      { kind: 'tnt', type: 'x', x: 12, y: 10, rotation: 0 },
    ];
    const world = new LevelWorld(level(objects), { trial: 1, damage: 'contact-point', seed: 1 });
    Object.values(BLOCKS).forEach((spec, i) => expect(world.massOf(i)!.mass).toBeCloseTo(colliderArea(spec.collider), 10));
    const n = Object.keys(BLOCKS).length;
    Object.values(PIGS).forEach((spec, i) => expect(world.massOf(n + i)!.mass).toBeCloseTo(spec.body.mass as number, 10));
    expect(world.massOf(n + 3)!.mass).toBeCloseTo(TNT.body.mass as number, 10);
    // A 0.22 × 0.21 box of mass m has inertia m(w² + h²)/12 about its centre.
    const tiny = Object.keys(BLOCKS).indexOf('SquareTiny');
    expect(world.massOf(tiny)!.inertia).toBeCloseTo((0.22 * 0.21 * (0.22 ** 2 + 0.21 ** 2)) / 12, 12);
  });

  it('polygon colliders split into convex pieces of ≤ 8 vertices (Box2D limit) that cover the outline exactly', () => {
    const outlines: Array<ReadonlyArray<readonly [number, number]>> = [
      ...Object.values(BLOCKS).flatMap((s) => (s.collider.shape === 'polygon' ? [s.collider.points] : [])),
      ...Object.values(PIGS).flatMap((s) => (s.collider.shape === 'polygon' ? [s.collider.points] : [])),
    ];
    expect(outlines.length).toBe(7);
    for (const outline of outlines) {
      const pieces = convexPieces(outline as Vec[]);
      for (const piece of pieces) {
        expect(piece.length).toBeLessThanOrEqual(8);
        expect(isConvex(piece)).toBe(true);
        expect(signedArea(piece)).toBeGreaterThan(0);
      }
      expect(pieces.reduce((sum, p) => sum + area(p), 0)).toBeCloseTo(area(outline), 12);
    }
  });

  it('platforms are kinematic, scaled by scaleX/scaleY, not counted; blocks stand on them', () => {
    const platform: LevelObject = { kind: 'platform', type: 'Platform', x: 3, y: 0, rotation: 0, scaleX: 3, scaleY: 0.5 };
    const plans = planObjects(level([platform]));
    const xs = plans[0]!.outline[0]!.map((p) => p[0]);
    const ys = plans[0]!.outline[0]!.map((p) => p[1]);
    expect(Math.max(...xs) - Math.min(...xs)).toBeCloseTo(PLATFORM.collider.shape === 'box' ? PLATFORM.collider.width * 3 : 0, 6);
    expect(Math.max(...ys) - Math.min(...ys)).toBeCloseTo(0.32, 6);
    const rec = record(level([platform, block('RectSmall', 3, 0.16 + 0.11 + 0.005)]));
    expect(rec.bodies.map((b) => b.counted)).toEqual([false, true]);
    expect(rec.at(500, 0, 'y')).toBe(0);
    expect(Math.abs(rec.at(500, 1, 'y') - (0.16 + 0.11 + REST_GAP))).toBeLessThan(0.002);
  });

  it('unknown types and materials are level errors', () => {
    expect(() => planObjects(level([block('Pentagon', 0, 0)]))).toThrow(/unknown block type "Pentagon"/);
    expect(() => planObjects(level([{ kind: 'pig', type: 'King', x: 0, y: 0, rotation: 0 }]))).toThrow(/unknown pig type/);
    expect(() => planObjects(level([{ kind: 'block', type: 'RectSmall', material: 'gold' as 'wood', x: 0, y: 0, rotation: 0 }]))).toThrow(/unknown material/);
  });

  it('ground tiles as DecodeLevel places them: width 3 → centres −13.125, 4.365, 21.855, top at −3.5', () => {
    const tiles = groundTiles(3);
    expect(tiles.map((t) => t.x)).toEqual([-13.125, 4.365, 21.855].map(Math.fround));
    for (const t of tiles) expect(t.y + t.halfHeight).toBeCloseTo(-3.5, 6);
    expect(groundTiles(1).map((t) => t.x)).toEqual([0]);
    expect(worldHalfWidth(3)).toBe(26.25);
  });

  it('positions and rotations are read as float32, as Unity does', () => {
    const [plan] = planObjects(level([block('RectSmall', 2.12005, -3.37995, { rotation: 90 })]));
    expect(plan!.x).toBe(Math.fround(2.12005));
    expect(plan!.y).toBe(Math.fround(-3.37995));
    expect(plan!.angle).toBeCloseTo(Math.PI / 2, 6);
  });
});
