import { readFileSync } from 'node:fs';

/**
 * The peak resident memory of a live child process, from Linux's `/proc/<pid>/status` `VmHWM` (the
 * kernel's own high-water mark, so no peak is missed between two reads): read every 50 ms while the
 * process lives; `peakMb()` is the last mark read before it ended.
 */
export function watchPeakRss(pid: number | undefined): { stop(): void; peakMb(): number } {
  if (pid === undefined) throw new Error('the child has no pid');
  let peakKb = 0;
  const read = () => {
    try {
      const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (match) peakKb = Math.max(peakKb, Number(match[1]));
    } catch {
      // The process has ended: the last mark stands.
    }
  };
  read();
  const timer = setInterval(read, 50);
  return {
    stop: () => clearInterval(timer),
    peakMb: () => peakKb / 1024,
  };
}
