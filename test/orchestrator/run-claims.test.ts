import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { portFromHint, sbeval } from '../helpers/bridge-run.js';
import { REFERENCE_LEVELS } from '../helpers/cli.js';
import { exampleCopy, PROJECT_ROOT, readRunLog, runLogs, snapshot } from './helpers/competition.js';
import { CLAIM } from './helpers/lies.js';

/**
 * No engine decides alone, as a user meets it: `sbeval run <root> --engine bridge` and a token holder that
 * dials in and lies. It first streams two levels as if nothing in them moved (the orchestrator cannot
 * tell such a stream from a level at rest), then answers every `load` with `error {fault: "level"}`
 * and a text of its own. Then an honest `sbeval engine` dials in. The run must end with the files of
 * an in-process run of the same folder, byte for byte: the claims were checked on the headless
 * engine, the liar was retired for its lie, the two levels it had "simulated" were not kept but run
 * again, and the level that really cannot be loaded failed with sbeval's reason, not the liar's.
 * (On 04b30a7 every claimed level failed with the liar's text, the frozen levels scored 1 and were
 * cached, and the run exited 0.)
 */
const HELPER = fileURLToPath(new URL('./helpers/faulty-engine.ts', import.meta.url));

/** Polls the run's log until a line matches (or the deadline passes: the assertions then say what is wrong). */
async function waitForLog(root: string, match: (line: Record<string, unknown> & { type: string }) => boolean, deadlineMs: number): Promise<boolean> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    const log = runLogs(root)[0];
    if (log && readRunLog(log).some(match)) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

describe('sbeval run --engine bridge with an engine that claims level faults', () => {
  it('checks every claim, retires the liar, reruns what it gave, and ends with the in-process files', async () => {
    const root = exampleCopy({ teams: ['BlockSmith', 'GridThinkers'], letters: ['I', 'L'], config: 'trials: 3\n' });
    // Team Acrobats (first in the run's order, so the liar's first levels are its): three reference
    // levels that collapse, so "nothing moved" is a lie that changes their score.
    const reference = (version: string, letter: string, name: string) => readFileSync(join(REFERENCE_LEVELS, version, 'levels', letter, `${name}.xml`), 'utf8');
    mkdirSync(join(root, 'Acrobats', 'levels', 'L'), { recursive: true });
    [reference('v1', 'U', 'V1_U_5'), reference('v2', 'L', 'V2_L_6'), reference('v1', 'L', 'V1_L_1')].forEach((xml, i) =>
      writeFileSync(join(root, 'Acrobats', 'levels', 'L', `Acrobats_L_${i + 1}.xml`), xml),
    );
    // A level that cannot be loaded (a block type the game does not have): a true level fault.
    mkdirSync(join(root, 'Broken', 'levels', 'I'), { recursive: true });
    writeFileSync(
      join(root, 'Broken', 'levels', 'I', 'Broken_I_1.xml'),
      reference('v1', 'L', 'V1_L_2').replace(/<Block type="[A-Za-z]+"/, '<Block type="RectHuge"'),
    );
    const copy = mkdtempSync(join(tmpdir(), 'sbeval-claims-reference-'));
    cpSync(root, copy, { recursive: true, preserveTimestamps: true });
    const token = randomBytes(32).toString('hex');

    const run = sbeval(['run', root, '--engine', 'bridge'], { SBEVAL_TOKEN: token });
    const port = await portFromHint(run);
    const url = `ws://127.0.0.1:${port}`;
    const liar = execa(process.execPath, ['--import', 'tsx', HELPER, url, token, 'liar', 'sly', '3'], { reject: false, cwd: PROJECT_ROOT });
    // The honest engine comes once the liar has been found out (or the deadline passed).
    await waitForLog(root, (l) => l.type === 'pool.engine-discredited', 120_000);
    const honest = sbeval(['engine', '--connect', url], { SBEVAL_TOKEN: token });
    const result = await run;
    liar.kill('SIGKILL');
    await Promise.all([liar, honest]);
    expect(result.exitCode, result.all).toBe(0);

    const lines = readRunLog(runLogs(root)[0]!);
    const liarId = lines.find((l) => l.type === 'pool.engine-added' && String(l.engineId).includes('liar'))?.engineId;
    expect(liarId).toBeDefined();
    // The claims are in the log with the liar's text, each checked elsewhere; the liar was discredited for one.
    const claims = lines.filter((l) => l.type === 'pool.attempt-failed' && l.kind === 'level-claim');
    expect(claims.some((l) => l.engineId === liarId && l.reason === CLAIM)).toBe(true);
    expect(lines.filter((l) => l.type === 'pool.engine-discredited').map((l) => l.engineId)).toEqual([liarId]);
    // What it had streamed before was not kept: those levels ran again (the run says so).
    expect(result.all).toMatch(/[1-9]\d* level\(s\) ran on an engine later retired for a lie: their results are not kept, they run again/);
    expect(result.all).not.toContain(`failed: ${CLAIM}`);
    // The summary repeats the warning that an engine was retired for a lie.
    expect(result.all).toContain(`  - simulate: engine ${String(liarId)} retired for a lie: engine ${String(liarId)} said level `);

    // Byte for byte the in-process run's files (logs and engine-keyed caches aside; the manifests differ
    // by design: they name the engine, bridge or headless, the results came from).
    const clean = await sbeval(['run', copy, '--engine', 'headless', '--workers', '2']);
    expect(clean.exitCode, clean.all).toBe(0);
    const ours = snapshot(root, ['logs', '.sbeval', 'result/manifest.json']);
    const theirs = snapshot(copy, ['logs', '.sbeval', 'result/manifest.json']);
    expect([...ours.keys()]).toEqual([...theirs.keys()]);
    for (const [file, hash] of theirs) if (file !== join('result', 'manifest.json')) expect(ours.get(file), file).toBe(hash);
    // The manifests differ only where they name the engine (the run's setting and its results' digest).
    const manifest = (dir: string) => {
      const m = JSON.parse(readFileSync(join(dir, 'result', 'manifest.json'), 'utf8'));
      return { ...m, settings: { ...m.settings, engine: undefined }, identity: { ...m.identity, simulation: m.identity.simulation.length } };
    };
    expect(manifest(root)).toEqual(manifest(copy));
    // The broken level failed with sbeval's reason; nothing carries the liar's text.
    const trials = readFileSync(join(root, 'result', 'trials.csv'), 'utf8');
    expect(trials).toMatch(/Broken,,I,1,level,.*RectHuge/);
    // The liar's levels have their true scores (they collapse), not the 1 of its frozen streams.
    expect(
      trials
        .split('\n')
        .filter((l) => l.startsWith('Acrobats,,L,'))
        .map((l) => l.split(',')[6]),
    ).not.toContain('1.0');
    expect(trials).not.toContain(CLAIM);
    expect(existsSync(join(root, 'result', 'failures.md')) && readFileSync(join(root, 'result', 'failures.md'), 'utf8').includes(CLAIM)).toBe(false);
  }, 600_000);
});
