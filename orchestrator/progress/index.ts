import type { ProgressDisplay } from './display.js';
import { JsonProgress } from './json.js';
import { PlainProgress } from './plain.js';
import { TtyProgress } from './tty.js';

export type { ProgressDisplay } from './display.js';
export { JsonProgress } from './json.js';
export { PlainProgress } from './plain.js';
export { formatSummaryLines } from './tally.js';
export { TtyProgress } from './tty.js';

interface DisplayOptions {
  /** `--json`: JSON lines on stdout. */
  json?: boolean;
  /** Where human progress goes (default stderr, so stdout stays for results). */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Plain mode's status interval. */
  intervalMs?: number;
}

/** The display the CLI uses: JSON lines with `--json`, live bars on a terminal, plain lines otherwise. */
export function createProgressDisplay(options: DisplayOptions = {}): ProgressDisplay {
  if (options.json) return new JsonProgress(process.stdout);
  const stream = options.stream ?? process.stderr;
  if (stream.isTTY && !process.env.CI) return new TtyProgress(stream);
  return new PlainProgress(stream, options.intervalMs ?? 5000);
}
