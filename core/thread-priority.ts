import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Lowers the calling thread's scheduling priority by `nice` below the thread's own (capped at 19, the
 * lowest), where a thread can have its own: on Linux, /proc/thread-self names the thread's id and
 * setpriority(2) takes it for that thread alone. Relative, so a command started under `nice` still
 * gives its own work the edge.
 * Elsewhere, or when the system refuses, nothing changes (false): the thread keeps the process's.
 */
export function lowerThreadPriority(by: number): boolean {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isSafeInteger(tid) || tid <= 0) return false;
    setPriority(tid, Math.min(19, getPriority(tid) + by));
    return true;
  } catch {
    return false;
  }
}
