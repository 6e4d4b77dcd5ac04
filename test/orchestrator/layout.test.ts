import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../orchestrator/layout/atomic.js';
import { compareTrialFiles, listFiles, listTeams, trialIndexFromName } from '../../orchestrator/layout/competition.js';
import { checkName, modelFolderName } from '../../orchestrator/layout/names.js';
import { formatSummary, StageLog } from '../../orchestrator/layout/stage-log.js';

describe('competition layout', () => {
  it('reads the trial index the way the official scoring script does', () => {
    expect(trialIndexFromName('team_A_7.png')).toBe(7);
    expect(trialIndexFromName('competition\\team\\levels\\A\\my_team_A_10.xml')).toBe(10);
    expect(trialIndexFromName('team_A_x.png')).toBeNaN();
  });

  it('sorts trial files by index, not by text', () => {
    expect(['t_A_10.txt', 't_A_2.txt', 't_A_1.txt'].sort(compareTrialFiles)).toEqual(['t_A_1.txt', 't_A_2.txt', 't_A_10.txt']);
  });

  it('rejects names that could leave the competition root', () => {
    expect(checkName('team', '..')).toMatch(/relative/);
    expect(checkName('team', 'a/b')).toMatch(/separator/);
    expect(checkName('team', '.hidden')).toMatch(/starts with/);
    expect(checkName('team', 'team_1')).toBeUndefined();
    expect(modelFolderName('qwen2.5:32b-instruct-fp16')).toBe('qwen2.5_32b-instruct-fp16');
  });

  it('lists teams without logs/result/hidden folders and refuses symbolic links', () => {
    const root = mkdtempSync(join(tmpdir(), 'sbeval-layout-'));
    for (const d of ['beta', 'Alpha', 'logs', 'result', '.git']) mkdirSync(join(root, d));
    expect(listTeams(root)).toEqual(['Alpha', 'beta']);
    symlinkSync(tmpdir(), join(root, 'escape'));
    expect(() => listTeams(root)).toThrow(/symbolic link/);
  });

  it('writes atomically and hides interrupted temporaries from listings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sbeval-atomic-'));
    writeFileSync(join(dir, '.t_A_1.xml.123.4.tmp'), 'half');
    await writeFileAtomic(join(dir, 't_A_1.xml'), '<Level/>');
    expect(listFiles(dir)).toEqual(['t_A_1.xml']);
    expect(readFileSync(join(dir, 't_A_1.xml'), 'utf8')).toBe('<Level/>');
  });

  it('makes a folder again when it was removed after an earlier write into it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sbeval-atomic-'));
    const dir = join(root, 'team', 'images', 'A');
    await writeFileAtomic(join(dir, 'a.png'), Uint8Array.from([1, 2, 3]));
    rmSync(join(root, 'team'), { recursive: true });
    await writeFileAtomic(join(dir, 'b.json'), '{}\n', { durable: false });
    expect(readdirSync(dir)).toEqual(['b.json']);
    expect(readFileSync(join(dir, 'b.json'), 'utf8')).toBe('{}\n');
    // A file larger than one write call may take is written whole.
    const big = new Uint8Array(64 * 1024 * 1024 + 5).map((_, i) => i % 251);
    await writeFileAtomic(join(dir, 'big.bin'), big);
    expect(readFileSync(join(dir, 'big.bin')).equals(Buffer.from(big))).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['b.json', 'big.bin']);
  });

  it('logs trials in the official line format and summarises failures per reason', () => {
    const root = mkdtempSync(join(tmpdir(), 'sbeval-log-'));
    const log = new StageLog(root, 'levels', new Date('2024-02-06T01:02:03.456Z'), () => new Date('2024-02-06T01:02:04.000Z'));
    log.trial('t', 'A', 't_A_1.txt', { ok: true });
    log.trial('t', 'A', 't_A_2.txt', { ok: false, reason: 'Height boundary is intruded.' });
    expect(readdirSync(join(root, 'logs'))).toEqual(['levels_log_2024-02-06T01_02_03.456Z.txt']);
    expect(readFileSync(log.file, 'utf8')).toBe(
      '[2024-02-06T01:02:04.000Z] Processing - team: t - character: A - trial: t_A_1.txt - Succeed\n' +
        '[2024-02-06T01:02:04.000Z] Processing - team: t - character: A - trial: t_A_2.txt - Failed - Height boundary is intruded.\n',
    );
    expect(formatSummary(log.result())).toContain('1 × Height boundary is intruded.');
  });
});
