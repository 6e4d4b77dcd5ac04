import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Lowers the calling thread's scheduling priority (its nice value), where a thread can have its own:
 * on Linux, /proc/thread-self names the thread's id and setpriority(2) takes it for that thread alone.
 * Elsewhere, or when the system refuses, nothing changes (false): the thread keeps the process's.
 */
export function lowerThreadPriority(nice: number): boolean {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isSafeInteger(tid) || tid <= 0) return false;
    setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}
