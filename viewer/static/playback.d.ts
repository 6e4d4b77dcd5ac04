// Types of playback.js.
export interface Playback {
  step: number;
  playing: boolean;
  speed: number;
  stepCount: number;
  dt: number;
  carry: number;
}
export const SPEEDS: number[];
export function createPlayback(stepCount: number, dt: number): Playback;
export function seek(state: Playback, step: number): Playback;
export function stepBy(state: Playback, delta: number): Playback;
export function play(state: Playback): Playback;
export function pause(state: Playback): Playback;
export function toggle(state: Playback): Playback;
export function setSpeed(state: Playback, speed: number): Playback;
export function advance(state: Playback, elapsed: number): Playback;
