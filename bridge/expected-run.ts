import { Recent } from '../core/recent.js';
import type { Level } from '../levels/level.js';
import { parseLevelXml } from '../levels/xml-read.js';
import type { LevelJob } from './engine.js';
import type { BodyInfo } from './frames.js';
import { groundTiles, type ObjectPlan, planObjects, worldHalfWidth } from './headless/objects.js';
import { IMAGE_SIZE } from './headless/render.js';
import { checkPngDecodes } from './png-check.js';
import { stepsToSimulate } from './window.js';

/**
 * What an honest engine's result for a job must look like, derived from the job alone (the level XML
 * and the settings), so the orchestrator can tell a result from garbage whatever engine sent it
 * (results for another level, one body instead of four, 50 of 515 steps, junk after a PNG signature
 * are all refused):
 * - the body table: one body per XML object, in XML order, with its kind, type, material, whether it
 *   counts, and its position and angle as the evaluator's loader reads them (float32);
 * - the frame stream: steps 0 … `stepsToSimulate(settings)` (bridge/window.ts), step 0 being the
 *   bodies at rest where the table says;
 * - the capture: a PNG that decodes, `IMAGE_SIZE` × `IMAGE_SIZE` (the evaluator's 1024²);
 * - motion, only where physics forces it: a body that starts in the air with nothing beneath it
 *   (`fallingBody`) must move at step 1, so a stream in which no body ever moves is not a simulation.
 *   A level at rest may honestly stream identical frames at every step (reference level V2_I_1, one
 *   SquareTiny on the ground, does on both engines), so frozen frames alone prove nothing.
 */
export interface ExpectedRun {
  /** Undefined when this side cannot read the XML (then only the engine can say what it holds). */
  bodies: BodyInfo[] | undefined;
  /**
   * A body that gravity must move at step 1 (it starts clear of the ground and of every other
   * collider below or beside it), or undefined when no body is sure to move (then identical frames at
   * every step can be honest). Undefined too when this side cannot read the XML.
   */
  fallingBody: number | undefined;
  /** The level as sbeval reads the XML (undefined when it cannot): what the capture check draws. */
  level: Level | undefined;
  /** The last step of the frame stream. */
  lastStep: number;
  imageSize: number;
}

/** Positions and angles are float32 on both engines; anything further off is another level. */
const POSITION_TOLERANCE = 1e-3;

const f32 = Math.fround;

/** What the XML alone says, kept per XML text: up to 3 trials of a level each ask for it (see below). */
interface LevelFacts {
  bodies: BodyInfo[] | undefined;
  level: Level | undefined;
  /** Computed on first use (planning every object costs more than parsing). */
  falling?: { id: number | undefined };
}

/**
 * The last levels' facts, by XML text. Every attempt of every trial builds an ExpectedRun, and a
 * level runs up to 3 trials with identical XML, so parsing once per level instead of once per trial
 * saves the main thread parsing the XML and planning every object per trial.
 * Enough entries for every level in flight (a few per engine).
 */
const factsByXml = new Recent<string, LevelFacts>(64);

function readFacts(xml: string): LevelFacts {
  try {
    const level = parseLevelXml(xml);
    const bodies = level.objects.map((o, id) => ({
      id,
      kind: o.kind,
      type: o.type,
      material: o.kind === 'block' ? o.material : undefined,
      counted: o.kind !== 'platform',
      x: f32(o.x),
      y: f32(o.y),
      angle: f32(f32(o.rotation) * f32(Math.PI / 180)),
    }));
    return { bodies, level };
  } catch {
    return { bodies: undefined, level: undefined };
  }
}

/**
 * The expectations for one job. `fallingBody` is worked out only when asked (the stream guard asks
 * only when no body moved at all, which is rare). The body table is shared between the jobs of one
 * level: read it, never change it.
 */
export function expectedRun(job: LevelJob): ExpectedRun {
  const known = factsByXml.get(job.xml, readFacts);
  return {
    bodies: known.bodies,
    get fallingBody(): number | undefined {
      if (!known.level) return undefined;
      known.falling ??= { id: fallingBody(known.level) };
      return known.falling.id;
    },
    level: known.level,
    lastStep: stepsToSimulate(job.settings),
    imageSize: IMAGE_SIZE,
  };
}

/**
 * Clearance that rules out any contact at the start: Box2D creates a contact only when two fixtures'
 * fattened AABBs overlap, and it fattens them by b2_aabbExtension = 0.1 units (Box2D 2.3 b2Settings.h,
 * the version in Unity 2019.4 and planck.js); a polygon's skin is only 0.01. A body farther than
 * this from every other collider touches nothing at step 1.
 */
const CLEARANCE = 0.1;

interface Box {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

/** The world-space bounding box of an object's collider outline (rotated, then moved to its position). */
function boundsOf(plan: ObjectPlan): Box {
  const cos = Math.cos(plan.angle);
  const sin = Math.sin(plan.angle);
  const box: Box = { minX: Infinity, maxX: -Infinity, minY: Infinity, maxY: -Infinity };
  for (const [px, py] of plan.outline[0] ?? []) {
    const x = plan.x + px * cos - py * sin;
    const y = plan.y + px * sin + py * cos;
    box.minX = Math.min(box.minX, x);
    box.maxX = Math.max(box.maxX, x);
    box.minY = Math.min(box.minY, y);
    box.maxY = Math.max(box.maxY, y);
  }
  return box;
}

/**
 * The first object gravity must move at step 1, or undefined when none surely does. Deliberately
 * conservative (a level it calls "at rest" may still move; a body it names always falls):
 * - a dynamic body with gravity (blocks, pigs, TNT — platforms are kinematic and never fall);
 * - inside the world (`IsObjectOutOfWorld` could remove it before it moves);
 * - its lowest point more than CLEARANCE above the ground's top;
 * - no other collider beneath or beside it: every other object whose x-range comes within CLEARANCE
 *   of its own lies wholly above it (more than CLEARANCE higher than its top), so nothing can hold,
 *   wedge or push it.
 * Such a body is in free fall from the first step: its velocity is −g × gravityScale × dt ≠ 0 at step 1
 * whatever the engine. Levels that cannot be planned (unknown types) name no body.
 */
export function fallingBody(level: Level): number | undefined {
  let plans: ObjectPlan[];
  try {
    plans = planObjects(level);
  } catch {
    return undefined;
  }
  const boxes = plans.map(boundsOf);
  const tiles = groundTiles(level.width);
  const groundTop = Math.max(...tiles.map((t) => t.y + t.halfHeight));
  const half = worldHalfWidth(level.width);
  for (const plan of plans) {
    if (plan.body.bodyType !== 'dynamic' || !(plan.body.gravityScale > 0)) continue;
    const box = boxes[plan.id] as Box;
    if (!(box.minX > -half && box.maxX < half)) continue;
    if (!(box.minY > groundTop + CLEARANCE)) continue;
    const held = boxes.some(
      (other, i) => i !== plan.id && other.maxX > box.minX - CLEARANCE && other.minX < box.maxX + CLEARANCE && other.minY <= box.maxY + CLEARANCE,
    );
    if (!held) return plan.id;
  }
  return undefined;
}

function angleGap(a: number, b: number): number {
  const turn = 2 * Math.PI;
  const d = (((a - b) % turn) + turn) % turn;
  return Math.min(d, turn - d);
}

/** The first way `actual` differs from the expected body table, or undefined when it matches. */
export function bodyMismatch(expected: readonly BodyInfo[], actual: readonly BodyInfo[]): string | undefined {
  if (actual.length !== expected.length) return `${actual.length} bodies, the level has ${expected.length}`;
  for (let i = 0; i < expected.length; i += 1) {
    const e = expected[i] as BodyInfo;
    const a = actual[i] as BodyInfo;
    const what = `body ${i}`;
    if (a.id !== e.id) return `${what} has id ${String(a.id)}, expected ${e.id}`;
    if (a.kind !== e.kind || a.type !== e.type) return `${what} is ${String(a.kind)} "${String(a.type)}", the level has ${e.kind} "${e.type}"`;
    if ((a.material ?? undefined) !== e.material) return `${what} is made of ${String(a.material)}, the level says ${String(e.material)}`;
    if (a.counted !== e.counted) return `${what} ${a.counted ? 'counts' : 'does not count'} for stability, the level says the opposite`;
    if (!(Math.abs(a.x - e.x) <= POSITION_TOLERANCE && Math.abs(a.y - e.y) <= POSITION_TOLERANCE)) {
      return `${what} starts at (${a.x}, ${a.y}), the level puts it at (${e.x}, ${e.y})`;
    }
    if (!(angleGap(a.angle, e.angle) <= POSITION_TOLERANCE)) return `${what} starts at angle ${a.angle}, the level says ${e.angle}`;
  }
  return undefined;
}

/** The first way a step-0 row differs from the body table (bodies start where the table says, at rest). */
export function startMismatch(bodies: readonly BodyInfo[], row: Float32Array): string | undefined {
  for (let i = 0; i < bodies.length; i += 1) {
    const b = bodies[i] as BodyInfo;
    const [x, y, angle, vx, vy, omega] = row.subarray(i * 6, i * 6 + 6) as unknown as number[];
    if (
      !(
        Math.abs((x as number) - b.x) <= POSITION_TOLERANCE &&
        Math.abs((y as number) - b.y) <= POSITION_TOLERANCE &&
        angleGap(angle as number, b.angle) <= POSITION_TOLERANCE
      )
    ) {
      return `body ${i} is at (${x}, ${y}) at step 0, not where it was loaded (${b.x}, ${b.y})`;
    }
    if (vx !== 0 || vy !== 0 || omega !== 0) return `body ${i} moves at step 0 (bodies are created at rest)`;
  }
  return undefined;
}

/** Width and height from a PNG's IHDR (the first chunk), or undefined when the bytes do not start as a PNG does. */
function pngHeaderSize(png: Uint8Array): { width: number; height: number } | undefined {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (png.byteLength < 33 || !signature.every((b, i) => png[i] === b)) return undefined;
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  if (String.fromCharCode(png[12]!, png[13]!, png[14]!, png[15]!) !== 'IHDR') return undefined;
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/**
 * Undefined when `png` is a PNG of `size` × `size` that decodes completely (every chunk, the image
 * data: png-check.ts, without producing the pixels), else what is wrong. The header is checked first,
 * so a huge claimed size is never decoded.
 */
export async function pngProblem(png: Uint8Array, size: number): Promise<string | undefined> {
  const header = pngHeaderSize(png);
  if (!header) return 'is not a PNG image';
  if (header.width !== size || header.height !== size) return `is ${header.width}×${header.height}, not ${size}×${size}`;
  try {
    const info = checkPngDecodes(png);
    if (info.width !== size || info.height !== size) return `decodes to ${info.width}×${info.height}, not ${size}×${size}`;
  } catch (error) {
    return `does not decode as a PNG (${(error as Error).message.split('\n')[0]})`;
  }
  return undefined;
}
