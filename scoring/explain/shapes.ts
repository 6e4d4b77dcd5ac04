import type { BodyInfo } from '../../bridge/frames.js';
import { blockSpec, type Collider, PLATFORM, type Point, pigSpec, TNT } from '../../levels/catalog.js';

/**
 * The outline of a body in its own frame, enough to reason about who rests on whom, taken from the
 * catalog (the prefabs' colliders). The frame stream does not carry a platform's XML scale, so a
 * platform is read at its prefab size (0.64 × 0.64); platforms never tip, they only carry.
 */
interface LocalShape {
  /** Local outline points (counter-clockwise), centred on the body's position. */
  points: ReadonlyArray<Point>;
  /** Mass used for loads: collider area × density 1 for auto-mass bodies, else the prefab's fixed mass. */
  mass: number;
}

function outline(collider: Collider): ReadonlyArray<Point> {
  if (collider.shape === 'polygon') return collider.points;
  const w = collider.width / 2;
  const h = collider.height / 2;
  return [
    [-w, -h],
    [w, -h],
    [w, h],
    [-w, h],
  ];
}

function polygonArea(points: ReadonlyArray<Point>): number {
  let sum = 0;
  for (let i = 0; i < points.length; i++) {
    const [x1, y1] = points[i]!;
    const [x2, y2] = points[(i + 1) % points.length]!;
    sum += x1 * y2 - x2 * y1;
  }
  return Math.abs(sum) / 2;
}

/** Unknown types (a trace from a newer catalog) fall back to a 0.5 box rather than failing the analysis. */
const FALLBACK: Collider = { shape: 'box', width: 0.5, height: 0.5 };

export function localShape(body: BodyInfo): LocalShape {
  let collider: Collider = FALLBACK;
  let fixedMass: number | undefined;
  if (body.kind === 'block') {
    collider = blockSpec(body.type)?.collider ?? FALLBACK;
  } else if (body.kind === 'pig') {
    const spec = pigSpec(body.type);
    collider = spec?.collider ?? FALLBACK;
    if (spec && typeof spec.body.mass === 'number') fixedMass = spec.body.mass;
  } else if (body.kind === 'tnt') {
    collider = TNT.collider;
    if (typeof TNT.body.mass === 'number') fixedMass = TNT.body.mass;
  } else {
    collider = PLATFORM.collider;
  }
  const points = outline(collider);
  return { points, mass: fixedMass ?? polygonArea(points) };
}

export interface Aabb {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

/** World-space bounding box of a shape placed at (x, y) turned by `angle` radians CCW. */
export function worldAabb(shape: LocalShape, x: number, y: number, angle: number): Aabb {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  let minX = Infinity;
  let maxX = -Infinity;
  let minY = Infinity;
  let maxY = -Infinity;
  for (const [px, py] of shape.points) {
    const wx = x + c * px - s * py;
    const wy = y + s * px + c * py;
    minX = Math.min(minX, wx);
    maxX = Math.max(maxX, wx);
    minY = Math.min(minY, wy);
    maxY = Math.max(maxY, wy);
  }
  return { minX, maxX, minY, maxY };
}
