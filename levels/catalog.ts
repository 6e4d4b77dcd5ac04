import type { Material } from './level.js';

/**
 * Every Science Birds object the evaluator can load: the size or outline of its physics collider, its
 * rigid-body settings, its health, and the sizes of its textured sprite and of the black "OCR" sprite
 * the similarity image uses. Sizes are Unity world units (every sprite sheet is 100 px per unit, pivot
 * at the centre, so a sprite's size in units is its rect in px / 100).
 *
 * Source of every value: chatgpt4pcg/modified-science-birds @07419b8 (identical at 84df32e for these
 * files), read from
 * - `Assets/Resources/Prefabs/GameWorld/Blocks/*.prefab` (BoxCollider2D m_Size, PolygonCollider2D
 *   m_Points, Rigidbody2D, ABBlock `_life`, ABParticleSystem `_systemLifetime`),
 * - `.../Characters/Pigs/*.prefab`, `.../TNT.prefab`, `.../Platform.prefab`, `.../Landscape.prefab`,
 * - `Assets/Sprites/Foreground/blocks.png.meta` (wood sprite rects), `blocks ocr.png.meta` +
 *   `Assets/ICE/Settings/OCRSettings.asset` (OCR sprites), `Assets/Sprites/Characters/pigs.png.meta`,
 *   `Assets/Sprites/Effects/effects.png.meta` (TNT and platform sprites),
 * - `Assets/Resources/Materials/*.physicsMaterial2D`, `Assets/Scripts/Utils/ABWorldAssets.cs`.
 * Summarised in reference/science-birds-evaluator.md §1.3–§1.4. Polygon points are copied as the
 * prefab stores them (float32 values printed by Unity, hence digits like 0.074999996).
 */
export type Point = readonly [number, number];

export type Collider =
  | { shape: 'box'; width: number; height: number }
  /**
   * A PolygonCollider2D outline, counter-clockwise, in the body's local frame (origin = the object's
   * position). `holes` are further paths of the same collider that lie inside the outline (Unity
   * subtracts them); only TriangleHole has one.
   */
  | { shape: 'polygon'; points: ReadonlyArray<Point>; holes?: ReadonlyArray<ReadonlyArray<Point>> };

export interface Size {
  width: number;
  height: number;
}

/**
 * Rigidbody2D + ABGameObject settings of a prefab. `mass: 'auto'` is Unity's UseAutoMass (mass =
 * collider area × density 1); a number is a fixed mass (UseAutoMass 0), which Unity realises by scaling
 * the density, so the inertia is the shape's with that density.
 */
export interface BodySpec {
  bodyType: 'dynamic' | 'kinematic';
  mass: 'auto' | number;
  /** Multiplies the world gravity (−9.81 units/s²). */
  gravityScale: number;
  /** Rigidbody2D LinearDrag / AngularDrag = Box2D linear / angular damping (1/s). */
  linearDamping: number;
  angularDamping: number;
  /** Health (`ABGameObject._life`); undefined for objects without an ABGameObject (platforms). */
  life: number | undefined;
  /** Seconds between death (collider off) and removal: `ABParticleSystem._systemLifetime`. */
  deathLifetime: number | undefined;
  /** Unity layer: the similarity camera renders only layer 10 ("Blocks"). */
  layer: number;
}

export interface BlockSpec {
  type: string;
  collider: Collider;
  /** Black OCR sprite size (w × h); only the two competition blocks have one (OCRSettings.asset). */
  ocrSprite: Size | undefined;
  /** Textured sprite size in units (`blocks.png.meta` wood rect / 100). */
  sprite: Size;
}

const box = (width: number, height: number): Collider => ({ shape: 'box', width, height });

/** Unity's layer numbers (`ProjectSettings/TagManager.asset`). */
export const LAYERS = { default: 0, birds: 8, slingshot: 9, blocks: 10, points: 11, platforms: 12 } as const;

/**
 * The Rigidbody2D and ABBlock values every block prefab shares: dynamic, UseAutoMass 1 with collider
 * density 1, LinearDrag 1, AngularDrag 0.05, GravityScale 0.5, `_life` 5, `_systemLifetime` 0.5, layer 10.
 * `ABBlock.SetMaterial` multiplies `_life` by the material factor, but `ABGameObject.Awake` copied
 * `_currentLife = _life` before that, so the effective health is 5 for every material
 * (see MATERIAL_LIFE_FACTOR).
 */
export const BLOCK_BODY: BodySpec = {
  bodyType: 'dynamic',
  mass: 'auto',
  gravityScale: 0.5,
  linearDamping: 1,
  angularDamping: 0.05,
  life: 5,
  deathLifetime: 0.5,
  layer: LAYERS.blocks,
};

/** Block prefabs (`Prefabs/GameWorld/Blocks/*.prefab`), the 12 of `enum BLOCKS` in ABWorldAssets.cs. */
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
  // Circle: PolygonCollider2D, 12 points (x ±0.38, y ±0.375); sprite wood_circle_1 76×75 px.
  Circle: {
    type: 'Circle',
    collider: {
      shape: 'polygon',
      points: [
        [0.19, 0.375],
        [-0.17, 0.375],
        [-0.21, 0.345],
        [-0.35, 0.195],
        [-0.38, 0.145],
        [-0.38, -0.074999996],
        [-0.35, -0.235],
        [-0.17999999, -0.375],
        [0.16, -0.375],
        [0.38, -0.205],
        [0.38, 0.145],
        [0.32999998, 0.235],
      ],
    },
    ocrSprite: undefined,
    sprite: { width: 0.76, height: 0.75 },
  },
  // CircleSmall: PolygonCollider2D, 8 points (about 0.41 × 0.41); sprite wood_circle_small_1 42×42 px.
  CircleSmall: {
    type: 'CircleSmall',
    collider: {
      shape: 'polygon',
      points: [
        [-0.091299415, 0.20391178],
        [-0.20999992, 0.059123993],
        [-0.19782495, -0.07564354],
        [-0.11, -0.21],
        [0.063474536, -0.20695591],
        [0.20086855, -0.09000015],
        [0.2008686, 0.09912491],
        [0.059562206, 0.20391178],
      ],
    },
    ocrSprite: undefined,
    sprite: { width: 0.42, height: 0.42 },
  },
  // Triangle: PolygonCollider2D, 7 points: right angle bottom-left, bevelled corners; sprite wood_triang_1 82×82 px.
  Triangle: {
    type: 'Triangle',
    collider: {
      shape: 'polygon',
      points: [
        [-0.39, 0.41],
        [-0.41, 0.39],
        [-0.41, -0.39999998],
        [-0.39999998, -0.41],
        [0.41, -0.41],
        [0.42431745, -0.3915873],
        [-0.35999998, 0.41],
      ],
    },
    ocrSprite: undefined,
    sprite: { width: 0.82, height: 0.82 },
  },
  // TriangleHole: PolygonCollider2D with two paths: the bevelled isosceles outline and a small inner
  // hole (unreachable by other bodies, it only lowers the mass); sprite wood_triang_hole_1 84×84 px.
  TriangleHole: {
    type: 'TriangleHole',
    collider: {
      shape: 'polygon',
      points: [
        [-0.04, 0.42],
        [-0.42, -0.26],
        [-0.42, -0.42],
        [0.42, -0.42],
        [0.42, -0.26999998],
        [0.04, 0.42],
      ],
      holes: [
        [
          [0, 0.04],
          [0.02, -0.03],
          [0.11, -0.17],
          [-0.099999994, -0.17],
        ],
      ],
    },
    ocrSprite: undefined,
    sprite: { width: 0.84, height: 0.84 },
  },
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

/**
 * `ABBlock.SetMaterial` multiplies `_life` by these factors, but after `_currentLife` was already
 * initialised, so they change only the damage-sprite thresholds, not the health (the "material-HP
 * quirk"). Kept as data so the quirk is visible; the physics uses `BLOCK_BODY.life` for every material.
 */
export const MATERIAL_LIFE_FACTOR: Readonly<Record<Material, number>> = { wood: 1, stone: 2, ice: 0.5 };

/** Colliders without a PhysicsMaterial2D (ground, pigs, TNT, platforms) get Unity's default material. */
export const DEFAULT_MATERIAL: MaterialSpec = { friction: 0.4, bounciness: 0 };

const MATERIAL_NAMES: readonly Material[] = ['wood', 'stone', 'ice'];

export function isMaterial(value: string): value is Material {
  return (MATERIAL_NAMES as readonly string[]).includes(value);
}

export function blockSpec(type: string): BlockSpec | undefined {
  return Object.hasOwn(BLOCKS, type) ? BLOCKS[type] : undefined;
}

/** A pig prefab: collider outline, body, sprite (`pigs.png.meta` first frame / 100). */
export interface PigSpec {
  type: string;
  collider: Collider;
  body: BodySpec;
  sprite: Size;
}

/** Pig prefabs (`Prefabs/GameWorld/Characters/Pigs/`), the 3 of `enum PIGS`. */
export const PIGS: Readonly<Record<string, PigSpec>> = {
  // BasicSmall: layer 10 (drawn by the similarity camera), fixed mass 0.1, gravity 0.5, drag 0, life 2,
  // `_systemLifetime` 0.2; sprite pig_basic_small_1 47×45 px.
  BasicSmall: {
    type: 'BasicSmall',
    collider: {
      shape: 'polygon',
      points: [
        [-0.16499999, 0.225],
        [-0.235, 0.105],
        [-0.235, -0.175],
        [-0.16499999, -0.225],
        [0.21499999, -0.225],
        [0.235, -0.175],
        [0.235, 0.114999995],
        [0.114999995, 0.225],
      ],
    },
    body: { bodyType: 'dynamic', mass: 0.1, gravityScale: 0.5, linearDamping: 0, angularDamping: 0.05, life: 2, deathLifetime: 0.2, layer: LAYERS.blocks },
    sprite: { width: 0.47, height: 0.45 },
  },
  // BasicMedium: layer 0 (not drawn), fixed mass 1, gravity 1, drag 0, life 4; sprite 78×76 px.
  BasicMedium: {
    type: 'BasicMedium',
    collider: {
      shape: 'polygon',
      points: [
        [0.26999998, 0.19],
        [0.29999998, 0.26],
        [0.26, 0.37],
        [0.099999994, 0.35],
        [0.01, 0.38],
        [-0.13, 0.38],
        [-0.26, 0.22],
        [-0.39, 0.049999997],
        [-0.39, -0.21],
        [-0.32999998, -0.32999998],
        [-0.19999999, -0.38],
        [0.19999999, -0.38],
        [0.29999998, -0.35],
        [0.39, -0.22999999],
        [0.39, 0.07],
      ],
    },
    body: { bodyType: 'dynamic', mass: 1, gravityScale: 1, linearDamping: 0, angularDamping: 0.05, life: 4, deathLifetime: 0.2, layer: LAYERS.default },
    sprite: { width: 0.78, height: 0.76 },
  },
  // BasicBig: layer 0 (not drawn), fixed mass 1, gravity 1, drag 0, life 6; sprite 99×97 px.
  BasicBig: {
    type: 'BasicBig',
    collider: {
      shape: 'polygon',
      points: [
        [0.345, 0.24499999],
        [0.39499998, 0.305],
        [0.315, 0.45499998],
        [0.175, 0.435],
        [0.065, 0.375],
        [-0.024999999, 0.48499998],
        [-0.195, 0.48499998],
        [-0.49499997, 0.095],
        [-0.49499997, -0.295],
        [-0.345, -0.445],
        [-0.24499999, -0.48499998],
        [0.24499999, -0.48499998],
        [0.36499998, -0.435],
        [0.49499997, -0.265],
        [0.49499997, 0.065],
      ],
    },
    body: { bodyType: 'dynamic', mass: 1, gravityScale: 1, linearDamping: 0, angularDamping: 0.05, life: 6, deathLifetime: 0.2, layer: LAYERS.default },
    sprite: { width: 0.99, height: 0.97 },
  },
};

export function pigSpec(type: string): PigSpec | undefined {
  return Object.hasOwn(PIGS, type) ? PIGS[type] : undefined;
}

/**
 * TNT (`Prefabs/GameWorld/TNT.prefab`, `ABTNT.cs`): the `type` attribute is ignored, this prefab is
 * always used. Box 0.66 × 0.66, fixed mass 1, gravity 1, drag 0, life 2, `_systemLifetime` 0.1, layer
 * 10; sprite effects_34 66×66 px. `ABTNT.Die` explodes once: every enabled collider with a rigidbody
 * overlapping a circle of `area` around the TNT's position (except the TNT itself) takes
 * `damage / distance` health and an impulse of `power / (2·distance)` away from it (distance between
 * the two objects' positions).
 */
export const TNT = {
  collider: box(0.66, 0.66),
  body: {
    bodyType: 'dynamic',
    mass: 1,
    gravityScale: 1,
    linearDamping: 0,
    angularDamping: 0.05,
    life: 2,
    deathLifetime: 0.1,
    layer: LAYERS.blocks,
  } as BodySpec,
  sprite: { width: 0.66, height: 0.66 } as Size,
  explosion: { area: 2, power: 3, damage: 3 },
} as const;

/**
 * Platform (`Prefabs/GameWorld/Platform.prefab`): a kinematic body with a 0.64 × 0.64 box, scaled by
 * the XML's scaleX/scaleY; no ABGameObject (no health, not counted by the stability rule); layer 12
 * (not drawn by the similarity camera); sprite effects_21 64×64 px.
 */
export const PLATFORM = {
  collider: box(0.64, 0.64),
  body: {
    bodyType: 'kinematic',
    mass: 1,
    gravityScale: 1,
    linearDamping: 0,
    angularDamping: 0.05,
    life: undefined,
    deathLifetime: undefined,
    layer: LAYERS.platforms,
  } as BodySpec,
  sprite: { width: 0.64, height: 0.64 } as Size,
} as const;

/**
 * The ground: `Landscape.prefab` child "Ground" at local (0, −4.3) with a static BoxCollider2D of
 * 17.49 × 4.4068956 at offset (0, −1.4034476) (top surface at y = −3.4999998), no material (friction
 * 0.4). `ABGameWorld.DecodeLevel` places `width` tiles: the first at x = −width·17.5/4 when width > 1
 * (else 0), each next one 17.5 − 0.01 further right. `LEVEL_ORIGINAL_SIZE` (17.5, 11.58) is
 * `ABConstants.cs`; objects whose x-extent lies entirely outside ±width·17.5/2 die (`IsObjectOutOfWorld`).
 */
export const LANDSCAPE = {
  groundLocalY: -4.3,
  colliderOffsetY: -1.4034476,
  colliderSize: { width: 17.49, height: 4.4068956 } as Size,
  tileStep: 17.5 - 0.01,
  levelOriginalSize: { width: 17.5, height: 11.58 } as Size,
} as const;

/** Pig prefabs (`Prefabs/GameWorld/Characters/Pigs/`). */
export const PIG_TYPES = ['BasicSmall', 'BasicMedium', 'BasicBig'] as const;
/**
 * Bird prefabs (`Prefabs/GameWorld/Characters/Birds/`): `ABWorldAssets.BIRDS` is keyed by prefab name,
 * so every prefab in the folder is a valid `<Bird type>` — including the three not in `enum BIRDS`
 * (BirdOrange, BirdRedBig, and BirdsGreen, whose prefab name really has that "s").
 */
export const BIRD_TYPES = ['BirdRed', 'BirdBlue', 'BirdYellow', 'BirdBlack', 'BirdWhite', 'BirdOrange', 'BirdRedBig', 'BirdsGreen'] as const;
/** Block prefab names (`enum BLOCKS` and the Blocks folder agree). */
export const BLOCK_TYPES = Object.keys(BLOCKS) as readonly string[];
