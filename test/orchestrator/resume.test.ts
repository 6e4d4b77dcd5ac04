import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exampleCopy, prng, readRunLog, runLogs, snapshot, spawnSbeval } from './helpers/competition.js';

/**
 * Kill `sbeval run` with SIGKILL at seeded moments (several seeds), run it again until it finishes:
 * the files must equal those of an uninterrupted run, and a level an interrupted run had finished (its
 * cache committed) must not be simulated again. The moment is an event, not a delay (which a loaded
 * machine could overshoot, letting the run finish): right after the start, or once a seeded number of
 * levels more is committed, always before the run can have finished.
 */
const SEEDS = [11, 23, 37];
const KILLS_PER_SEED = 2;
const ARGS = ['--workers', '2'];
const competition = () => exampleCopy({ teams: ['BlockSmith', 'PromptPilots'], letters: ['I', 'L', 'T'] });

/** Levels finished so far: `.sbeval/simulate/<team>/<C>/<name>.json` → `<team>/<C>/<name>`. */
function finishedLevels(root: string): Map<string, number> {
  const dir = join(root, '.sbeval', 'simulate');
  const done = new Map<string, number>();
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.json')) done.set(relative(dir, path).replace(/\.json$/, ''), statSync(path).mtimeMs);
    }
  };
  walk(dir);
  return done;
}

describe('sbeval run after SIGKILL', () => {
  it('resumes to the same files as an uninterrupted run without recomputing finished levels', async () => {
    const reference = competition();
    const first = await spawnSbeval(['run', reference, ...ARGS]);
    expect(first.exitCode).toBe(0);
    const expected = snapshot(reference);
    const levels = finishedLevels(reference).size;
    expect([...expected.keys()].some((f) => f.startsWith('.sbeval/simulate/'))).toBe(true);
    expect(expected.has('result/trials.csv')).toBe(true);

    for (const seed of SEEDS) {
      const random = prng(seed);
      const root = competition();
      let killed = 0;
      for (let k = 0; k < KILLS_PER_SEED; k += 1) {
        const before = finishedLevels(root);
        const logsBefore = new Set(runLogs(root));
        // 0 more: while the process loads; otherwise with levels still to simulate (the last one left
        // unfinished, so the run cannot have ended before the kill).
        const more = Math.floor(random() * Math.max(1, levels - before.size - 1));
        const child = spawnSbeval(['run', root, ...ARGS]);
        const kill = killOnceCommitted(child, root, before.size + more);
        const result = await child;
        kill.stop();
        if (result.signal === 'SIGKILL') killed += 1;
        assertNothingRecomputed(root, before, logsBefore, `seed ${seed}, kill ${k + 1} once ${more} more level(s) were committed`);
      }
      expect(killed, `seed ${seed}: no run was actually interrupted`).toBeGreaterThan(0);

      const before = finishedLevels(root);
      const logsBefore = new Set(runLogs(root));
      const last = await spawnSbeval(['run', root, ...ARGS]);
      expect(last.exitCode, last.stderr).toBe(0);
      assertNothingRecomputed(root, before, logsBefore, `seed ${seed}, final run`);
      const actual = snapshot(root);
      expect([...actual.keys()]).toEqual([...expected.keys()]);
      for (const [file, hash] of expected) expect(actual.get(file), `${file} (seed ${seed})`).toBe(hash);
    }
  }, 400_000);
});

/**
 * Sends SIGKILL to `child` as soon as `target` levels are committed under `root` (polled every 5 ms; at
 * once when that many already are). `stop()` ends the polling.
 */
function killOnceCommitted(child: ReturnType<typeof spawnSbeval>, root: string, target: number): { stop(): void } {
  const poll = (): void => {
    if (finishedLevels(root).size >= target) child.kill('SIGKILL');
    else timer = setTimeout(poll, 5);
  };
  let timer: NodeJS.Timeout | undefined;
  poll();
  return { stop: () => clearTimeout(timer) };
}

/**
 * A level finished before a run (its cache existed) is reported by that run as `level-cached`, never
 * enters `simulating` again, and its cache file is not rewritten.
 */
function assertNothingRecomputed(root: string, before: Map<string, number>, logsBefore: Set<string>, what: string): void {
  const newLogs = runLogs(root).filter((f) => !logsBefore.has(f));
  const after = finishedLevels(root);
  for (const [level, mtime] of before) expect(after.get(level), `${what}: cache of ${level} rewritten`).toBe(mtime);
  for (const file of newLogs) {
    const lines = readRunLog(file);
    const simulated = new Set(lines.filter((l) => l.type === 'transition' && l.to === 'simulating').map((l) => String(l.level)));
    const cached = new Set(lines.filter((l) => l.type === 'level-cached').map((l) => String(l.level)));
    for (const level of before.keys()) {
      expect(simulated.has(level), `${what}: finished level ${level} simulated again`).toBe(false);
      // A run that got as far as planning the levels says it skipped each finished one.
      if (lines.some((l) => l.type === 'stage-start' && l.stage === 'levels')) expect(cached.has(level), `${what}: ${level} not reported as cached`).toBe(true);
    }
  }
}
