/** A `sbeval run --engine bridge` child process and the port it announces, for tests that dial engines into a live run. */
import { execa, type ResultPromise } from 'execa';
import { PROJECT_ROOT } from './cli.js';
import { sbevalArgv } from './sbeval-bin.js';

export type BridgeChild = ResultPromise<{ reject: false; cwd: string; env: Record<string, string>; all: true }>;

/** `sbeval <args>` (bin/sbeval.js), output interleaved in `all`, never rejecting on a non-zero exit. */
export const sbeval = (args: string[], env: Record<string, string> = {}): BridgeChild =>
  execa(process.execPath, sbevalArgv(args), { reject: false, cwd: PROJECT_ROOT, env: { FORCE_COLOR: '0', ...env }, all: true });

/** The port of the run's "waiting for engines on ws://127.0.0.1:PORT" hint; rejects if the run exits first. */
export function portFromHint(child: BridgeChild): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const match = /waiting for engines on ws:\/\/127\.0\.0\.1:(\d+)/.exec(text);
      if (match) {
        child.all?.off('data', onData);
        resolve(Number(match[1]));
      }
    };
    child.all?.on('data', onData);
    void child.then((r) => reject(new Error(`the run exited ${r.exitCode} before listening:\n${r.all}`)));
  });
}
