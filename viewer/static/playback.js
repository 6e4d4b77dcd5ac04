// Playback as pure state transitions: one "current step" that every panel follows (Playwright's
// playbackControl lesson). The page feeds `advance` with animation-frame time; tests feed it numbers.
// Types: the JSDoc below (viewer/static/tsconfig.json checks this file).

/** @typedef {{ step: number, playing: boolean, speed: number, stepCount: number, dt: number, carry: number }} Playback */

/** @type {number[]} */
export const SPEEDS = [0.1, 0.25, 0.5, 1, 2, 4];

/**
 * @param {number} stepCount
 * @param {number} dt
 * @returns {Playback}
 */
export function createPlayback(stepCount, dt) {
  return { step: 0, playing: false, speed: 1, stepCount, dt, carry: 0 };
}

/**
 * @param {Playback} state
 * @param {number} step
 */
function clamp(state, step) {
  return Math.min(state.stepCount - 1, Math.max(0, Math.round(step)));
}

/**
 * Go to a step (clamped); keeps playing if it was.
 * @param {Playback} state
 * @param {number} step
 * @returns {Playback}
 */
export function seek(state, step) {
  return { ...state, step: clamp(state, step), carry: 0 };
}

/**
 * One frame back or forward (or more); stepping pauses.
 * @param {Playback} state
 * @param {number} delta
 * @returns {Playback}
 */
export function stepBy(state, delta) {
  return { ...seek(state, state.step + delta), playing: false };
}

/**
 * @param {Playback} state
 * @returns {Playback}
 */
export function play(state) {
  // At the end, play starts over.
  const atEnd = state.step >= state.stepCount - 1;
  return { ...state, step: atEnd ? 0 : state.step, playing: state.stepCount > 1, carry: 0 };
}

/**
 * @param {Playback} state
 * @returns {Playback}
 */
export function pause(state) {
  return { ...state, playing: false, carry: 0 };
}

/**
 * @param {Playback} state
 * @returns {Playback}
 */
export function toggle(state) {
  return state.playing ? pause(state) : play(state);
}

/**
 * @param {Playback} state
 * @param {number} speed
 * @returns {Playback}
 */
export function setSpeed(state, speed) {
  if (!(speed > 0)) return state;
  return { ...state, speed };
}

/**
 * Moves time on by `elapsed` wall-clock seconds: at speed 1 one step per `dt` seconds (real time);
 * fractions carry over to the next call so playback does not drift. Stops at the last step.
 * @param {Playback} state
 * @param {number} elapsed
 * @returns {Playback}
 */
export function advance(state, elapsed) {
  if (!state.playing || !(elapsed > 0)) return state;
  const exact = state.carry + (elapsed * state.speed) / state.dt;
  const whole = Math.floor(exact + 1e-9);
  const next = state.step + whole;
  if (next >= state.stepCount - 1) return { ...state, step: state.stepCount - 1, playing: false, carry: 0 };
  return { ...state, step: next, carry: exact - whole };
}
