import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../bridge/headless/order.js';
import { runSession } from '../bridge/hostile/sessions.js';
import { portFromHint, sbeval } from '../helpers/bridge-run.js';
import { exampleCopy } from './helpers/competition.js';

/**
 * A run that could not finish every level exits 1, and its summary says how many levels and
 * why. A live `run --engine bridge` with no engine retries
 * allowed: the first engine to dial in lies about its level (50 of the window's steps), so that level
 * fails for an engine reason; an honest engine finishes the others. The same command afterwards
 * finishes the lost level and exits 0.
 */

const imageRows = (root: string) =>
  readFileSync(join(root, 'result', 'trials.csv'), 'utf8')
    .trimEnd()
    .split('\n')
    .slice(1)
    .filter((line) => line.split(',')[4] === 'image').length;

describe('a run that loses a level to engines', () => {
  it('exits 1 and says how many levels and why; the same command then finishes them and exits 0', async () => {
    const root = exampleCopy({ teams: ['GridThinkers'], letters: ['I'], config: 'trials: 3\nlimits:\n  engineRetries: 0\n' });
    const token = randomBytes(32).toString('hex');
    const run = sbeval(['run', root, '--engine', 'bridge'], { SBEVAL_TOKEN: token });
    const port = await portFromHint(run);

    const lie = await runSession({ port, token }, 'lie-short', mulberry32(1));
    expect(lie.outcome).toBe('close 1000');
    const engine = sbeval(['engine', '--connect', `ws://127.0.0.1:${port}`], { SBEVAL_TOKEN: token });
    const result = await run;
    await engine;
    expect(result.exitCode, result.all).toBe(1);
    expect(result.all).toMatch(/unfinished: 1 level\(s\) could not be simulated; run the same command again to retry them:/);
    expect(result.all).toMatch(/ {2}1 × simulate: .*the engine streamed 50 steps, the window has 515/);
    // The other levels were simulated (and scored as far as the run goes): nothing else was lost.
    const before = imageRows(root);
    expect(before).toBeGreaterThan(0);

    const again = await sbeval(['run', root, '--engine', 'headless', '--workers', '1']);
    expect(again.exitCode, again.all).toBe(0);
    expect(again.all).not.toMatch(/unfinished/);
    expect(imageRows(root)).toBe(before + 1);
  }, 180_000);
});
