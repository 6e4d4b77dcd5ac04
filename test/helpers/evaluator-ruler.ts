import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIELD_COUNT } from '../../bridge/frames.js';
import { loadRuler, recordTrial } from '../../orchestrator/stages/ruler.js';
import { type StabilityEntry, writeStabilityJson } from '../../scoring/formats/stability.js';
import { unityStabilityScore } from '../../scoring/formats/unity-score.js';

/**
 * What the official evaluator's Batch Stability Test would write for the shipped ruler levels if its
 * window were (start, end) with `stepsPerFrame` physics steps per frame — this test's own model of
 * `BaseStabilityEvaluator.IE_StableCheck` and `IE_Evaluate`, independent of scoring/ruler.ts: start
 * positions read on step `start`, last positions on every frame's end (start + k, start + 2k, …) up to
 * two frames before `end`, then on `end`; an object removed before a read keeps its last read; up to
 * 3 trials (the headless engine's creation orders), stop at score 1, counts from the last trial. The
 * files go to `<dir>/stability/<group>.json` with Windows tags, as the evaluator writes them.
 */
export function writeEvaluatorRulerResults(dir: string, window: { start: number; end: number; stepsPerFrame: number }): void {
  const ruler = loadRuler();
  const groups = new Map<string, StabilityEntry[]>();
  for (const level of ruler.levels) {
    let best = 0;
    let counts = { startingObjects: 0, movingObjects: 0 };
    for (let trial = 1; trial <= 3; trial++) {
      counts = evaluatorTrial(level.xml, ruler.windowSteps, trial, window);
      best = Math.max(best, unityStabilityScore(counts.startingObjects, counts.movingObjects));
      if (best >= 1) break;
    }
    const entries = groups.get(level.group) ?? [];
    entries.push({ tag: `competition\\sbeval-ruler\\levels\\${level.group}\\${level.name}.xml`, score: best, ...counts });
    groups.set(level.group, entries);
  }
  mkdirSync(join(dir, 'stability'), { recursive: true });
  for (const [group, entries] of groups) writeFileSync(join(dir, 'stability', `${group}.json`), writeStabilityJson(entries));
}

function evaluatorTrial(
  xml: string,
  windowSteps: number,
  trial: number,
  w: { start: number; end: number; stepsPerFrame: number },
): { startingObjects: number; movingObjects: number } {
  const { bodies, frames, events } = recordTrial(xml, windowSteps, trial);
  const reads = [w.start];
  for (let step = w.start + w.stepsPerFrame; step <= w.end - 2 * w.stepsPerFrame; step += w.stepsPerFrame) reads.push(step);
  reads.push(w.end);
  const at = (step: number, id: number): [number, number] => {
    const batch = frames.find((f) => step >= f.firstStep && step < f.firstStep + f.stepCount);
    if (!batch) throw new Error(`no frame for step ${step}`);
    const o = ((step - batch.firstStep) * batch.bodyCount + id) * FIELD_COUNT;
    return [batch.states[o] as number, batch.states[o + 1] as number];
  };
  let startingObjects = 0;
  let movingObjects = 0;
  for (const body of bodies.filter((b) => b.counted)) {
    const removed = events.find((e) => e.kind === 'removed' && e.id === body.id)?.step ?? Number.POSITIVE_INFINITY;
    if (removed <= w.start) continue;
    startingObjects += 1;
    const last = reads.filter((r) => r < removed).at(-1) as number;
    const [x0, y0] = at(w.start, body.id);
    const [x1, y1] = at(last, body.id);
    if (Math.fround(Math.hypot(x1 - x0, y1 - y0)) >= Math.fround(0.1)) movingObjects += 1;
  }
  return { startingObjects, movingObjects };
}
