import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyExampleSources } from '../helpers/cli.js';
import { spawnSbeval } from './helpers/competition.js';

/**
 * Ctrl-C while `sbeval run` simulates: the summary's trial counts add up to the total and agree with the
 * stage rows above them — the trials extract and convert already failed (no code, a program that does
 * not convert) are failed in the levels line too, not "not run"; only levels whose fate is unknown are.
 */
const base = mkdtempSync(join(tmpdir(), 'sbeval-run-interrupt-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('Ctrl-C in sbeval run', () => {
  it('counts every trial once, the verdicts the folder holds as failed', async () => {
    const root = join(base, 'example');
    copyExampleSources(root);
    writeFileSync(join(root, 'sbeval.config.yaml'), 'trials: 3\n');
    const child = spawnSbeval(['run', root, '--workers', '1']);
    const cache = join(root, '.sbeval', 'simulate');
    const deadline = Date.now() + 120_000;
    const done = () => existsSync(cache) && readdirSync(cache, { recursive: true }).some((f) => String(f).endsWith('.json'));
    while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(done()).toBe(true);
    child.kill('SIGINT');
    const result = await child;
    const out = String(result.stdout);
    const line =
      /^levels: (\d+) trials: (\d+) done now, (\d+) already done by an earlier run, (\d+) failed[^,]*(?:, (\d+) not run: interrupted before they started[^,;]*)?;/m.exec(
        out,
      );
    expect(line, out).not.toBeNull();
    const [total, doneNow, cached, failed, notRun] = line!.slice(1, 6).map((n) => Number(n ?? 0));
    expect(doneNow! + cached! + failed! + notRun!).toBe(total);
    expect(total).toBe(45);
    // The example's responses: 5 without code (extract), 3 programs the converter refuses (convert).
    const rowFailed = (stage: string) => Number(new RegExp(`^${stage} +\\S+ +\\d+ ok, (\\d+) failed`, 'm').exec(out)?.[1] ?? NaN);
    expect(rowFailed('extract') + rowFailed('convert')).toBe(8);
    expect(failed).toBeGreaterThanOrEqual(8);
  }, 240_000);
});
