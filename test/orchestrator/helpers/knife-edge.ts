import { DEFAULT_SIMULATION } from '../../../bridge/engine.js';
import { levelSeed, simulateTrial } from '../../../bridge/headless/run.js';
import type { LevelObject } from '../../../levels/level.js';
import { parseLevelXml } from '../../../levels/xml-read.js';
import { levelToXml } from '../../../levels/xml-write.js';
import { StabilityTracker } from '../../../scoring/stability.js';

/**
 * A knife-edge level for the robustness tests: a bar resting on a small square with its centre over the
 * square's edge, placed (by bisection on the unperturbed engine) exactly where its verdict flips; and the
 * same bar centred on the square (solid).
 */
const GROUND = -3.5;

export function barLevel(barX: number): string {
  const objects: LevelObject[] = [
    { kind: 'block', type: 'SquareSmall', material: 'wood', x: 3, y: GROUND + 0.215 + 0.005, rotation: 0 },
    { kind: 'block', type: 'RectSmall', material: 'wood', x: barX, y: GROUND + 0.43 + 0.11 + 0.02, rotation: 0 },
  ];
  return levelToXml({ width: 3, camera: undefined, birds: ['BirdRed'], slingshot: { x: -9, y: -2.5 }, objects });
}

/** Moving objects of one unperturbed trial. */
export function movingObjects(xml: string): number {
  let tracker: StabilityTracker | undefined;
  simulateTrial(
    parseLevelXml(xml),
    levelSeed(xml),
    { ...DEFAULT_SIMULATION, capture: false },
    {
      loaded: (bodies) => (tracker = new StabilityTracker(bodies)),
      frames: (batch) => tracker!.frames(batch),
      events: (events) => tracker!.events(events),
    },
  );
  return tracker!.result().movingObjects;
}

/** The bar position where the unperturbed verdict flips (stable to its left), to ~1e-9 units. */
export function knifeEdge(): number {
  let stable = 3; // centred on the square
  let falls = 3 + 0.215 + 0.1; // its centre 0.1 past the square's right edge
  if (movingObjects(barLevel(stable)) !== 0) throw new Error('the centred bar should stand');
  if (movingObjects(barLevel(falls)) === 0) throw new Error('the overhanging bar should fall');
  while (falls - stable > 1e-9) {
    const mid = (stable + falls) / 2;
    if (movingObjects(barLevel(mid)) === 0) stable = mid;
    else falls = mid;
  }
  return stable;
}

/** The knife-edge level (`knife`) and the solid one (`solid`) as level XML. */
export function knifeEdgeLevels(): { knife: string; solid: string } {
  return { knife: barLevel(knifeEdge()), solid: barLevel(3) };
}
