import { Settings } from 'planck';
import { SbevalError } from '../../core/errors.js';

/**
 * The physics world of the Science Birds evaluator, in one frozen object. Every value names its unit
 * and its source in chatgpt4pcg/modified-science-birds @07419b8 (reference/science-birds-evaluator.md
 * §2; identical to lucasnfe/science-birds). Per-prefab values (gravity scale, damping, health, masses)
 * are in levels/catalog.ts.
 */
export const WORLD_SETTINGS = Object.freeze({
  /** units/s² — `ProjectSettings/Physics2DSettings.asset` m_Gravity (0, −9.81); bodies scale it by their GravityScale. */
  gravity: Object.freeze({ x: 0, y: -9.81 }),
  /** s — `ProjectSettings/TimeManager.asset` Fixed Timestep 0.02 (50 Hz). Maximum Allowed Timestep is also 0.02, so one physics step per frame. */
  dt: 0.02,
  /** Physics2DSettings m_VelocityIterations 100 (Box2D default 8). */
  velocityIterations: 100,
  /** Physics2DSettings m_PositionIterations 100 (Box2D default 3). */
  positionIterations: 100,
  /** Rigidbody2D SleepingMode 1 (StartAwake): sleeping allowed; tolerances in `BOX2D_CONSTANTS`. */
  allowSleep: true,
  /** Box2D default (Unity does not expose it). */
  warmStarting: true,
  /** Rigidbody2D CollisionDetection 0 (Discrete) on every prefab: no time-of-impact sub-stepping. */
  continuousPhysics: false,
  /** Box2D default. */
  subStepping: false,
  /** Box2D 2.3 default (g_blockSolve). */
  blockSolve: true,
  /** Collider density (every prefab's m_Density is 1; materials do not change it). */
  density: 1,
  /** Unity 2019 2D physics uses Box2D's mixing: friction = sqrt(f1·f2), restitution = max(r1, r2). */
  frictionMix: 'sqrt(a·b)' as const,
  restitutionMix: 'max' as const,
});

/**
 * Box2D's global tuning constants as Unity's Physics2DSettings sets them. planck keeps them as
 * process-global statics (`planck.Settings`), so they are applied once, here, when this module is
 * first imported, and never per world. All equal planck's own defaults except the polygon vertex
 * limit (Unity's Box2D: b2_maxPolygonVertices 8; planck: 12) — the decomposition in geometry.ts
 * already keeps every convex piece ≤ 8 vertices, so that setting only documents the limit.
 */
export const BOX2D_CONSTANTS = Object.freeze({
  /** units — b2_linearSlop 0.005; polygon skin = 2 × slop = 0.01 (Physics2DSettings m_MinPenetrationForPenalty 0.01). */
  linearSlop: 0.005,
  /** rad — b2_angularSlop 2°. */
  angularSlop: (2 / 180) * Math.PI,
  /** units/s — Physics2DSettings m_VelocityThreshold 1 (restitution threshold). */
  velocityThreshold: 1,
  /** units — m_MaxLinearCorrection 0.2. */
  maxLinearCorrection: 0.2,
  /** rad — m_MaxAngularCorrection 8°. */
  maxAngularCorrection: (8 / 180) * Math.PI,
  /** units per step — m_MaxTranslationSpeed 100 units/s × 0.02 s = 2 (= b2_maxTranslation). */
  maxTranslation: 2,
  /** rad per step — b2_maxRotation 0.5π (Unity's m_MaxRotationSpeed 360 has unclear units; resting stacks never reach either). */
  maxRotation: 0.5 * Math.PI,
  /** m_BaumgarteScale 0.2, m_BaumgarteTimeOfImpactScale 0.75. */
  baumgarte: 0.2,
  toiBaugarte: 0.75,
  /** s — m_TimeToSleep 0.5. */
  timeToSleep: 0.5,
  /** units/s — m_LinearSleepTolerance 0.01. */
  linearSleepTolerance: 0.01,
  /** rad/s — m_AngularSleepTolerance 2°. */
  angularSleepTolerance: (2 / 180) * Math.PI,
  /** b2_maxPolygonVertices in Unity's Box2D. */
  maxPolygonVertices: 8,
});

function applyBox2dConstants(): void {
  Settings.lengthUnitsPerMeter = 1;
  Settings.linearSlop = BOX2D_CONSTANTS.linearSlop;
  Settings.angularSlop = BOX2D_CONSTANTS.angularSlop;
  Settings.velocityThreshold = BOX2D_CONSTANTS.velocityThreshold;
  Settings.maxLinearCorrection = BOX2D_CONSTANTS.maxLinearCorrection;
  Settings.maxAngularCorrection = BOX2D_CONSTANTS.maxAngularCorrection;
  Settings.maxTranslation = BOX2D_CONSTANTS.maxTranslation;
  Settings.maxRotation = BOX2D_CONSTANTS.maxRotation;
  Settings.baumgarte = BOX2D_CONSTANTS.baumgarte;
  Settings.toiBaugarte = BOX2D_CONSTANTS.toiBaugarte;
  Settings.timeToSleep = BOX2D_CONSTANTS.timeToSleep;
  Settings.linearSleepTolerance = BOX2D_CONSTANTS.linearSleepTolerance;
  Settings.angularSleepTolerance = BOX2D_CONSTANTS.angularSleepTolerance;
  Settings.maxPolygonVertices = BOX2D_CONSTANTS.maxPolygonVertices;
}

// The one place planck's globals are written (module evaluation happens once per process/worker).
applyBox2dConstants();

/** The name of one of Box2D's tuning constants (`BOX2D_CONSTANTS`). */
export type Box2dName = keyof typeof BOX2D_CONSTANTS;
/** Box2D constants changed from the evaluator's, by name (`HeadlessEngineOptions.box2d`). */
export type Box2dOverrides = Partial<Record<Box2dName, number>>;
export const BOX2D_NAMES = Object.keys(BOX2D_CONSTANTS) as Box2dName[];

/** Overrides checked before any run: every name one of `BOX2D_NAMES`, every value a finite number. */
export function checkBox2dOverrides(overrides: Readonly<Record<string, unknown>>): Box2dOverrides {
  for (const [name, value] of Object.entries(overrides)) {
    if (!(BOX2D_NAMES as string[]).includes(name)) {
      throw new SbevalError('config', `unknown Box2D constant "${name}"`, `choose one of: ${BOX2D_NAMES.join(', ')}`);
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new SbevalError('config', `Box2D constant ${name} needs a finite number`);
  }
  return overrides as Box2dOverrides;
}

/**
 * Runs the synchronous `run` with planck's global `Settings` changed by `overrides` and puts the values
 * that were there back before it returns or throws: a world stepped inside sees the overrides, and no
 * other world of the process ever does (a trial runs without yielding: engine.ts).
 */
export function withBox2dConstants<T>(overrides: Box2dOverrides, run: () => T): T {
  const changes = Object.entries(overrides) as Array<[Box2dName, number]>;
  if (changes.length === 0) return run();
  const settings = Settings as unknown as Record<Box2dName, number>;
  const saved = changes.map(([name]) => [name, settings[name]] as const);
  for (const [name, value] of changes) settings[name] = value;
  try {
    return run();
  } finally {
    for (const [name, value] of saved) settings[name] = value;
  }
}

/** Steps of `dt` in `seconds` (0.5 s → 25), as Unity's Invoke fires on the first frame at or after the delay. */
export function secondsToSteps(seconds: number): number {
  return Math.max(1, Math.ceil(seconds / WORLD_SETTINGS.dt - 1e-9));
}

/** A short stable digest of everything above, for cache keys and the engine identity. */
export function physicsDigestSource(): string {
  return JSON.stringify({ world: WORLD_SETTINGS, box2d: BOX2D_CONSTANTS });
}
