// The frames as the server sends them (viewer/trial.ts `viewerFrames`): float32 little-endian states
// (step × body × 6: x, y, angle, vx, vy, omega) followed by one `alive` byte per step and body.
// Types: frames.d.ts beside this file.

export const FIELDS = 6;

const littleEndianHost = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export function decodeFrames(buffer, stepCount, bodyCount) {
  const floats = stepCount * bodyCount * FIELDS;
  if (buffer.byteLength !== floats * 4 + stepCount * bodyCount) {
    throw new Error(`frames: expected ${floats * 4 + stepCount * bodyCount} bytes for ${stepCount} steps × ${bodyCount} bodies, got ${buffer.byteLength}`);
  }
  let states;
  if (littleEndianHost) {
    states = new Float32Array(buffer, 0, floats);
  } else {
    const view = new DataView(buffer);
    states = new Float32Array(floats);
    for (let i = 0; i < floats; i++) states[i] = view.getFloat32(i * 4, true);
  }
  const alive = new Uint8Array(buffer, floats * 4, stepCount * bodyCount);
  return { stepCount, bodyCount, states, alive };
}

export function poseAt(frames, step, body) {
  const o = (step * frames.bodyCount + body) * FIELDS;
  const s = frames.states;
  return { x: s[o], y: s[o + 1], angle: s[o + 2], vx: s[o + 3], vy: s[o + 4], omega: s[o + 5], alive: frames.alive[step * frames.bodyCount + body] === 1 };
}

/**
 * Displacement of every body from step 0, per step, held at its last value once the body was removed
 * (the evaluator keeps the last position it saw): `result[body][step]`.
 */
export function displacementSeries(frames, removedAt) {
  const out = [];
  for (let b = 0; b < frames.bodyCount; b++) {
    const series = new Float32Array(frames.stepCount);
    const x0 = frames.states[b * FIELDS];
    const y0 = frames.states[b * FIELDS + 1];
    const last = removedAt.get(b) ?? Infinity;
    let held = 0;
    for (let s = 0; s < frames.stepCount; s++) {
      if (s < last) {
        const o = (s * frames.bodyCount + b) * FIELDS;
        held = Math.hypot(frames.states[o] - x0, frames.states[o + 1] - y0);
      }
      series[s] = held;
    }
    out.push(series);
  }
  return out;
}
