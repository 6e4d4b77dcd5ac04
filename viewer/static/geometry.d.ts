// Types of geometry.js (the page's modules are plain JS served as files; tests import them through these).
export interface View {
  scale: number;
  ox: number;
  oy: number;
}
export interface Bounds {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}
export type Point = [number, number];
export function worldToPixel(view: View, x: number, y: number): Point;
export function pixelToWorld(view: View, px: number, py: number): Point;
export function fitView(bounds: Bounds, width: number, height: number, margin: number): View;
export function evaluatorView(bound: Bounds, size: number): View;
export function placePath(path: ReadonlyArray<readonly [number, number]>, x: number, y: number, angle: number): Point[];
export function boundsOf(pointSets: ReadonlyArray<ReadonlyArray<readonly [number, number]>>): Bounds | undefined;
export function stepToTime(step: number, dt: number): number;
export function stepToX(step: number, stepCount: number, x0: number, width: number): number;
export function xToStep(x: number, stepCount: number, x0: number, width: number): number;
export function valueToY(value: number, max: number, y0: number, height: number): number;
export function niceInterval(range: number, pixels: number, minSpacing: number): number;
export function ticks(min: number, max: number, pixels: number, minSpacing: number): number[];
export function pointInPaths(paths: ReadonlyArray<ReadonlyArray<readonly [number, number]>>, x: number, y: number): boolean;
export function pickBody(shapes: ReadonlyArray<ReadonlyArray<ReadonlyArray<readonly [number, number]>> | null>, x: number, y: number): number;
export function labelFontSize(scale: number): number;
