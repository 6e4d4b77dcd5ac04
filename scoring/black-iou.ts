/**
 * Black-pixel IoU of two RGBA images of the same size: the evaluator's captures hold black structures
 * on white, so two captures of one level agree as far as their black pixels overlap. Images of
 * different sizes do not agree at all (0).
 */
export function blackIou(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return 0;
  let inter = 0;
  let union = 0;
  for (let i = 0; i < a.length; i += 4) {
    const x = (a[i] as number) < 128;
    const y = (b[i] as number) < 128;
    if (x && y) inter++;
    if (x || y) union++;
  }
  return union === 0 ? 1 : inter / union;
}
