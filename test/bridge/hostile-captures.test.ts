import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../bridge/headless/order.js';
import { portFromHint, sbeval } from '../helpers/bridge-run.js';
import { exampleCopy, readRunLog, runLogs, snapshot } from '../orchestrator/helpers/competition.js';
import { BLOAT_BYTES, runSession, type SessionKind } from './hostile/sessions.js';

/**
 * The hostile suite's capture liars, each alone against a live `sbeval run --engine bridge`: token
 * holders that simulate honestly and lie about the image only. One returns its first capture for
 * every level, one pads each capture with a 4 MiB ancillary chunk. Either way the run ends with the
 * files of an in-process run, byte for byte: the swapper is found out at its first swapped image,
 * discredited, and what it gave runs again (the referee and an honest engine); the padded captures
 * are kept as their pixels, encoded again, without the chunk.
 */
const CONFIG = 'trials: 2\nlimits:\n  stallSeconds: 5\n  engineRetries: 10\n';

function copyOf(root: string): string {
  const copy = mkdtempSync(join(tmpdir(), 'sbeval-captures-reference-'));
  cpSync(root, copy, { recursive: true, preserveTimestamps: true });
  return copy;
}

function images(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.png') && dir.split(/[\\/]/).includes('images')) out.push(path);
    }
  };
  walk(root);
  return out;
}

async function expectSameFiles(root: string, reference: string): Promise<void> {
  const clean = await sbeval(['run', reference, '--engine', 'headless', '--workers', '1']);
  expect(clean.exitCode, clean.all).toBe(0);
  // The manifests differ by design: they name the engine (bridge, headless) the results came from.
  const ours = snapshot(root, ['logs', '.sbeval', 'result/manifest.json']);
  const theirs = snapshot(reference, ['logs', '.sbeval', 'result/manifest.json']);
  expect([...ours.keys()]).toEqual([...theirs.keys()]);
  for (const [file, hash] of theirs) expect(ours.get(file), file).toBe(hash);
}

async function liarRun(kind: SessionKind, honestAfterDiscredit: boolean): Promise<{ root: string; reference: string; all: string }> {
  const root = exampleCopy({ teams: ['BlockSmith', 'GridThinkers'], letters: ['I', 'L'], config: CONFIG });
  const reference = copyOf(root);
  const token = randomBytes(32).toString('hex');
  const run = sbeval(['run', root, '--engine', 'bridge'], { SBEVAL_TOKEN: token });
  const port = await portFromHint(run);
  const liar = runSession({ port, token }, kind, mulberry32(7));
  if (honestAfterDiscredit) {
    await liar;
    const honest = sbeval(['engine', '--connect', `ws://127.0.0.1:${port}`], { SBEVAL_TOKEN: token });
    const result = await run;
    await honest;
    expect(result.exitCode, result.all).toBe(0);
    return { root, reference, all: String(result.all) };
  }
  const result = await run;
  await liar;
  expect(result.exitCode, result.all).toBe(0);
  return { root, reference, all: String(result.all) };
}

describe('engines that lie about their images', () => {
  it('an engine that returns its first capture for every level is discredited; the run ends with the in-process files', async () => {
    const { root, reference, all } = await liarRun('lie-swap-capture', true);
    const log = readRunLog(runLogs(root)[0]!);
    const lies = log.filter((l) => l.type === 'pool.engine-discredited');
    expect(lies).toHaveLength(1);
    expect(String(lies[0]!.reason)).toMatch(/capture does not show the final state it streamed: [\d.]+ % of the black pixels differ/);
    expect(all).toMatch(/retired for a lie/);
    await expectSameFiles(root, reference);
  }, 600_000);

  it('captures padded with a 4 MiB ancillary chunk are kept as their pixels only', async () => {
    const { root, reference } = await liarRun('lie-bloat-capture', false);
    const written = images(root);
    expect(written.length).toBeGreaterThan(0);
    for (const file of written) expect(statSync(file).size, file).toBeLessThan(BLOAT_BYTES / 16);
    await expectSameFiles(root, reference);
  }, 600_000);
});
