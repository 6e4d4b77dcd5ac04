/**
 * `npm run ruler:make`: writes the timing-ruler levels (calibration/ruler) and checks their design.
 * Deterministic: the same sources write the same files. Design (docs/unity.md, "The timing ruler"):
 *
 * - start levels (`calibration/ruler/levels/start/`): 20 blocks, each released at rest in the air above the ground, block
 *   i at the height where it has fallen just short of 0.1 above its final resting place between step
 *   i and i + 1: block i counts as moving iff the start positions are read on a step ≤ i, so
 *   movingObjects = 20 − start for start in 0 … 20. Its end position is its rest on the ground,
 *   reached long before any end read of the range.
 * - end levels (`calibration/ruler/levels/end/`): stations of a TNT on a platform, a block resting beside it (the probe)
 *   and a block falling onto the TNT from about 44 units up (the hammer, collision-free for ~10 s). The
 *   hammer's impact kills the TNT, whose explosion kicks the probe away: the probe's first read 0.1
 *   from its start is step b, a chosen step of the end range. So the probe counts as moving iff the
 *   last positions are read on a step ≥ b; the hammer always counts as moving, the TNT never (it is
 *   removed 0.1 s after its death, before it falls 0.1).
 *
 * The script searches each block's height on single-object levels, then checks on the assembled
 * levels, for the evaluator's three trial orders, that every (start, end) of the range gives exactly
 * the designed counts, and that no object destroyed within the range can change its verdict however
 * the reads between start and end are spaced (up to 10 steps per frame) — so the counts depend on
 * the two read steps only.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Level, LevelObject } from '../levels/level.js';
import { levelToXml } from '../levels/xml-write.js';
import { recordTrial } from '../orchestrator/stages/ruler.js';
import { type RulerTrack, readVerdict, rulerTrack, windowCounts } from '../scoring/ruler.js';

const OUT = fileURLToPath(new URL('../calibration/ruler/', import.meta.url));

/**
 * The windows the ruler tells apart: start steps 0 … 19 exactly and 20 meaning "20 or later"; end
 * steps 501 … 551 exactly, 500 meaning "500 or earlier" and 552 "552 or later". That covers a start
 * after 1 or 2 frames of up to 10 steps and the end of every span 1 … 10 steps per frame give
 * (orchestrator/stages/ruler.ts `stepsPerFrameForSpan`).
 */
const RANGE = { start: [0, 20] as [number, number], end: [500, 552] as [number, number] };
/** Frames recorded per ruler trial: past the range's end (window end = 1 + 560 + 2 = 563). */
const WINDOW_STEPS = 560;
/** Core gap of objects placed at rest: contact skins 0.01 each, less Box2D's linear slop 0.005. */
const REST_GAP = 0.015;
const GROUND_TOP = -3.5;
/** Steps per frame the reads between start and end may be spaced by, for the robustness check. */
const MAX_STEPS_PER_FRAME = 10;

const round = (v: number) => Math.round(v * 1e6) / 1e6;

function level(objects: LevelObject[]): Level {
  return { width: 3, camera: { x: 2, y: 0, minWidth: 17, maxWidth: 22 }, birds: ['BirdRed'], slingshot: { x: -9, y: -2.5 }, objects };
}

function block(type: 'SquareTiny', x: number, y: number): LevelObject {
  return { kind: 'block', type, material: 'wood', x: round(x), y: round(y), rotation: 0 };
}

function track(objects: LevelObject[], name: string, trial = 1, windowSteps = WINDOW_STEPS): RulerTrack {
  const xml = levelToXml(level(objects));
  const { bodies, frames, events } = recordTrial(xml, windowSteps, trial);
  return rulerTrack(name, bodies, frames, events);
}

// --- start levels --------------------------------------------------------------------------------

const START_PROBES = 20;
/**
 * The start probes are BasicBig pigs: gravity 1 and no drag (catalog.ts) fall twice as far per step
 * as blocks, and health 6 survives landing from the highest probe (about 1 unit, < 4.5 units/s).
 * Blocks cannot tell start 0 from 1: a block that stops within the contact skin has fallen exactly
 * d(j) for its landing step j, one that sinks in is pushed back to the 0.015 gap, so its total fall
 * never lies in d(j) … d(j) + 0.005 — which for blocks covers the whole interval between starts 0 and 1.
 */
const START_PROBE = { type: 'BasicBig', half: 0.485, gravity: 9.81, spacing: 1.5, x0: -20 } as const;

function pig(x: number, y: number): LevelObject {
  return { kind: 'pig', type: START_PROBE.type, x: round(x), y: round(y), rotation: 0 };
}

/** Free fall after `s` steps from rest (no drag: v += g·dt, then y += v·dt). */
function fall(s: number): number {
  let v = 0;
  let y = 0;
  for (let k = 0; k < s; k++) {
    v += START_PROBE.gravity * 0.02;
    y += v * 0.02;
  }
  return y;
}

/** The height of start probe `i` (threshold between start reads i and i + 1) with the widest margin, and its margin. */
function startProbe(x: number, i: number): { y: number; margin: number } {
  const rest = GROUND_TOP + START_PROBE.half + REST_GAP;
  // Where it comes to rest depends on the phase of its landing step (≤ 0.005): scan past both ends.
  const lo = rest + 0.1 + fall(i) - 0.003;
  const hi = rest + 0.1 + fall(i + 1) + 0.003;
  let best = { y: lo, margin: -Infinity };
  for (let n = 0; n <= 120; n++) {
    const y = lo + ((hi - lo) * n) / 120;
    const t = track([pig(x, y)], 'probe');
    const over = (s: number) => displacement(t, 0, s, RANGE.end[0]) - 0.1;
    const margin = Math.min(over(i), -over(i + 1));
    if (margin > best.margin) best = { y: round(y), margin };
  }
  return best;
}

function displacement(t: RulerTrack, i: number, start: number, last: number): number {
  const n = t.ids.length;
  const a = (start * n + i) * 2;
  const b = (last * n + i) * 2;
  return Math.hypot((t.positions[b] as number) - (t.positions[a] as number), (t.positions[b + 1] as number) - (t.positions[a + 1] as number));
}

function startLevel(): { objects: LevelObject[]; margins: number[] } {
  const objects: LevelObject[] = [];
  const margins: number[] = [];
  for (let i = 0; i < START_PROBES; i++) {
    const x = START_PROBE.x0 + START_PROBE.spacing * i;
    const { y, margin } = startProbe(x, i);
    objects.push(pig(x, y));
    margins.push(margin);
  }
  return { objects, margins };
}

// --- end levels ----------------------------------------------------------------------------------

const PLATFORM_Y = -1;
const PLATFORM_TOP = PLATFORM_Y + 0.32;
const TNT_HALF = 0.33;
/** Probe centre right of the TNT's: explosion damage 3 / 0.64 = 4.7 < 5 (it survives), impulse 3 / 1.28 = 2.3 on 0.0462 kg. */
const PROBE_DX = 0.6;
const STATIONS_PER_LEVEL = 5;
const STATION_X = [-22, -11, 0, 11, 22];

function station(x: number, hammerY: number): LevelObject[] {
  return [
    { kind: 'platform', type: 'Platform', x, y: PLATFORM_Y, rotation: 0, scaleX: 4, scaleY: 1 },
    { kind: 'tnt', type: 'TNT', x, y: round(PLATFORM_TOP + TNT_HALF + REST_GAP), rotation: 0 },
    block('SquareTiny', x + PROBE_DX, PLATFORM_TOP + 0.105 + REST_GAP),
    block('SquareTiny', x, hammerY),
  ];
}

/** The probe's first step ≥ 0.1 from its step-0 position (its start positions do not move), or Infinity; and its distance then and one step before. */
function probeMotion(x: number, hammerY: number): { step: number; before: number; at: number } {
  const t = track(station(x, hammerY), 'station');
  const probe = 1; // counted objects: TNT, probe, hammer
  for (let step = 1; step < t.steps; step++) {
    const at = displacement(t, probe, 0, step);
    if (at >= 0.1) return { step, before: displacement(t, probe, 0, step - 1), at };
  }
  return { step: Number.POSITIVE_INFINITY, before: Number.NaN, at: Number.NaN };
}

function probeStep(x: number, hammerY: number): number {
  return probeMotion(x, hammerY).step;
}

/** The lowest hammer height (to 1e-5) whose probe moves on step ≥ `step`. */
function lowestHeightFor(x: number, step: number, lo: number, hi: number): number {
  while (hi - lo > 1e-5) {
    const mid = (lo + hi) / 2;
    if (probeStep(x, mid) >= step) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Hammer height for station boundary `b`: the middle of the heights whose probe first moves on step b. */
function hammerHeight(x: number, b: number): number {
  const bottom = PLATFORM_TOP + 2 * TNT_HALF + REST_GAP;
  // About 4.905·(t − 1 + e^−t) units in t seconds: bracket generously around it.
  const t = (b - 1) * 0.02;
  const guess = bottom + 4.905 * (t - 1 + Math.exp(-t));
  const from = lowestHeightFor(x, b, guess - 2, guess + 2);
  const to = lowestHeightFor(x, b + 1, from, guess + 3);
  return round((from + to) / 2);
}

function endLevels(): Array<{ objects: LevelObject[]; boundaries: number[]; moved: Array<{ before: number; at: number }> }> {
  // One station per end step 501 … 552: the first step its probe is read moving.
  const first = RANGE.end[0] + 1;
  const count = Math.ceil((RANGE.end[1] - first + 1) / STATIONS_PER_LEVEL);
  const out: Array<{ objects: LevelObject[]; boundaries: number[]; moved: Array<{ before: number; at: number }> }> = [];
  for (let l = 0; l < count; l++) {
    const boundaries: number[] = [];
    const moved: Array<{ before: number; at: number }> = [];
    const objects: LevelObject[] = [];
    for (let j = 0; j < STATIONS_PER_LEVEL; j++) {
      const b = first + l + count * j;
      if (b > RANGE.end[1]) continue;
      const x = STATION_X[j] as number;
      const height = hammerHeight(x, b);
      const { before, at } = probeMotion(x, height);
      objects.push(...station(x, height));
      boundaries.push(b);
      moved.push({ before, at });
    }
    out.push({ objects, boundaries, moved });
  }
  return out;
}

// --- checks --------------------------------------------------------------------------------------

/** Every (start, end) of the range must give `expected(start, end)` moving objects, on all three trial orders. */
function checkCounts(name: string, objects: LevelObject[], expected: (start: number, end: number) => number): void {
  for (const trial of [1, 2, 3]) {
    const t = track(objects, name, trial);
    for (let start = RANGE.start[0]; start <= RANGE.start[1]; start++) {
      for (let end = RANGE.end[0]; end <= RANGE.end[1]; end++) {
        const got = windowCounts(t, start, end);
        const want = expected(start, end);
        if (got.movingObjects !== want || got.startingObjects !== t.ids.length) {
          throw new Error(
            `${name} (trial ${trial}): window (${start}, ${end}) gives ${got.movingObjects}/${got.startingObjects} moving, designed ${want}/${t.ids.length}`,
          );
        }
      }
    }
    checkDestroyed(name, t);
  }
}

/**
 * An object removed before the range's last end step keeps its last read, which depends on how the
 * reads are spaced: its verdict must be the same for a last read on any step from 10 before its
 * removal on (and whatever the start step of the range).
 */
function checkDestroyed(name: string, t: RulerTrack): void {
  t.removedAt.forEach((removed, i) => {
    if (!(removed <= RANGE.end[1])) return;
    for (let start = RANGE.start[0]; start <= RANGE.start[1]; start++) {
      const verdicts = new Set<boolean | undefined>();
      for (let last = Math.max(start + 1, removed - MAX_STEPS_PER_FRAME); last < removed; last++) verdicts.add(readVerdict(t, i, start, last));
      if (verdicts.size > 1)
        throw new Error(`${name}: object ${t.ids[i]} (removed on step ${removed}) changes its verdict with the spacing of the reads (start ${start})`);
    }
  });
}

function main(): void {
  rmSync(join(OUT, 'levels'), { recursive: true, force: true });
  const manifest: Array<{ group: string; name: string }> = [];
  const design: Record<string, unknown> = {};
  const write = (group: string, name: string, objects: LevelObject[]) => {
    mkdirSync(join(OUT, 'levels', group), { recursive: true });
    writeFileSync(join(OUT, 'levels', group, `${name}.xml`), levelToXml(level(objects)));
    manifest.push({ group, name });
  };
  {
    const name = 'start_01';
    const { objects, margins } = startLevel();
    if (Math.min(...margins) < 0.001) throw new Error(`${name}: a start probe is within ${Math.min(...margins)} of the threshold`);
    checkCounts(name, objects, (start) => Math.max(0, START_PROBES - start));
    write('start', name, objects);
    design[name] = { probeMovesIfStartStepAtMost: margins.map((_, i) => i), marginToThreshold: margins.map((m) => Number(m.toFixed(5))) };
    process.stderr.write(`${name}: smallest margin to the 0.1 threshold ${Math.min(...margins).toFixed(5)}\n`);
  }
  endLevels().forEach(({ objects, boundaries, moved }, l) => {
    const name = `end_${String(l + 1).padStart(2, '0')}`;
    checkCounts(name, objects, (_start, end) => boundaries.length + boundaries.filter((b) => b <= end).length);
    write('end', name, objects);
    design[name] = {
      probeFirstMovesOnStep: boundaries,
      probeDistanceOnThatStep: moved.map((m) => Number(m.at.toFixed(4))),
      probeDistanceOneStepBefore: moved.map((m) => Number(m.before.toFixed(4))),
    };
    process.stderr.write(`${name}: probes first read moving on steps ${boundaries.join(', ')}\n`);
  });
  const ruler = { format: 1, range: RANGE, windowSteps: WINDOW_STEPS, levels: manifest, design };
  writeFileSync(join(OUT, 'ruler.json'), `${JSON.stringify(ruler, null, 2)}\n`);
  process.stderr.write(`wrote ${manifest.length} ruler levels to ${OUT}\n`);
}

main();
