/**
 * A Science Birds level as data: what the evaluator's `LevelLoader.LoadXmlLevel` reads
 * (Assets/Scripts/Levels/LevelLoader.cs, ABLevel.cs; reference/science-birds-evaluator.md §1.1).
 * Coordinates are Unity world units, y up; `x`/`y` are object centres; `rotation` is degrees CCW.
 */
export type Material = 'wood' | 'stone' | 'ice';

export interface LevelBlock {
  kind: 'block';
  type: string;
  material: Material;
  x: number;
  y: number;
  rotation: number;
}

export interface LevelPig {
  kind: 'pig';
  type: string;
  x: number;
  y: number;
  rotation: number;
}

export interface LevelTnt {
  kind: 'tnt';
  /** Read but ignored by the game: the TNT prefab is always used. */
  type: string;
  x: number;
  y: number;
  rotation: number;
}

export interface LevelPlatform {
  kind: 'platform';
  type: string;
  x: number;
  y: number;
  rotation: number;
  scaleX: number;
  scaleY: number;
}

export type LevelObject = LevelBlock | LevelPig | LevelTnt | LevelPlatform;

export interface LevelCamera {
  x: number;
  y: number;
  minWidth: number;
  maxWidth: number;
}

export interface Level {
  /** Number of 17.5-unit screens; controls the ground tiles (default 1). */
  width: number;
  camera: LevelCamera | undefined;
  birds: string[];
  slingshot: { x: number; y: number } | undefined;
  /** Objects in XML order (the game creates pigs, then blocks, then platforms, then TNT). */
  objects: LevelObject[];
}
