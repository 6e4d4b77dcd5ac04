import { SbevalError } from '../../core/errors.js';
/**
 * Plane geometry for colliders and drawing: polygon area/centroid/inertia, convexity, and the split
 * of a PolygonCollider2D outline into convex pieces of at most 8 vertices (Box2D — and so Unity's
 * PolygonCollider2D — can only simulate convex polygons of ≤ b2_maxPolygonVertices = 8 vertices).
 * Pure functions over plain numbers.
 */
export type Vec = readonly [number, number];

export function signedArea(points: readonly Vec[]): number {
  let sum = 0;
  for (let i = 0; i < points.length; i++) {
    const [x1, y1] = points[i] as Vec;
    const [x2, y2] = points[(i + 1) % points.length] as Vec;
    sum += x1 * y2 - x2 * y1;
  }
  return sum / 2;
}

export function counterClockwise(points: readonly Vec[]): Vec[] {
  return signedArea(points) < 0 ? [...points].reverse() : [...points];
}

function cross(o: Vec, a: Vec, b: Vec): number {
  return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

/** True when a counter-clockwise outline turns left (or goes straight) at every vertex. */
export function isConvex(points: readonly Vec[]): boolean {
  const n = points.length;
  if (n < 3) return false;
  for (let i = 0; i < n; i++) {
    if (cross(points[i] as Vec, points[(i + 1) % n] as Vec, points[(i + 2) % n] as Vec) < -1e-12) return false;
  }
  return true;
}

/** Area, centroid and polar moment of inertia about the origin of a polygon of density 1 (Box2D's b2PolygonShape::ComputeMass formulas). */
interface MassProperties {
  area: number;
  cx: number;
  cy: number;
  /** ∫(x² + y²) dA about the origin. */
  inertia: number;
}

export function massProperties(points: readonly Vec[]): MassProperties {
  let area = 0;
  let cx = 0;
  let cy = 0;
  let inertia = 0;
  for (let i = 0; i < points.length; i++) {
    const [x1, y1] = points[i] as Vec;
    const [x2, y2] = points[(i + 1) % points.length] as Vec;
    const d = x1 * y2 - x2 * y1;
    area += d / 2;
    cx += ((x1 + x2) * d) / 6;
    cy += ((y1 + y2) * d) / 6;
    inertia += (d * (x1 * x1 + x1 * x2 + x2 * x2 + y1 * y1 + y1 * y2 + y2 * y2)) / 12;
  }
  return { area, cx: area !== 0 ? cx / area : 0, cy: area !== 0 ? cy / area : 0, inertia };
}

function pointInTriangle(p: Vec, a: Vec, b: Vec, c: Vec): boolean {
  return cross(a, b, p) >= 0 && cross(b, c, p) >= 0 && cross(c, a, p) >= 0;
}

/** Ear-clipping triangulation of a simple counter-clockwise polygon; triangles as vertex indices. */
function triangulate(points: readonly Vec[]): Array<[number, number, number]> {
  const remaining = points.map((_, i) => i);
  const triangles: Array<[number, number, number]> = [];
  let guard = 0;
  while (remaining.length > 3 && guard < 10_000) {
    guard++;
    let clipped = false;
    for (let i = 0; i < remaining.length; i++) {
      const ia = remaining[(i + remaining.length - 1) % remaining.length] as number;
      const ib = remaining[i] as number;
      const ic = remaining[(i + 1) % remaining.length] as number;
      const a = points[ia] as Vec;
      const b = points[ib] as Vec;
      const c = points[ic] as Vec;
      if (cross(a, b, c) <= 1e-12) continue; // reflex or degenerate corner
      let inside = false;
      for (const j of remaining) {
        if (j === ia || j === ib || j === ic) continue;
        if (pointInTriangle(points[j] as Vec, a, b, c)) {
          inside = true;
          break;
        }
      }
      if (inside) continue;
      triangles.push([ia, ib, ic]);
      remaining.splice(i, 1);
      clipped = true;
      break;
    }
    if (!clipped) throw new SbevalError('simulate', 'polygon outline is not simple; cannot triangulate');
  }
  if (remaining.length === 3) triangles.push([remaining[0] as number, remaining[1] as number, remaining[2] as number]);
  return triangles;
}

/**
 * Convex pieces (counter-clockwise, ≤ maxVertices each) covering a simple outline. A convex outline
 * with ≤ maxVertices is returned as is; a larger convex one is split into fans; a concave one is
 * triangulated and the triangles merged greedily (Hertel–Mehlhorn) while the union stays convex and
 * small enough. Deterministic: the same outline always gives the same pieces.
 */
export function convexPieces(outline: readonly Vec[], maxVertices = 8): Vec[][] {
  const points = counterClockwise(outline);
  if (isConvex(points)) {
    if (points.length <= maxVertices) return [points];
    const pieces: Vec[][] = [];
    let start = 1;
    while (start < points.length - 1) {
      const end = Math.min(start + maxVertices - 2, points.length - 1);
      const piece: Vec[] = [points[0] as Vec];
      for (let i = start; i <= end; i++) piece.push(points[i] as Vec);
      pieces.push(piece);
      start = end;
    }
    return pieces;
  }
  let polys: number[][] = triangulate(points).map((t) => [...t]);
  let merged = true;
  while (merged) {
    merged = false;
    outer: for (let i = 0; i < polys.length; i++) {
      for (let j = i + 1; j < polys.length; j++) {
        const union = mergeAlongSharedEdge(polys[i] as number[], polys[j] as number[]);
        if (!union || union.length > maxVertices) continue;
        if (!isConvex(union.map((k) => points[k] as Vec))) continue;
        polys = polys.filter((_, k) => k !== i && k !== j);
        polys.splice(i, 0, union);
        merged = true;
        break outer;
      }
    }
  }
  return polys.map((p) => p.map((k) => points[k] as Vec));
}

/** Two counter-clockwise index polygons sharing an edge (a→b in one, b→a in the other) → their union. */
function mergeAlongSharedEdge(p: number[], q: number[]): number[] | undefined {
  for (let i = 0; i < p.length; i++) {
    const a = p[i] as number;
    const b = p[(i + 1) % p.length] as number;
    const j = q.indexOf(b);
    if (j < 0 || q[(j + 1) % q.length] !== a) continue;
    // Walk p from b round to a, then q from a (exclusive) round to b (exclusive).
    const out: number[] = [];
    for (let k = 0; k < p.length; k++) out.push(p[(i + 1 + k) % p.length] as number);
    for (let k = 2; k < q.length; k++) out.push(q[(j + k) % q.length] as number);
    return out;
  }
  return undefined;
}

/** Rotates then translates local points into the world frame. */
export function transformPoints(points: readonly Vec[], x: number, y: number, angle: number): Vec[] {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  return points.map(([px, py]) => [x + c * px - s * py, y + s * px + c * py] as const);
}

export function boxPoints(width: number, height: number): Vec[] {
  const hw = width / 2;
  const hh = height / 2;
  return [
    [-hw, -hh],
    [hw, -hh],
    [hw, hh],
    [-hw, hh],
  ];
}
