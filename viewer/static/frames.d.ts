// Types of frames.js.
export interface Frames {
  stepCount: number;
  bodyCount: number;
  states: Float32Array;
  alive: Uint8Array;
  /** Per body, its displacement from its start position at every step (computed by the server). */
  displacement: Float32Array[];
}
export interface PoseAt {
  x: number;
  y: number;
  angle: number;
  vx: number;
  vy: number;
  omega: number;
  alive: boolean;
}
export function decodeFrames(buffer: ArrayBuffer, stepCount: number, bodyCount: number): Frames;
export function poseAt(frames: Frames, step: number, body: number): PoseAt;
