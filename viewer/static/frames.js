// The frames as the server sends them (viewer/trial.ts `viewerFrames`): float32 little-endian states
// (step × body × 6: x, y, angle, vx, vy, omega), one `alive` byte per step and body, then float32
// little-endian displacements per step and body (from each body's start position, computed on the
// server by the function behind the stability verdict; the page computes no displacement itself).
// Types: the JSDoc below (viewer/static/tsconfig.json checks this file; the tests import it with those types).

/**
 * @typedef {object} Frames
 * @property {number} stepCount
 * @property {number} bodyCount
 * @property {Float32Array} states
 * @property {Uint8Array} alive
 * @property {Float32Array[]} displacement Per body, its displacement from its start position at every step (computed by the server).
 */

/** @typedef {{ x: number, y: number, angle: number, vx: number, vy: number, omega: number, alive: boolean }} PoseAt */

const FIELDS = 6;

const littleEndianHost = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * @param {ArrayBuffer} buffer
 * @param {number} offset
 * @param {number} count
 * @returns {Float32Array}
 */
function floatsAt(buffer, offset, count) {
  if (littleEndianHost && offset % 4 === 0) return new Float32Array(buffer, offset, count);
  const view = new DataView(buffer);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = view.getFloat32(offset + i * 4, true);
  return out;
}

/**
 * @param {ArrayBuffer} buffer
 * @param {number} stepCount
 * @param {number} bodyCount
 * @returns {Frames}
 */
export function decodeFrames(buffer, stepCount, bodyCount) {
  const floats = stepCount * bodyCount * FIELDS;
  const cells = stepCount * bodyCount;
  const expected = floats * 4 + cells + cells * 4;
  if (buffer.byteLength !== expected) {
    throw new Error(`frames: expected ${expected} bytes for ${stepCount} steps × ${bodyCount} bodies, got ${buffer.byteLength}`);
  }
  const states = floatsAt(buffer, 0, floats);
  const alive = new Uint8Array(buffer, floats * 4, cells);
  const table = floatsAt(buffer, floats * 4 + cells, cells);
  // Per body, one series over the steps (what the chart draws).
  const displacement = [];
  for (let b = 0; b < bodyCount; b++) {
    const series = new Float32Array(stepCount);
    for (let s = 0; s < stepCount; s++) series[s] = table[s * bodyCount + b];
    displacement.push(series);
  }
  return { stepCount, bodyCount, states, alive, displacement };
}

/**
 * @param {Frames} frames
 * @param {number} step
 * @param {number} body
 * @returns {PoseAt}
 */
export function poseAt(frames, step, body) {
  const o = (step * frames.bodyCount + body) * FIELDS;
  const s = frames.states;
  return { x: s[o], y: s[o + 1], angle: s[o + 2], vx: s[o + 3], vy: s[o + 4], omega: s[o + 5], alive: frames.alive[step * frames.bodyCount + body] === 1 };
}
