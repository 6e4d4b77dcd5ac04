/**
 * A rule of sbeval's own code that cannot break unless sbeval has a bug (a worker module loaded outside
 * a worker, a machine built without one of its actors): a plain Error, not an SbevalError, because no
 * phase or hint helps a user — the message is for whoever reports it. Anything input, a host or the
 * machine can cause is an SbevalError (core/errors.ts).
 */
export function invariant(holds: unknown, message: string): asserts holds {
  if (!holds) throw new Error(message);
}
