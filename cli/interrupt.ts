/**
 * Ctrl-C (SIGINT) and SIGTERM for the stage commands: one line that says what happened and that
 * finished work is kept (every write is atomic and every stage skips what is done), then exit 130
 * (SIGINT) or 143 (SIGTERM), the shells' 128 + signal convention.
 *
 * With `onStop`, the first signal asks the command to stop after the work in flight (the command then
 * exits through `finish`), and a second one quits at once.
 */
const EXIT_INTERRUPTED: Record<'SIGINT' | 'SIGTERM', number> = { SIGINT: 130, SIGTERM: 143 };

interface Interruptible {
  /** The signal that stopped the command, if one did. */
  readonly stoppedBy: 'SIGINT' | 'SIGTERM' | undefined;
  /** Removes the handlers; after a graceful stop prints the line and sets the exit code. */
  finish(): void;
}

export function stopOnInterrupt(command: string, onStop?: () => void): Interruptible {
  let stoppedBy: 'SIGINT' | 'SIGTERM' | undefined;
  const line = (signal: string, more: string) =>
    process.stderr.write(`\nsbeval ${command}: stopped by ${signal}${more}; finished work is kept — run the same command to continue\n`);
  const handler = (signal: 'SIGINT' | 'SIGTERM') => {
    if (stoppedBy !== undefined || onStop === undefined) {
      line(signal, '');
      process.exit(EXIT_INTERRUPTED[signal]);
    }
    stoppedBy = signal;
    process.stderr.write(`\nsbeval ${command}: ${signal}: stopping after the work in flight (again to quit at once)\n`);
    onStop();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    get stoppedBy() {
      return stoppedBy;
    },
    finish() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
      if (stoppedBy !== undefined) {
        line(stoppedBy, '');
        process.exitCode = EXIT_INTERRUPTED[stoppedBy];
      }
    },
  };
}

/**
 * The local servers' commands (`view`, `play`, `survey serve`): print where the server listens, serve
 * until Ctrl-C or SIGTERM, then close it (its in-flight answers end; nothing else is running).
 */
export async function serveUntilStopped(banner: string, server: { close(): Promise<void> }): Promise<void> {
  process.stdout.write(`${banner}\n`);
  process.stderr.write('press Ctrl-C to stop\n');
  await new Promise<void>((stopped) => {
    process.once('SIGINT', () => stopped());
    process.once('SIGTERM', () => stopped());
  });
  await server.close();
}
