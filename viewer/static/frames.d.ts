// Types of frames.js.
export interface Frames {
  stepCount: number;
  bodyCount: number;
  states: Float32Array;
  alive: Uint8Array;
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
export const FIELDS: number;
export function decodeFrames(buffer: ArrayBuffer, stepCount: number, bodyCount: number): Frames;
export function poseAt(frames: Frames, step: number, body: number): PoseAt;
export function displacementSeries(frames: Frames, removedAt: Map<number, number>): Float32Array[];
