import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { TRIAL_COLUMNS } from '../../orchestrator/run/index.js';
import { runSimulateStage } from '../../orchestrator/stages/simulate.js';
import { parseStabilityJson } from '../../scoring/formats/stability.js';
import { formatUnityFloat } from '../../scoring/formats/unity-float.js';
import { exampleCopy, readRunLog, runLogs, spawnSbeval } from './helpers/competition.js';

/**
 * `sbeval run` on the example competition through the real CLI, checked stage by stage against the
 * official package (chatgpt4pcg@1.4.1, test oracle) for extraction and conversion, against the
 * simulate stage (`sbeval simulate`, run separately on the same levels) for stability and images,
 * and against the spec for the failure accounting.
 */
const official = createRequire(import.meta.url)('chatgpt4pcg') as {
  extractCode(text: string, prefix?: string): string | null;
  convertTextToXML(text: string, prefix?: string): string;
};

const list = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => !f.startsWith('.'))
        .sort()
    : [];

describe('sbeval run', () => {
  it('takes the example competition from raw responses to result/ with official files at every stage', async () => {
    const root = exampleCopy();
    const run = await spawnSbeval(['run', root, '--workers', '2']);
    expect(run.stderr).not.toMatch(/sbeval: \[/);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/sbeval run: finished/);
    expect(run.stdout).toContain('sbeval model fetch pittawat/vit-base-uppercase-english-characters');

    // Expected fate of every trial, computed with the official package.
    type Expected = { team: string; letter: string; trial: number; code: string | null; xml?: string; error?: string };
    const expected: Expected[] = [];
    for (const team of list(root).filter((t) => !['logs', 'result', 'sbeval.config.yaml'].includes(t))) {
      for (const letter of list(join(root, team, 'raw'))) {
        for (const file of list(join(root, team, 'raw', letter))) {
          const text = readFileSync(join(root, team, 'raw', letter, file), 'utf8');
          const code = official.extractCode(text, 'drop_block');
          const entry: Expected = { team, letter, trial: Number(file.replace(/^.*_(\d+)\.txt$/, '$1')), code };
          if (code !== null) {
            try {
              entry.xml = official.convertTextToXML(code, 'drop_block(');
            } catch (error) {
              entry.error = (error as Error).message;
            }
          }
          expected.push(entry);
        }
      }
    }
    expect(expected).toHaveLength(45);

    for (const e of expected) {
      const base = `${e.team}_${e.letter}_${e.trial}`;
      const intermediate = join(root, e.team, 'intermediate', e.letter, `${base}.txt`);
      const level = join(root, e.team, 'levels', e.letter, `${base}.xml`);
      const image = join(root, e.team, 'images', e.letter, `${base}.png`);
      expect(existsSync(intermediate), intermediate).toBe(e.code !== null);
      if (e.code !== null) expect(readFileSync(intermediate, 'utf8')).toBe(e.code);
      expect(existsSync(level), level).toBe(e.xml !== undefined);
      if (e.xml !== undefined) {
        expect(readFileSync(level, 'utf8')).toBe(e.xml);
        const meta = await sharp(image).metadata();
        expect([meta.format, meta.width, meta.height]).toEqual(['png', 1024, 1024]);
      } else expect(existsSync(image)).toBe(false);
    }

    // Stability: the evaluator's files, one per character with levels, identical to `sbeval simulate`'s.
    const check = mkdtempSync(join(tmpdir(), 'sbeval-run-check-'));
    for (const team of new Set(expected.map((e) => e.team))) cpSync(join(root, team, 'levels'), join(check, team, 'levels'), { recursive: true });
    await runSimulateStage({ root: check, engines: [new HeadlessEngine()] });
    for (const team of new Set(expected.map((e) => e.team))) {
      expect(list(join(root, team, 'stability'))).toEqual(list(join(check, team, 'stability')));
      for (const file of list(join(check, team, 'stability'))) {
        const ours = readFileSync(join(root, team, 'stability', file), 'utf8');
        expect(ours).toBe(readFileSync(join(check, team, 'stability', file), 'utf8'));
        const parsed = parseStabilityJson(ours);
        const letter = file.replace('.json', '');
        expect(parsed.dataCount).toBe(expected.filter((e) => e.team === team && e.letter === letter && e.xml !== undefined).length);
      }
      for (const letter of list(join(check, team, 'images'))) {
        for (const png of list(join(check, team, 'images', letter))) {
          expect(readFileSync(join(root, team, 'images', letter, png)).equals(readFileSync(join(check, team, 'images', letter, png)))).toBe(true);
        }
      }
    }

    // Failure accounting: one row per trial with the stage reached and the official reason.
    const csv = readFileSync(join(root, 'result', 'trials.csv'), 'utf8')
      .trimEnd()
      .split('\n');
    expect(csv[0]).toBe(TRIAL_COLUMNS.join(','));
    const rows = csv.slice(1).map((line) => line.split(','));
    expect(rows).toHaveLength(45);
    for (const e of expected) {
      const row = rows.find((r) => r[0] === e.team && r[2] === e.letter && r[3] === String(e.trial));
      expect(row, `${e.team} ${e.letter} ${e.trial}`).toBeDefined();
      const [, model, , , stage, reason, stability, similarity] = row!;
      expect(model).toBe('');
      if (e.code === null) expect([stage, reason]).toEqual(['raw', 'Code not found.']);
      else if (e.error !== undefined) expect([stage, reason]).toEqual(['intermediate', e.error]);
      else {
        expect([stage, reason, similarity]).toEqual(['image', '', 'unavailable']);
        const file = parseStabilityJson(readFileSync(join(root, e.team, 'stability', `${e.letter}.json`), 'utf8'));
        const entry = file.raws.find((r) => r.tag.endsWith(`${e.team}_${e.letter}_${e.trial}.xml`));
        expect(stability).toBe(formatUnityFloat(entry!.score));
      }
    }
    const failures = readFileSync(join(root, 'result', 'failures.md'), 'utf8');
    const never = expected.filter((e) => e.xml === undefined).length;
    expect(failures).toContain(`45 trials; ${never} (${((100 * never) / 45).toFixed(1)}%) never became a level`);
    // No similarity model: no score files pretend to exist; the manifest says why.
    expect(list(join(root, 'result'))).toEqual(['failures.md', 'manifest.json', 'trials.csv']);
    expect(JSON.parse(readFileSync(join(root, 'result', 'manifest.json'), 'utf8')).score).toMatchObject({
      written: false,
      reason: expect.stringMatching(/^images without a similarity file/),
    });

    // The run log: every simulated level went through the machine's states in order.
    const [logFile] = runLogs(root);
    const lines = readRunLog(logFile!);
    expect(lines[0]!.type).toBe('run-start');
    expect(lines.at(-1)!.type).toBe('run-end');
    for (const e of expected.filter((x) => x.xml !== undefined)) {
      const id = `${e.team}/${e.letter}/${e.team}_${e.letter}_${e.trial}`;
      const path = lines.filter((l) => l.type === 'transition' && l.level === id).map((l) => l.to);
      expect(path.filter((v, i) => v !== path[i - 1])).toEqual(['queued', 'extracting', 'converting', 'simulating', 'capturing', 'scoringReady', 'done']);
    }
  }, 180_000);

  it('prints machine-readable progress with --json', async () => {
    const root = exampleCopy({ teams: ['BlockSmith'], letters: ['I'] });
    const run = await spawnSbeval(['run', root, '--workers', '1', '--json']);
    expect(run.exitCode).toBe(0);
    const records = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records.filter((r) => r.type === 'start').map((r) => r.stage)).toEqual(['extract', 'convert', 'simulate']);
    const summary = records.at(-1);
    expect(summary.type).toBe('summary');
    expect(summary.levels).toMatchObject({ total: 3, simulated: 3, cached: 0, failed: 0 });
    expect(summary.stages.find((s: { stage: string }) => s.stage === 'similarity').status).toBe('unavailable');
  });

  it('refuses a config that names a team outside the root, naming the key', async () => {
    const root = exampleCopy({ teams: ['BlockSmith'], letters: ['I'], config: 'teams: ["x/../../BlockSmith"]\n' });
    const run = await spawnSbeval(['run', root]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/key "teams\.0": team name "x\/\.\.\/\.\.\/BlockSmith" contains a path separator/);
    expect(existsSync(join(root, 'logs'))).toBe(false);
  });

  it('refuses folder names that could lead outside the root: a linked team folder, a linked response, a control character', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'sbeval-outside-'));
    mkdirSync(join(outside, 'raw', 'I'), { recursive: true });
    writeFileSync(join(outside, 'raw', 'I', 'x_I_1.txt'), 'not ours');

    const linkedTeam = exampleCopy({ teams: ['BlockSmith'], letters: ['I'] });
    symlinkSync(outside, join(linkedTeam, 'escape'));
    const linkedFile = exampleCopy({ teams: ['BlockSmith'], letters: ['I'] });
    symlinkSync(join(outside, 'raw', 'I', 'x_I_1.txt'), join(linkedFile, 'BlockSmith', 'raw', 'I', 'BlockSmith_I_9.txt'));
    const control = exampleCopy({ teams: ['BlockSmith'], letters: ['I'] });
    mkdirSync(join(control, 'bad\tteam', 'raw', 'I'), { recursive: true });
    const [team, file, named] = await Promise.all([spawnSbeval(['run', linkedTeam]), spawnSbeval(['run', linkedFile]), spawnSbeval(['run', control])]);
    expect(team.exitCode).toBe(2);
    expect(team.stderr).toMatch(/escape is a symbolic link/);
    expect(file.exitCode).toBe(2);
    expect(file.stderr).toMatch(/BlockSmith_I_9\.txt is a symbolic link/);
    expect(named.exitCode).toBe(2);
    expect(named.stderr).toMatch(/contains a path separator or control character/);

    // Nothing was written outside the root.
    expect(readdirSync(outside)).toEqual(['raw']);
    expect(readdirSync(join(outside, 'raw', 'I'))).toEqual(['x_I_1.txt']);
  });

  it('stops on SIGINT with exit code 130, and the next run finishes the work', async () => {
    const root = exampleCopy({ teams: ['BlockSmith', 'GridThinkers'], letters: ['I', 'L'] });
    const child = spawnSbeval(['run', root, '--workers', '1']);
    let sent = false;
    child.stderr?.on('data', (chunk: Buffer) => {
      if (!sent && chunk.toString().includes('simulate: started')) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    const stopped = await child;
    expect(sent).toBe(true);
    expect(stopped.exitCode).toBe(130);
    expect(stopped.stdout).toMatch(/cancelled; run the same command again to continue/);
    const [first] = runLogs(root);
    expect(readRunLog(first!).map((l) => l.type)).toContain('run-cancelled');
    expect(existsSync(join(root, 'result', 'trials.csv'))).toBe(false);

    const again = await spawnSbeval(['run', root, '--workers', '1']);
    expect(again.exitCode).toBe(0);
    const rows = readFileSync(join(root, 'result', 'trials.csv'), 'utf8')
      .trimEnd()
      .split('\n')
      .slice(1);
    expect(rows).toHaveLength(12);
  }, 120_000);
});
