/**
 * `score = 1.0f − ((float)moving / (float)starting)` as the evaluator's Mono runtime evaluates it: the
 * expression in double precision, rounded once when stored in the float field. (Golden evidence: 2 of
 * 3 moving objects is stored as 0.3333333432674408 = float32(1/3), not as 1 − float32(2/3) =
 * 0.3333333134651184.)
 */
export function unityStabilityScore(startingObjects: number, movingObjects: number): number {
  return Math.fround(1 - movingObjects / startingObjects);
}
