import type { Material } from './level.js';

/**
 * Every Science Birds object the evaluator can load, with the sizes of its physics collider and of
 * the black "OCR" sprite the similarity image uses. Sizes are Unity world units (sprites are 100 px
 * per unit). Sources: the prefabs under Assets/Resources/Prefabs/GameWorld/ of
 * chatgpt4pcg/modified-science-birds @07419b8, as summarised in reference/science-birds-evaluator.md
 * §1.3; polygon outlines from the same prefabs' PolygonCollider2D points.
 */
export type Collider =
  | { shape: 'box'; width: number; height: number }
  /** Convex or concave outline, counter-clockwise, in the body's local frame. */
  | { shape: 'polygon'; points: ReadonlyArray<readonly [number, number]> };

export interface BlockSpec {
  type: string;
  collider: Collider;
  /** Black OCR sprite size (w × h); only the two competition blocks have one (OCRSettings.asset). */
  ocrSprite: { width: number; height: number } | undefined;
  /** Textured sprite size in units (`blocks.png.meta` rect / 100). */
  sprite: { width: number; height: number };
}

const box = (width: number, height: number): Collider => ({ shape: 'box', width, height });

/** Block prefabs (`Prefabs/GameWorld/Blocks/*.prefab`). */
export const BLOCKS: Readonly<Record<string, BlockSpec>> = {
  // SquareTiny: BoxCollider2D 0.22 × 0.21 (not square); OCR sprite 24×23 px (`blocks ocr.png`).
  SquareTiny: { type: 'SquareTiny', collider: box(0.22, 0.21), ocrSprite: { width: 0.24, height: 0.23 }, sprite: { width: 0.22, height: 0.21 } },
  // RectSmall: 0.70 × 0.22 in the modified build (original Science Birds: 0.85 × 0.22); OCR 72×24 px.
  RectSmall: { type: 'RectSmall', collider: box(0.7, 0.22), ocrSprite: { width: 0.72, height: 0.24 }, sprite: { width: 0.7, height: 0.22 } },
  RectTiny: { type: 'RectTiny', collider: box(0.43, 0.22), ocrSprite: undefined, sprite: { width: 0.43, height: 0.22 } },
  RectMedium: { type: 'RectMedium', collider: box(1.68, 0.22), ocrSprite: undefined, sprite: { width: 1.68, height: 0.22 } },
  RectBig: { type: 'RectBig', collider: box(2.06, 0.22), ocrSprite: undefined, sprite: { width: 2.06, height: 0.22 } },
  RectFat: { type: 'RectFat', collider: box(0.85, 0.43), ocrSprite: undefined, sprite: { width: 0.85, height: 0.43 } },
  SquareSmall: { type: 'SquareSmall', collider: box(0.43, 0.43), ocrSprite: undefined, sprite: { width: 0.43, height: 0.43 } },
  // SquareHole: a solid BoxCollider2D despite the hole in its sprite.
  SquareHole: { type: 'SquareHole', collider: box(0.84, 0.84), ocrSprite: undefined, sprite: { width: 0.84, height: 0.84 } },
};

/** Physics materials (`Resources/Materials/*.physicsMaterial2D`, applied by `ABBlock.SetMaterial`). */
export interface MaterialSpec {
  friction: number;
  bounciness: number;
}
export const MATERIALS: Readonly<Record<Material, MaterialSpec>> = {
  wood: { friction: 4, bounciness: 0 },
  stone: { friction: 4, bounciness: 0 },
  ice: { friction: 0.74, bounciness: 0 },
};

/** Colliders without a PhysicsMaterial2D (ground, pigs, TNT, platforms) get Unity's default material. */
export const DEFAULT_MATERIAL: MaterialSpec = { friction: 0.4, bounciness: 0 };

export const MATERIAL_NAMES: readonly Material[] = ['wood', 'stone', 'ice'];

export function isMaterial(value: string): value is Material {
  return (MATERIAL_NAMES as readonly string[]).includes(value);
}

export function blockSpec(type: string): BlockSpec | undefined {
  return Object.prototype.hasOwnProperty.call(BLOCKS, type) ? BLOCKS[type] : undefined;
}

/** Pig prefabs (`Prefabs/GameWorld/Characters/Pigs/`). */
export const PIG_TYPES = ['BasicSmall', 'BasicMedium', 'BasicBig'] as const;
/** Bird prefabs (`Prefabs/GameWorld/Characters/Birds/`). */
export const BIRD_TYPES = ['BirdRed', 'BirdBlue', 'BirdYellow', 'BirdBlack', 'BirdWhite'] as const;
