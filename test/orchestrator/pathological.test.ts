import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUDGET_REASONS, SIMULATION_BUDGET } from '../../bridge/headless/budget.js';
import { pathologicalXml } from '../headless/pathological-levels.js';
import { prng, readRunLog, runLogs, snapshot, spawnSbeval } from './helpers/competition.js';
import { descendants } from './helpers/processes.js';

/**
 * A run with 3 pathological levels among 200 normal ones finishes all 200,
 * records the 3 with their reason and exits 0; killing the engine processes 5 times during such a
 * run leaves files equal to an undisturbed run (which is also the in-process engine's).
 *
 * The 200 normal levels come from drop programs (20 letters × 10 trials of team `alpha`, converted by
 * the run); the 3 pathological ones (500 blocks on one spot, 1,000 pigs on one spot, 200 TNT on one
 * spot) are level files of team `heavy` put in place directly, as levels from outside the drop would
 * be (a team folder that starts at levels/).
 */
const LETTERS = 'ABCDEFGHIJKLMNOPQRST'.split('');

function normalProgram(random: () => number): string {
  // One to three small stacks of SquareTiny in distinct columns: stable, cheap, each level different.
  const columns = new Set<number>();
  const stacks = 1 + Math.floor(random() * 3);
  while (columns.size < stacks) columns.add(Math.floor(random() * 20));
  const calls: string[] = [];
  for (const column of columns) for (let h = 0; h < 1 + Math.floor(random() * 2); h += 1) calls.push(`drop_block('b11', ${column})`);
  return `${calls.join('\n')}\n`;
}

function pathologicalRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'sbeval-pathological-'));
  const random = prng(12);
  for (const letter of LETTERS) {
    const dir = join(root, 'alpha', 'intermediate', letter);
    mkdirSync(dir, { recursive: true });
    for (let trial = 1; trial <= 10; trial += 1) writeFileSync(join(dir, `alpha_${letter}_${trial}.txt`), normalProgram(random));
  }
  const heavy: Array<[string, string]> = [
    ['A', pathologicalXml('spot', 500)],
    ['B', pathologicalXml('pigs', 1000)],
    ['C', pathologicalXml('tnt', 200)],
  ];
  for (const [letter, xml] of heavy) {
    mkdirSync(join(root, 'heavy', 'levels', letter), { recursive: true });
    writeFileSync(join(root, 'heavy', 'levels', letter, `heavy_${letter}_1.xml`), xml);
  }
  // One trial per character for `heavy`, ten for `alpha`: T = 10, and heavy's missing trials are rows too.
  writeFileSync(join(root, 'sbeval.config.yaml'), 'trials: 10\n');
  return root;
}

function rows(root: string): string[][] {
  return readFileSync(join(root, 'result', 'trials.csv'), 'utf8')
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((line) => line.split(','));
}

describe('pathological levels in a run', () => {
  it('finish as recorded failures while every normal level completes; 5 engine kills change no file', async () => {
    const undisturbed = pathologicalRoot();
    const disturbed = mkdtempSync(join(tmpdir(), 'sbeval-pathological-killed-'));
    cpSync(undisturbed, disturbed, { recursive: true, preserveTimestamps: true });

    const clean = await spawnSbeval(['run', undisturbed, '--engine', 'headless', '--workers', '2']);
    expect(clean.stderr).not.toMatch(/sbeval: \[/);
    expect(clean.exitCode).toBe(0);
    const table = rows(undisturbed);
    const alpha = table.filter((r) => r[0] === 'alpha');
    expect(alpha).toHaveLength(200);
    expect(alpha.filter((r) => r[4] !== 'image')).toEqual([]);
    const heavy = table.filter((r) => r[0] === 'heavy' && r[3] === '1' && ['A', 'B', 'C'].includes(r[2]!));
    expect(heavy.map((r) => [r[2], r[4], r[5]])).toEqual(['A', 'B', 'C'].map((letter) => [letter, 'level', BUDGET_REASONS.step(SIMULATION_BUDGET)]));
    expect(readFileSync(join(undisturbed, 'result', 'failures.md'), 'utf8')).toContain(`3 × ${BUDGET_REASONS.step(SIMULATION_BUDGET)}`);

    // The same run on engine processes, five of which are killed with SIGKILL while it runs.
    const child = spawnSbeval(['run', disturbed, '--engine', 'headless-ws', '--workers', '2']);
    let kills = 0;
    let running = true;
    const finished = child.then((result) => {
      running = false;
      return result;
    });
    const levelsDone = () => {
      const [log] = runLogs(disturbed);
      return log && existsSync(log) ? readRunLog(log).filter((l) => l.type === 'level-done').length : 0;
    };
    const killed: string[] = [];
    while (running && kills < 5) {
      // Kill after every 25 finished levels: the kills land while levels are running, spread over the run.
      const target = 25 * (kills + 1);
      while (running && levelsDone() < target) await new Promise((resolve) => setTimeout(resolve, 50));
      const engines = descendants(child.pid as number).filter((p) => p.cmdline.includes('worker-process') && p.cmdline.includes('--instance'));
      const victim = engines[kills % Math.max(1, engines.length)];
      if (!running || !victim) continue;
      process.kill(victim.pid, 'SIGKILL');
      killed.push(victim.cmdline.replace(/^.*--instance (\S+).*$/, '$1'));
      kills += 1;
    }
    const result = await finished;
    expect(kills, `engine processes killed (${killed.join(', ')})`).toBe(5);
    expect(result.stderr).not.toMatch(/sbeval: \[/);
    expect(result.exitCode).toBe(0);
    const lines = readRunLog(runLogs(disturbed)[0]!);
    expect(lines.filter((l) => l.type === 'pool.attempt-failed').length).toBeGreaterThan(0);

    // Every official file and result/ equal the undisturbed (in-process) run's; only logs, the
    // engine-kind-specific cache keys and the manifest that names the engine differ.
    const a = snapshot(undisturbed, ['logs', '.sbeval', 'result/manifest.json']);
    const b = snapshot(disturbed, ['logs', '.sbeval', 'result/manifest.json']);
    expect([...b.keys()]).toEqual([...a.keys()]);
    for (const [file, hash] of a) expect(b.get(file), file).toBe(hash);
  }, 300_000);
});
