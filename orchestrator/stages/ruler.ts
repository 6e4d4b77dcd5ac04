import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { DEFAULT_SIMULATION } from '../../bridge/engine.js';
import type { BodyInfo, FrameBatch, SimEvent } from '../../bridge/frames.js';
import { levelSeed, simulateTrial } from '../../bridge/headless/run.js';
import { loopIterations, OFFICIAL_WINDOW } from '../../bridge/window.js';
import { SbevalError } from '../../core/errors.js';
import { parseLevelXml } from '../../levels/xml-read.js';
import { parseStabilityJson, parseWith } from '../../scoring/formats/stability.js';
import { inferWindow, type ObservedLevel, type RulerTrack, rulerTrack, stepSpan, type WindowInference, type WindowRange } from '../../scoring/ruler.js';
import { compareNames } from '../layout/competition.js';
import { RULER_DIR } from './calibration-data.js';

/**
 * The timing ruler (`sbeval unity calibrate --evaluator`): levels the organizer runs once through the
 * official evaluator's Batch Stability Test; the counts it writes pin on which physics steps it read
 * the start and the last positions (scoring/ruler.ts), and so whether `bridge/window.ts` is its
 * timing. The levels and their design are in calibration/ruler (made by scripts/make-ruler.ts,
 * described in calibration/README.md and docs/unity.md).
 */

const manifestSchema = z.object({
  format: z.literal(1),
  /**
   * The read steps the ruler tells apart: start steps from the first value up to the last, which
   * stands for "that step or later"; end steps strictly between the two values, the first standing
   * for "that step or earlier" and the last for "that step or later".
   */
  range: z.object({ start: z.tuple([z.number().int(), z.number().int()]), end: z.tuple([z.number().int(), z.number().int()]) }),
  /** `windowSteps` of the headless trial that records a ruler level (its frames reach past the range's end). */
  windowSteps: z.number().int().positive(),
  levels: z.array(z.object({ group: z.string(), name: z.string() })),
});

interface RulerLevel {
  group: string;
  /** File name without `.xml` (what the evaluator's `tag` ends with). */
  name: string;
  xml: string;
}

export interface Ruler {
  dir: string;
  range: WindowRange;
  windowSteps: number;
  levels: RulerLevel[];
}

/** The ruler shipped in `dir` (default: this installation's calibration/ruler). */
export function loadRuler(dir: string = RULER_DIR): Ruler {
  const file = join(dir, 'ruler.json');
  if (!existsSync(file)) throw new SbevalError('input', `no timing ruler at ${dir} (ruler.json missing)`);
  const manifest = parseWith(manifestSchema, readFileSync(file, 'utf8'), file);
  const levels = manifest.levels.map(({ group, name }) => {
    const path = join(dir, 'levels', group, `${name}.xml`);
    if (!existsSync(path)) throw new SbevalError('input', `${path} is missing (listed in ${file})`);
    return { group, name, xml: readFileSync(path, 'utf8') };
  });
  return { dir, range: manifest.range, windowSteps: manifest.windowSteps, levels };
}

/** One trial of a level on the headless engine, in process, with every frame kept (creation order of `trial`). */
export function recordTrial(xml: string, windowSteps: number, trial = 1): { bodies: BodyInfo[]; frames: FrameBatch[]; events: SimEvent[] } {
  let bodies: BodyInfo[] = [];
  const frames: FrameBatch[] = [];
  const events: SimEvent[] = [];
  simulateTrial(
    parseLevelXml(xml),
    levelSeed(xml),
    { ...DEFAULT_SIMULATION, windowSteps, trial, capture: false, framesPerBatch: windowSteps + 16 },
    {
      loaded: (b) => (bodies = b),
      frames: (b) => frames.push({ ...b, states: b.states.slice(), alive: b.alive.slice() }),
      events: (e) => events.push(...e),
    },
  );
  return { bodies, frames, events };
}

/** The headless engine's track of every ruler level (what the predictions are computed from). */
export function rulerTracks(ruler: Ruler, trial = 1): RulerTrack[] {
  return ruler.levels.map((level) => {
    const { bodies, frames, events } = recordTrial(level.xml, ruler.windowSteps, trial);
    return rulerTrack(level.name, bodies, frames, events);
  });
}

/**
 * The evaluator's results for the ruler: every `*.json` stability file in `folder/stability/` (where
 * the Batch Stability Test writes them for `folder/levels/<group>/`) or in `folder` itself; entries
 * are matched to ruler levels by the file name at the end of their `tag`.
 */
export function readEvaluatorResults(folder: string): ObservedLevel[] {
  if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new SbevalError('input', `--evaluator ${folder}: no such folder`);
  const dir = existsSync(join(folder, 'stability')) ? join(folder, 'stability') : folder;
  const files = readdirSync(dir)
    .filter((f) => f.toLowerCase().endsWith('.json'))
    .sort(compareNames);
  if (files.length === 0)
    throw new SbevalError(
      'input',
      `no stability JSON in ${dir}`,
      'run the evaluator\'s Batch Stability Test on the ruler levels first (docs/unity.md, "The timing ruler")',
    );
  const out: ObservedLevel[] = [];
  for (const file of files) {
    const parsed = parseStabilityJson(readFileSync(join(dir, file), 'utf8'), join(dir, file));
    for (const raw of parsed.raws) {
      if (raw.startingObjects === undefined || raw.movingObjects === undefined) {
        throw new SbevalError('input', `${join(dir, file)}: ${raw.tag} has no startingObjects/movingObjects (an evaluator older than 84df32e?)`);
      }
      const name = basename(raw.tag.replace(/\\/g, '/')).replace(/\.xml$/i, '');
      out.push({ level: name, startingObjects: raw.startingObjects, movingObjects: raw.movingObjects });
    }
  }
  return out;
}

/**
 * Steps per frame that give a window of `span` steps between the start read and the last read in
 * `IE_StableCheck` (one read after the load, one `wff`, `N` loop frames, one `wff`, the last read:
 * span = k·(N + 2) with N the float32 loop count for Time.deltaTime = k·0.02), among 1 … `max`.
 */
export function stepsPerFrameForSpan(span: number, max = 10): number[] {
  const out: number[] = [];
  for (let k = 1; k <= max; k++) if (k * (loopIterations(10, 0.02 * k) + 2) === span) out.push(k);
  return out;
}

export interface RulerVerdict {
  ok: boolean;
  inference: WindowInference;
  /** The start and end read steps the ruler pins (a range when it cannot tell them apart). */
  start?: [number, number];
  end?: [number, number];
  stepsPerFrame: number[];
  expected: { start: number; end: number; stepsPerFrame: 1 };
  /** What to change when the evaluator's window is not bridge/window.ts's. */
  change?: string;
}

/** Compares the evaluator's ruler results with every window of the ruler and with bridge/window.ts. */
export function rulerVerdict(ruler: Ruler, tracks: readonly RulerTrack[], observed: readonly ObservedLevel[]): RulerVerdict {
  const inference = inferWindow(tracks, observed, ruler.range);
  const expected = { start: OFFICIAL_WINDOW.startStep, end: OFFICIAL_WINDOW.endStep, stepsPerFrame: 1 as const };
  const start = stepSpan(inference.windows.map((w) => w.start));
  const end = stepSpan(inference.windows.map((w) => w.end));
  const { range } = ruler;
  const exact = start && end && start[0] === start[1] && end[0] === end[1] && start[0] < range.start[1] && end[0] > range.end[0] && end[0] < range.end[1];
  const stepsPerFrame = exact ? stepsPerFrameForSpan(end[0] - start[0]) : [];
  const base = { inference, stepsPerFrame, expected, ...(start ? { start } : {}), ...(end ? { end } : {}) };
  if (inference.missing.length > 0 || !exact) return { ...base, ok: false };
  const ok = start[0] === expected.start && end[0] === expected.end;
  return ok ? { ...base, ok } : { ...base, ok, change: windowChange(start[0], end[0], stepsPerFrame) };
}

/** The edit that makes bridge/window.ts (and its C# twin) the evaluator's window. */
function windowChange(start: number, end: number, stepsPerFrame: readonly number[]): string {
  const twin = 'unity-plugin/Runtime/EvaluatorWindow.cs';
  if (stepsPerFrame.length === 1 && stepsPerFrame[0] === 1) {
    return (
      `bridge/window.ts: LOAD_SETTLE_STEPS = ${start} (was ${OFFICIAL_WINDOW.startStep}); ${twin}: LoadSettleSteps = ${start} (was ${OFFICIAL_WINDOW.startStep}). ` +
      `The window then reads start positions on step ${start} and last positions on steps ${start + 1} … ${end - 2} and ${end}.`
    );
  }
  const k =
    stepsPerFrame.length === 1
      ? `ran ${stepsPerFrame[0]} physics steps per frame`
      : `read over a span of ${end - start} steps, which no whole number of steps per frame from 1 to 10 gives (one step per frame gives ${OFFICIAL_WINDOW.endStep - OFFICIAL_WINDOW.startStep})`;
  return (
    `bridge/window.ts and ${twin}: the evaluator ${k}, reading start positions on step ${start} and last positions on step ${end}; evaluatorWindow() assumes one step per frame (start ${OFFICIAL_WINDOW.startStep}, end ${OFFICIAL_WINDOW.endStep}). ` +
    `Give it the steps per frame so that startStep = ${start}, endStep = ${end} and isReadStep() reads every ${stepsPerFrame[0] ?? '?'} steps in between, and the C# twin the same, before either engine's verdicts are the evaluator's.`
  );
}

/** A step the ruler inferred, with the edges of its range read as open ("or later", "or earlier"). */
function shownStep(step: number, range: readonly [number, number], lowerOpen: boolean): string {
  if (step >= range[1]) return `≥ ${range[1]} (beyond the ruler)`;
  if (lowerOpen && step <= range[0]) return `≤ ${range[0]} (before the ruler)`;
  return String(step);
}

/** The report of `calibrate --evaluator`. */
export function rulerMarkdown(ruler: Ruler, v: RulerVerdict, observedLevels: number): string {
  const shown = (r: readonly [number, number] | undefined, edges: readonly [number, number], lowerOpen: boolean) =>
    r === undefined
      ? 'none'
      : r[0] === r[1]
        ? shownStep(r[0], edges, lowerOpen)
        : `${shownStep(r[0], edges, lowerOpen)} … ${shownStep(r[1], edges, lowerOpen)}`;
  const range = (r: readonly [number, number] | undefined) => (r === undefined ? 'none' : r[0] === r[1] ? `${r[0]}` : `${r[0]} … ${r[1]}`);
  const lines = [
    `Timing ruler: the evaluator's own stability results for ${observedLevels} ruler level${observedLevels === 1 ? '' : 's'} against every read window the ruler tells apart (headless engine's per-step states)`,
    '',
    '| | evaluator (inferred) | bridge/window.ts |',
    '| --- | --- | --- |',
    `| start positions read on step | ${shown(v.start, ruler.range.start, false)} | ${v.expected.start} |`,
    `| last positions read on step | ${shown(v.end, ruler.range.end, true)} | ${v.expected.end} |`,
    `| physics steps per frame (from the span) | ${v.stepsPerFrame.length > 0 ? v.stepsPerFrame.join(' or ') : 'none from 1 to 10 fits'} | 1 |`,
    '',
  ];
  if (v.inference.missing.length > 0)
    lines.push(
      `The evaluator's results do not mention ${v.inference.missing.length} ruler level(s): ${v.inference.missing.join(', ')} (run the Batch Stability Test on the whole ruler folder).`,
      '',
    );
  if (v.inference.windows.length === 0 && v.inference.closest) {
    const c = v.inference.closest;
    lines.push(`No window in the ruler's range fits every level. Closest: start ${c.start}, end ${c.end}, where ${c.disagreeing.length} level(s) disagree:`);
    for (const d of c.disagreeing.slice(0, 10))
      lines.push(
        `- ${d.level}: evaluator ${d.observed.movingObjects}/${d.observed.startingObjects} moving, predicted ${d.predicted.movingObjects}/${d.predicted.startingObjects}`,
      );
    lines.push(
      '',
      "Either Unity moved the ruler's objects otherwise than the headless engine predicts (the step offset of `sbeval unity calibrate --unity …` compares their free fall), or these results are not of this ruler's levels.",
      '',
    );
  } else if (v.inference.windows.length > 1) {
    lines.push(`${v.inference.windows.length} windows fit (start ${range(v.start)}, end ${range(v.end)}): the ruler cannot tell them apart there.`, '');
  }
  if (v.ok) lines.push("ruler: the evaluator's window is bridge/window.ts's.");
  else if (v.change) lines.push(`ruler: MISMATCH — change ${v.change}`);
  else lines.push('ruler: the window could not be pinned (see above); bridge/window.ts is unconfirmed.');
  return lines.join('\n');
}
