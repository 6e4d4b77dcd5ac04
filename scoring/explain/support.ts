import type { BodyInfo } from '../../bridge/frames.js';
import { LANDSCAPE } from '../../levels/catalog.js';
import { type Aabb, localShape, worldAabb } from './shapes.js';

/**
 * Who rests on whom at the start, and whether each body's load is carried: a static reading of the
 * first frame that explains collapses which start by themselves (a block over an edge, an overhang
 * that tips, a block with nothing under it).
 *
 * The ground's top surface is y ≈ −3.5 (Landscape prefab: −4.3 − 1.4034476 + 4.4068956/2, levels/
 * catalog.ts `LANDSCAPE`; reference/science-birds-evaluator.md §3). Blocks start up to ~0.03 above what they rest on, because the
 * competition grid is 0.2401 while the colliders are 0.21–0.22 (§1.2), hence the gap tolerance.
 */
export const GROUND_TOP_Y = LANDSCAPE.groundLocalY + LANDSCAPE.colliderOffsetY + LANDSCAPE.colliderSize.height / 2;
/** Largest vertical gap between a body's bottom and a top below it that still counts as resting on it. */
const SUPPORT_GAP = 0.06;
/** Smallest horizontal overlap that counts as contact (grid neighbours sit ~0.02 apart side by side). */
const MIN_OVERLAP = 0.01;
/** Bodies whose boxes interpenetrate deeper than this on both axes start overlapping (a start gap is ~0.01–0.03 the other way). */
const OVERLAP_DEPTH = 0.03;
/** A load this far past the support's edge tips; below it the reading is within rounding. */
const EDGE_TOLERANCE = 0.002;

/** −1 stands for the ground, as in contact events. */
export const GROUND = -1;

interface SupportContact {
  /** Body id, or GROUND. */
  by: number;
  left: number;
  right: number;
}

export type StaticIssue =
  /** The level places it (partly) inside other bodies: the solver pushes them apart at the first steps. */
  | { kind: 'overlap'; with: number[]; depth: number }
  | {
      kind: 'overhang';
      /** The edge of the support the load lies beyond. */
      side: 'left' | 'right';
      edgeX: number;
      /** How far beyond the edge the load's centre of mass lies. */
      beyond: number;
      /** Centre of mass (x) of the body and everything it carries. */
      loadX: number;
      /** The body (or GROUND) whose edge it is. */
      edgeOf: number;
      /** This body and every body whose weight goes through it. */
      loadBodies: number[];
    }
  | {
      kind: 'unsupported';
      /** Distance down to the first top below it (another body or the ground). */
      dropHeight: number;
      /** What it will land on first (body id or GROUND). */
      landsOn: number;
    };

export interface BodySupport {
  id: number;
  aabb: Aabb;
  mass: number;
  contacts: SupportContact[];
  /** Number of bodies between this one and the ground along its deepest support chain. */
  depth: number;
  /** Total weight (mass) it carries including itself, and where it acts. */
  load: { mass: number; x: number };
  issue: StaticIssue | undefined;
}

interface PlacedBody {
  info: BodyInfo;
  x: number;
  y: number;
  angle: number;
  alive: boolean;
}

function overlap(a: Aabb, b: Aabb): [number, number] | undefined {
  const left = Math.max(a.minX, b.minX);
  const right = Math.min(a.maxX, b.maxX);
  return right - left > MIN_OVERLAP ? [left, right] : undefined;
}

/** A static body (platform) carries loads but never tips; dead bodies are ignored. */
function isDynamic(body: PlacedBody): boolean {
  return body.info.kind !== 'platform';
}

/** Who rests on whom: the ground under a bottom within SUPPORT_GAP of its top, a body whose top is at its bottom and overlaps it. */
function findContacts(live: readonly BodySupport[]): void {
  for (const u of live) {
    const gapToGround = u.aabb.minY - GROUND_TOP_Y;
    if (gapToGround <= SUPPORT_GAP && gapToGround >= -SUPPORT_GAP) {
      u.contacts.push({ by: GROUND, left: u.aabb.minX, right: u.aabb.maxX });
    }
    for (const s of live) {
      if (s === u) continue;
      const gap = u.aabb.minY - s.aabb.maxY;
      // Resting on s: its bottom is at s's top (within the start gap) and s is really below it.
      if (gap > SUPPORT_GAP || gap < -0.02 || s.aabb.minY >= u.aabb.minY) continue;
      const o = overlap(u.aabb, s.aabb);
      if (o) u.contacts.push({ by: s.id, left: o[0], right: o[1] });
    }
  }
}

/** Turned by a multiple of 90°: its bounding box is its shape. */
function isSquare(p: PlacedBody): boolean {
  const r = Math.abs(p.angle) % (Math.PI / 2);
  return Math.min(r, Math.PI / 2 - r) < 0.01;
}

/** Bodies placed inside each other deeper than OVERLAP_DEPTH: only for bodies turned by a multiple of 90°. */
function findOverlaps(placed: readonly PlacedBody[], result: readonly BodySupport[]): Map<number, { with: number[]; depth: number }> {
  const overlaps = new Map<number, { with: number[]; depth: number }>();
  for (let i = 0; i < result.length; i++) {
    for (let j = i + 1; j < result.length; j++) {
      if (!placed[i]!.alive || !placed[j]!.alive || !isSquare(placed[i]!) || !isSquare(placed[j]!)) continue;
      const a = result[i]!.aabb;
      const b = result[j]!.aabb;
      const depth = Math.min(Math.min(a.maxX, b.maxX) - Math.max(a.minX, b.minX), Math.min(a.maxY, b.maxY) - Math.max(a.minY, b.minY));
      if (depth <= OVERLAP_DEPTH) continue;
      for (const [u, v] of [
        [result[i]!, result[j]!],
        [result[j]!, result[i]!],
      ] as const) {
        const o = overlaps.get(u.id) ?? { with: [], depth: 0 };
        o.with.push(v.id);
        o.depth = Math.max(o.depth, depth);
        overlaps.set(u.id, o);
      }
    }
  }
  return overlaps;
}

/** Depth bottom-up: supporters are strictly lower, so ascending bottoms visit them first. Returns the live bodies by bottom. */
function assignDepths(live: readonly BodySupport[], result: readonly BodySupport[]): BodySupport[] {
  const byBottom = [...live].sort((a, b) => a.aabb.minY - b.aabb.minY);
  const byId = new Map(result.map((r) => [r.id, r]));
  for (const u of byBottom) {
    let depth = 0;
    for (const c of u.contacts) if (c.by !== GROUND) depth = Math.max(depth, (byId.get(c.by)?.depth ?? 0) + 1);
    u.depth = depth;
  }
  return byBottom;
}

/** The loads bodies pass down to each support: mass, where it acts, and the bodies it comes from. */
type IncomingLoads = Map<number, Array<{ mass: number; x: number; from: Set<number> }>>;

/**
 * Passes body `u`'s resultant load (its weight at `ownX` plus what rests on it) to its supports: all
 * to the edge it overhangs (an overhang issue), all to the support under its centre of mass, or split
 * by the lever rule between the nearest supports on either side.
 */
function passLoad(u: BodySupport, ownX: number, dynamic: boolean, incoming: IncomingLoads, live: readonly BodySupport[]): void {
  const forces = [{ mass: u.mass, x: ownX, from: new Set([u.id]) }, ...(incoming.get(u.id) ?? [])];
  const mass = forces.reduce((sum, f) => sum + f.mass, 0);
  const x = forces.reduce((sum, f) => sum + f.mass * f.x, 0) / mass;
  const from = new Set<number>();
  for (const f of forces) for (const id of f.from) from.add(id);
  u.load = { mass, x };
  if (u.contacts.length === 0) {
    if (dynamic) u.issue = unsupportedIssue(u, live);
    return;
  }
  const left = Math.min(...u.contacts.map((c) => c.left));
  const right = Math.max(...u.contacts.map((c) => c.right));
  const give = (contact: SupportContact, share: number, at: number): void => {
    if (contact.by === GROUND || share <= 0) return;
    const list = incoming.get(contact.by) ?? [];
    list.push({ mass: share, x: at, from });
    incoming.set(contact.by, list);
  };
  if (dynamic && (x < left - EDGE_TOLERANCE || x > right + EDGE_TOLERANCE)) {
    const side = x < left ? 'left' : 'right';
    const edgeX = side === 'left' ? left : right;
    const edge = u.contacts.find((c) => (side === 'left' ? c.left === left : c.right === right))!;
    u.issue = { kind: 'overhang', side, edgeX, beyond: Math.abs(x - edgeX), loadX: x, edgeOf: edge.by, loadBodies: [...from].sort((a, b) => a - b) };
    give(edge, mass, edgeX);
    return;
  }
  const sorted = [...u.contacts].sort((a, b) => a.left - b.left);
  const holding = sorted.find((c) => x >= c.left - EDGE_TOLERANCE && x <= c.right + EDGE_TOLERANCE);
  if (holding) {
    give(holding, mass, Math.min(Math.max(x, holding.left), holding.right));
    return;
  }
  // Between two supports: split by the lever rule between the nearest edges on either side.
  const before = sorted.filter((c) => c.right < x).at(-1)!;
  const after = sorted.find((c) => c.left > x)!;
  const span = after.left - before.right;
  give(before, (mass * (after.left - x)) / span, before.right);
  give(after, (mass * (x - before.right)) / span, after.left);
}

export function analyseSupport(placed: readonly PlacedBody[]): BodySupport[] {
  const result: BodySupport[] = placed.map((p) => {
    const shape = localShape(p.info);
    return {
      id: p.info.id,
      aabb: worldAabb(shape, p.x, p.y, p.angle),
      mass: shape.mass,
      contacts: [],
      depth: 0,
      load: { mass: 0, x: p.x },
      issue: undefined,
    };
  });
  const live = result.filter((_, i) => placed[i]!.alive);
  findContacts(live);
  const overlaps = findOverlaps(placed, result);
  const byBottom = assignDepths(live, result);

  // Loads top-down: each body passes its resultant (own weight + what rests on it) to its supports.
  const incoming: IncomingLoads = new Map();
  for (const u of [...byBottom].reverse()) {
    const body = placed[result.indexOf(u)]!;
    passLoad(u, body.x, isDynamic(body), incoming, live);
  }
  for (const u of result) {
    const o = overlaps.get(u.id);
    if (o && isDynamic(placed[result.indexOf(u)]!)) u.issue = { kind: 'overlap', with: o.with.sort((a, b) => a - b), depth: o.depth };
  }
  return result;
}

function unsupportedIssue(u: BodySupport, live: readonly BodySupport[]): StaticIssue {
  let landsOn = GROUND;
  let top = GROUND_TOP_Y;
  for (const s of live) {
    if (s === u || s.aabb.maxY > u.aabb.minY) continue;
    if (overlap(u.aabb, s.aabb) && s.aabb.maxY > top) {
      top = s.aabb.maxY;
      landsOn = s.id;
    }
  }
  return { kind: 'unsupported', dropHeight: u.aabb.minY - top, landsOn };
}
