import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { portFromHint, sbeval } from '../helpers/bridge-run.js';
import { parseCsv } from '../helpers/csv.js';
import { exampleCopy, PROJECT_ROOT, readRunLog, runLogs } from './helpers/competition.js';
import { CLAIM } from './helpers/lies.js';

/**
 * Engines cannot decide a level alone: `sbeval run
 * --engine bridge` where the only engine that dials in lies — it answers every `load` with
 * `error {fault: "level"}` and a text of its own. Its first claim is checked on the referee (the
 * headless engine), refuted, and the liar is retired. No engine is left, and none dials in: the run
 * waits `limits.engineWaitSeconds` for one (here 1 s, from the config file), then fails the levels that
 * no engine ran with "no engine left: …", keeps what was computed, and exits 1 (on the base commit it
 * waited for engines forever).
 */
const HELPER = fileURLToPath(new URL('./helpers/faulty-engine.ts', import.meta.url));

describe('sbeval run --engine bridge whose only engine is retired for a lie', () => {
  it('ends: the levels no engine ran fail with "no engine left", nothing computed is lost, exit 1', async () => {
    const root = exampleCopy({ teams: ['BlockSmith'], letters: ['I', 'L'], config: 'trials: 3\nlimits:\n  engineWaitSeconds: 1\n' });
    const token = randomBytes(32).toString('hex');
    const run = sbeval(['run', root, '--engine', 'bridge'], { SBEVAL_TOKEN: token });
    const port = await portFromHint(run);
    const liar = execa(process.execPath, ['--import', 'tsx', HELPER, `ws://127.0.0.1:${port}`, token, 'liar', 'claim', '1'], {
      reject: false,
      cwd: PROJECT_ROOT,
    });
    const result = await run;
    liar.kill('SIGKILL');
    await liar;
    expect(result.exitCode, result.all).toBe(1);

    const lines = readRunLog(runLogs(root)[0]!);
    expect(lines.filter((l) => l.type === 'pool.engine-discredited').map((l) => l.engineId)).toEqual(['liar']);
    const trials = parseCsv(readFileSync(join(root, 'result', 'trials.csv'), 'utf8')).slice(1);
    expect(trials).toHaveLength(6);
    // Every trial is either what sbeval's own rules gave (the referee's run, kept) or failed for want of an engine.
    const stranded = trials.filter((r) =>
      /^BlockSmith\/[IL]\/BlockSmith_[IL]_\d: no engine left: engine liar was retired for a lie; no engine dialled in within 1 s$/.test(r[5]!),
    );
    expect(stranded.length).toBeGreaterThan(0);
    for (const row of trials) expect(stranded.includes(row) || row[4] === 'image' || row[5] === 'Code not found.', row.join(',')).toBe(true);
    // What was computed (on the referee) is kept: each finished level has its image and its cache entry.
    for (const [team, , letter, trial] of trials.filter((r) => r[4] === 'image')) {
      expect(existsSync(join(root, team!, 'images', letter!, `${team}_${letter}_${trial}.png`))).toBe(true);
      expect(existsSync(join(root, '.sbeval', 'simulate', team!, letter!, `${team}_${letter}_${trial}.json`))).toBe(true);
    }
    expect(readFileSync(join(root, 'result', 'trials.csv'), 'utf8')).not.toContain(CLAIM);
    expect(result.all).toMatch(/sbeval run: stopped with unfinished levels/);
  }, 300_000);
});
