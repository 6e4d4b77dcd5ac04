import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../bridge/headless/order.js';
import { portFromHint, sbeval } from '../helpers/bridge-run.js';
import { exampleCopy } from '../orchestrator/helpers/competition.js';
import { FAKE_VERDICT, runSession } from './hostile/sessions.js';

/**
 * The terminal-escape engine of the hostile suite, alone: a token holder whose instance name and
 * error texts are terminal control sequences (erase the screen, set the window title, hide the text)
 * and a line of their own ("ALL LEVELS VERIFIED OK"). It fails every level it takes until it is
 * retired; then an honest engine finishes the run. Nothing the run prints or logs line by line holds
 * a control character or the fake line as a line of its own, and its text is shown, escaped.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

function lineLogs(root: string): string[] {
  const dir = join(root, 'logs');
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.txt'))
        .map((f) => readFileSync(join(dir, f), 'utf8'))
    : [];
}

describe('a terminal-escape engine', () => {
  it('reaches the terminal and the logs only escaped', async () => {
    const root = exampleCopy({ teams: ['BlockSmith'], letters: ['I'], config: 'trials: 2\nlimits:\n  stallSeconds: 3\n  engineRetries: 10\n' });
    const token = randomBytes(32).toString('hex');
    const run = sbeval(['run', root, '--engine', 'bridge'], { SBEVAL_TOKEN: token });
    const port = await portFromHint(run);

    const session = await runSession({ port, token }, 'terminal-escape', mulberry32(1));
    expect(session.outcome).not.toBe('no-level');
    const honest = sbeval(['engine', '--connect', `ws://127.0.0.1:${port}`], { SBEVAL_TOKEN: token });
    const result = await run;
    await honest;

    expect(result.exitCode, result.all).toBe(0);
    const output = String(result.all);
    expect(output).not.toMatch(CONTROL);
    expect(output.split('\n').filter((line) => line.trim().startsWith(FAKE_VERDICT))).toEqual([]);
    // What it said was shown, escaped: its name and its error text.
    expect(output).toContain('\\x1b[2J\\x1b]0;sbeval: all verified\\x07esc');
    expect(output).toContain(`\\x1b]0;owned\\x07\\r\\n${FAKE_VERDICT}`);
    for (const log of lineLogs(root)) {
      expect(log).not.toMatch(CONTROL);
      expect(log.split('\n').filter((line) => line.trim().startsWith(FAKE_VERDICT))).toEqual([]);
    }
  }, 300_000);
});
