/**
 * Bounded waits of the engine pool: an engine's run or `close()` that never settles must not hold the
 * pool (lesson from ML-Agents, reference/model-codebases.md §1, §7a.5: every wait is bounded).
 */

/** Resolves after `ms` without keeping the process alive. */
export function delay(ms: number): Promise<'timeout'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), ms);
    timer.unref?.();
  });
}

/** Whether `promise` settled (resolved or rejected) within `ms`. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const settled = promise.then(
    () => 'settled' as const,
    () => 'settled' as const,
  );
  return (await Promise.race([settled, delay(ms)])) === 'settled';
}
