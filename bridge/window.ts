/**
 * The evaluator's timing, the one definition both engines and the stability scoring use: on which
 * physics step the start positions are read, which steps update the last positions, how many steps a
 * trial runs, and on which steps the capture pass frames the structure and renders. The Unity plugin
 * mirrors it in unity-plugin/Runtime/EvaluatorWindow.cs (a cross-language test keeps the two equal).
 *
 * Steps are counted from the level's creation: step 0 is the bodies as `ABGameWorld.DecodeLevel` made
 * them, before any physics step; step k is the state after k fixed steps of 0.02 s. A trial's frame
 * stream holds steps 0 … `stepsToSimulate(settings)`.
 *
 * Derived from chatgpt4pcg/modified-science-birds @07419b8 (reference/science-birds-evaluator.md §2,
 * §4, §5) and Unity 2019.4's documented player loop — not from a run: each point below is an
 * assumption about Unity until the timing ruler has been run in the official evaluator (`sbeval unity
 * calibrate --evaluator` reads its results back to the start step, the end step and the steps per
 * frame, and says what to change here; docs/unity.md):
 * - Time: `Maximum Allowed Timestep` 0.02 = `Fixed Timestep` (TimeManager.asset). At the evaluator's
 *   time scales (10 for stability, 5 for images) a frame's scaled `Time.deltaTime` is
 *   min(real frame time × scale, 0.02) = 0.02 whenever a frame takes more than 2 ms (4 ms at ×5) of
 *   real time, so every frame runs exactly one physics step. (Faster frames would run fewer steps per
 *   frame; see the "known unknowns" in unity-plugin/README.md.)
 * - Load (`IE_StableCheck` and `IE_TakeScreenshots` alike): `yield return LoadSceneAsync(…)` resumes in
 *   the frame the scene is integrated (EarlyUpdate); `ABGameWorld.Start` → `DecodeLevel` runs as a
 *   delayed Start before that frame's fixed step, which is step 1; `yield return wff` then reaches
 *   the end of that frame. So the first end-of-frame after loading sees step 1.
 * - Stability (`BaseStabilityEvaluator.IE_StableCheck`, lines 105–122): `InitializeMovingData` at that
 *   end of frame (step 1), one more `wff` (step 2), then `while (t <= duration) { UpdateMovingData;
 *   wff; t += Time.deltaTime; }` and after the loop `wff; UpdateMovingData`. With `t` a float32 adding
 *   0.02f, the loop body runs 500 times for duration 10 (t reaches 10.000039 > 10 after 500 adds), so
 *   last positions are read on steps 2 … 501 and 503; the window ends on step 503.
 * - Image (`BaseSimilarityEvaluator.IE_TakeScreenshots`, lines 66–120): after the same load, a `wff`
 *   (step 1), `WaitForSeconds(stayDuration 10)` resumes in the Update of the frame 500 frames later
 *   (step 501): structure bound and camera; 7 `wff` (the first ends the same frame) → the `_raw`
 *   image renders step 507; OCR sprites; 7 more `wff` → the image renders step 514. In the evaluator
 *   this is a separate load of the level (its own pass, scene `SimilarityGameWorld`, time scale 5).
 */

/** Physics step (s) of the evaluator (`Fixed Timestep: 0.02`, TimeManager.asset). */
export const EVALUATOR_DT = 0.02;
/** `duration: 10` (BatchStabilityTest.unity) and `stayDuration: 10` (BatchSimilarityTest.unity), in steps. */
export const EVALUATOR_DURATION_STEPS = 500;
/** The first end-of-frame after the load sees the bodies after this many physics steps (see above). */
const LOAD_SETTLE_STEPS = 1;
/** `for (int j = 0; j < 7; j++) yield return wff;` twice in IE_TakeScreenshots. */
const CAPTURE_FRAME_WAIT = 7;

export interface EvaluatorWindow {
  /** Duration in steps the window was derived from (`SimulationSettings.windowSteps`; 500 = 10 s). */
  durationSteps: number;
  /** Step whose positions are the start positions (`InitializeMovingData`). */
  startStep: number;
  /** Times the `while (t <= duration)` body runs (float32 accumulation of 0.02f). */
  loopIterations: number;
  /** Last step read (`UpdateMovingData` after the loop); the window's end. */
  endStep: number;
  /** Capture pass: the step on which the structure bound is taken and the camera set. */
  boundStep: number;
  /** Capture pass: the step the `_raw` image shows. */
  rawStep: number;
  /** Capture pass: the step the black-on-white image shows. */
  imageStep: number;
}

/**
 * How many times `while (t <= duration) { …; t += dt; }` runs with float32 `t`, `duration` and `dt`
 * (C# `float` locals, as in the evaluator's coroutine).
 */
export function loopIterations(durationSeconds: number, dt = EVALUATOR_DT): number {
  const duration = Math.fround(durationSeconds);
  const step = Math.fround(dt);
  let t = 0;
  let n = 0;
  while (t <= duration) {
    n++;
    const next = Math.fround(t + step);
    if (next === t) throw new RangeError(`a float32 clock stops advancing at ${t} s: duration ${durationSeconds} s is too long`);
    t = next;
  }
  return n;
}

/** The evaluator's window for a duration of `durationSteps` physics steps (500 = its 10 s). */
export function evaluatorWindow(durationSteps = EVALUATOR_DURATION_STEPS): EvaluatorWindow {
  if (!Number.isInteger(durationSteps) || durationSteps < 0) throw new RangeError(`window duration must be a whole number of steps, got ${durationSteps}`);
  const startStep = LOAD_SETTLE_STEPS;
  const iterations = loopIterations(durationSteps * EVALUATOR_DT);
  const boundStep = LOAD_SETTLE_STEPS + durationSteps;
  return {
    durationSteps,
    startStep,
    loopIterations: iterations,
    // start, one wff, `iterations` loop frames (reads on start+1 … start+iterations), one wff, the last read.
    endStep: startStep + iterations + 2,
    boundStep,
    rawStep: boundStep + CAPTURE_FRAME_WAIT - 1,
    imageStep: boundStep + 2 * CAPTURE_FRAME_WAIT - 1,
  };
}

/** Whether the evaluator reads an object's position on `step` (`UpdateMovingData`): start+1 … start+N, and the end step. */
export function isReadStep(window: EvaluatorWindow, step: number): boolean {
  return (step > window.startStep && step <= window.startStep + window.loopIterations) || step === window.endStep;
}

/** The last step of a trial's frame stream: the window's end, or the image step when the trial also renders the capture. */
export function stepsToSimulate(settings: { windowSteps: number; capture: boolean }): number {
  const w = evaluatorWindow(settings.windowSteps);
  return settings.capture ? Math.max(w.endStep, w.imageStep) : w.endStep;
}

/** The default window (10 s), for readers that only need the numbers. */
export const OFFICIAL_WINDOW: EvaluatorWindow = Object.freeze(evaluatorWindow());
