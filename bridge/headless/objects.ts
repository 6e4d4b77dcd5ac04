import { SbevalError } from '../../core/errors.js';
import {
  BLOCK_BODY,
  type BodySpec,
  blockSpec,
  type Collider,
  DEFAULT_MATERIAL,
  isMaterial,
  LANDSCAPE,
  LAYERS,
  MATERIALS,
  PLATFORM,
  pigSpec,
  type Size,
  TNT,
} from '../../levels/catalog.js';
import type { Level, LevelObject, Material } from '../../levels/level.js';
import type { BodyInfo, BodyKind } from '../frames.js';
import { boxPoints, convexPieces, counterClockwise, massProperties, type Vec } from './geometry.js';
import { BOX2D_CONSTANTS } from './settings.js';

/**
 * A level's objects as the headless engine builds them: one plan per XML object, with everything
 * the physics, the damage model and the renderer need, resolved from the catalog. Positions and
 * angles are rounded to float32 because Unity's LevelLoader reads them as `(float)Convert.ToDouble`.
 */
export interface ObjectPlan {
  /** Index among the level's objects in XML order (= `BodyInfo.id`). */
  id: number;
  kind: BodyKind;
  type: string;
  material: Material | undefined;
  x: number;
  y: number;
  /** Radians CCW (`Quaternion.Euler(0, 0, rotation)`). */
  angle: number;
  body: BodySpec;
  friction: number;
  restitution: number;
  /** Convex pieces in the body frame: one Box2D fixture each. */
  pieces: Vec[][];
  /** Mass, centroid and rotational inertia about the centroid the body must have. */
  mass: { mass: number; cx: number; cy: number; inertia: number };
  /** The collider outline(s) in the body frame (holes as further paths), for bounds and drawing. */
  outline: Vec[][];
  /** Counted by the stability rule: every ABBlock, ABPig and ABTNT (`InitializeMovingData`). */
  counted: boolean;
  /** An ABBlock: its collider bounds frame the similarity image (`GetStructureBound`). */
  framesImage: boolean;
  /** What the black-on-white image draws for it (only layer-10 objects are rendered), in the body frame. */
  draw: { paths: Vec[][] } | undefined;
}

/** `ABGameWorld.DecodeLevel` creates pigs, then blocks, then platforms, then TNT, each in XML order. */
const CREATION_RANK: Record<BodyKind, number> = { pig: 0, block: 1, platform: 2, tnt: 3 };

const f32 = Math.fround;

function colliderOutline(collider: Collider, scaleX = 1, scaleY = 1): { outline: Vec[]; holes: Vec[][] } {
  if (collider.shape === 'box') return { outline: boxPoints(collider.width * scaleX, collider.height * scaleY), holes: [] };
  const scale = (points: ReadonlyArray<readonly [number, number]>): Vec[] => points.map(([x, y]) => [x * scaleX, y * scaleY] as const);
  return { outline: counterClockwise(scale(collider.points)), holes: (collider.holes ?? []).map((h) => counterClockwise(scale(h))) };
}

/** Mass properties about the centroid; a fixed mass (UseAutoMass 0) scales the density. */
function massOf(outline: Vec[], holes: Vec[][], body: BodySpec): ObjectPlan['mass'] {
  const outer = massProperties(outline);
  let area = outer.area;
  let mx = outer.cx * outer.area;
  let my = outer.cy * outer.area;
  let inertia = outer.inertia;
  for (const hole of holes) {
    const h = massProperties(hole);
    area -= h.area;
    mx -= h.cx * h.area;
    my -= h.cy * h.area;
    inertia -= h.inertia;
  }
  const cx = mx / area;
  const cy = my / area;
  const density = body.mass === 'auto' ? 1 : body.mass / area;
  const mass = density * area;
  // Parallel-axis theorem: inertia about the centroid.
  const inertiaCentroid = density * inertia - mass * (cx * cx + cy * cy);
  return { mass, cx, cy, inertia: inertiaCentroid };
}

function spriteRect(size: Size): Vec[] {
  return boxPoints(size.width, size.height);
}

/** Plans every object of the level; throws a level error (phase `input`) for types the evaluator has no prefab for. */
export function planObjects(level: Level): ObjectPlan[] {
  return level.objects.map((object, id) => planObject(object, id));
}

/** What every object's plan starts with: its index and its pose as the evaluator's floats. */
type PlanBase = Pick<ObjectPlan, 'id' | 'x' | 'y' | 'angle'>;

function planObject(object: LevelObject, id: number): ObjectPlan {
  const x = f32(object.x);
  const y = f32(object.y);
  const angle = f32(f32(object.rotation) * f32(Math.PI / 180));
  const base: PlanBase = { id, x, y, angle };
  switch (object.kind) {
    case 'block':
      return planBlock(object, base);
    case 'pig':
      return planPig(object, base);
    case 'tnt':
      return planTnt(object, base);
    case 'platform':
      return planPlatform(object, base);
  }
}

function planBlock(object: Extract<LevelObject, { kind: 'block' }>, base: PlanBase): ObjectPlan {
  const id = base.id;
  const spec = blockSpec(object.type);
  if (!spec)
    throw new SbevalError('input', `object ${id}: unknown block type "${object.type}"`, 'the evaluator has no prefab of that name (ABWorldAssets.BLOCKS)');
  if (!isMaterial(object.material)) throw new SbevalError('input', `object ${id}: unknown material "${String(object.material)}"`, 'use wood, stone or ice');
  const { outline, holes } = colliderOutline(spec.collider);
  const material = MATERIALS[object.material];
  const drawPaths = spec.ocrSprite ? [spriteRect(spec.ocrSprite)] : spec.collider.shape === 'box' ? [spriteRect(spec.sprite)] : [outline, ...holes];
  return {
    ...base,
    kind: 'block',
    type: object.type,
    material: object.material,
    body: BLOCK_BODY,
    friction: material.friction,
    restitution: material.bounciness,
    pieces: convexPieces(outline, BOX2D_CONSTANTS.maxPolygonVertices),
    mass: massOf(outline, holes, BLOCK_BODY),
    outline: [outline, ...holes],
    counted: true,
    framesImage: true,
    draw: { paths: drawPaths },
  };
}

function planPig(object: Extract<LevelObject, { kind: 'pig' }>, base: PlanBase): ObjectPlan {
  const spec = pigSpec(object.type);
  if (!spec) throw new SbevalError('input', `object ${base.id}: unknown pig type "${object.type}"`, 'use BasicSmall, BasicMedium or BasicBig');
  const { outline, holes } = colliderOutline(spec.collider);
  return {
    ...base,
    kind: 'pig',
    type: object.type,
    material: undefined,
    body: spec.body,
    friction: DEFAULT_MATERIAL.friction,
    restitution: DEFAULT_MATERIAL.bounciness,
    pieces: convexPieces(outline, BOX2D_CONSTANTS.maxPolygonVertices),
    mass: massOf(outline, holes, spec.body),
    outline: [outline],
    counted: true,
    framesImage: false,
    draw: spec.body.layer === LAYERS.blocks ? { paths: [outline] } : undefined,
  };
}

function planTnt(object: Extract<LevelObject, { kind: 'tnt' }>, base: PlanBase): ObjectPlan {
  const { outline, holes } = colliderOutline(TNT.collider);
  return {
    ...base,
    kind: 'tnt',
    type: object.type,
    material: undefined,
    body: TNT.body,
    friction: DEFAULT_MATERIAL.friction,
    restitution: DEFAULT_MATERIAL.bounciness,
    pieces: [outline],
    mass: massOf(outline, holes, TNT.body),
    outline: [outline],
    counted: true,
    framesImage: false,
    draw: { paths: [spriteRect(TNT.sprite)] },
  };
}

function planPlatform(object: Extract<LevelObject, { kind: 'platform' }>, base: PlanBase): ObjectPlan {
  // Transform scale scales the BoxCollider2D; a negative scale mirrors, which a box ignores.
  const sx = Math.abs(f32(object.scaleX));
  const sy = Math.abs(f32(object.scaleY));
  const { outline, holes } = colliderOutline(PLATFORM.collider, sx, sy);
  return {
    ...base,
    kind: 'platform',
    type: object.type,
    material: undefined,
    body: PLATFORM.body,
    friction: DEFAULT_MATERIAL.friction,
    restitution: DEFAULT_MATERIAL.bounciness,
    pieces: [outline],
    mass: massOf(outline, holes, PLATFORM.body),
    outline: [outline],
    counted: false,
    framesImage: false,
    draw: undefined,
  };
}

/** The body table announced in `loaded`, in XML order. */
export function bodyInfos(plans: readonly ObjectPlan[]): BodyInfo[] {
  return plans.map((p) => ({ id: p.id, kind: p.kind, type: p.type, material: p.material, counted: p.counted, x: p.x, y: p.y, angle: p.angle }));
}

/** Creation order of trial 1: the order of `ABGameWorld.DecodeLevel` (pigs, blocks, platforms, TNT; XML order within each). */
export function decodeOrder(plans: readonly ObjectPlan[]): number[] {
  return plans
    .map((p, i) => ({ rank: CREATION_RANK[p.kind], i }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map((e) => e.i);
}

/** Ground tiles as `DecodeLevel` places `width` Landscape prefabs: box centres and half-sizes. */
interface GroundTile {
  x: number;
  y: number;
  halfWidth: number;
  halfHeight: number;
}

export function groundTiles(width: number): GroundTile[] {
  const levelWidth = f32(f32(width) * f32(LANDSCAPE.levelOriginalSize.width));
  let x = width > 1 ? f32(0 - f32(levelWidth / 4)) : 0;
  const step = f32(f32(LANDSCAPE.levelOriginalSize.width) - f32(0.01));
  const tiles: GroundTile[] = [];
  for (let i = 0; i < width; i++) {
    tiles.push({
      x,
      y: f32(f32(LANDSCAPE.groundLocalY) + f32(LANDSCAPE.colliderOffsetY)),
      halfWidth: LANDSCAPE.colliderSize.width / 2,
      halfHeight: LANDSCAPE.colliderSize.height / 2,
    });
    x = f32(x + step);
  }
  return tiles;
}

/** `IsObjectOutOfWorld` bound: half the level width (`width × 17.5 / 2`). */
export function worldHalfWidth(width: number): number {
  return f32(f32(width) * f32(LANDSCAPE.levelOriginalSize.width)) / 2;
}
