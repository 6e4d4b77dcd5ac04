import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listCompetition, trialFates } from '../../orchestrator/layout/trial-listing.js';
import { type TrialRow, trialsCsv } from '../../orchestrator/run/accounting.js';

/** The viewer's list of a competition folder includes the trials that never became levels, with their reasons. */
const tmp = mkdtempSync(join(tmpdir(), 'sbeval-viewer-list-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const row = (trial: string, stageReached: TrialRow['stageReached'], reason: string, model = ''): TrialRow => ({
  team: 'a',
  model,
  letter: 'L',
  trial,
  stageReached,
  reason,
  stability: '',
  similarity: '',
});

describe('viewer competition list', () => {
  it('takes every trial’s fate from the run’s result/trials.csv (single-model rows), quoted and formula-neutralized reasons as written', () => {
    const root = join(tmp, 'run');
    mkdirSync(join(root, 'a', 'levels', 'L'), { recursive: true });
    writeFileSync(join(root, 'a', 'levels', 'L', 'a_L_1.xml'), '<Level/>');
    mkdirSync(join(root, 'result'), { recursive: true });
    const rows = [
      row('1', 'image', ''),
      row('2', 'raw', 'Code not found.'),
      row('3', 'intermediate', 'odd, "quoted" reason'),
      row('4', 'none', 'other model', 'm1'),
      row('5', 'raw', '=1+1 is no drop_block call'),
    ];
    writeFileSync(join(root, 'result', 'trials.csv'), trialsCsv(rows));
    expect(trialFates(root).map((f) => `${f.trial}:${f.reason}`)).toEqual([
      '1:',
      '2:Code not found.',
      '3:odd, "quoted" reason',
      '5:=1+1 is no drop_block call',
    ]);
    const listed = listCompetition(root);
    expect(listed.map((t) => [t.name, t.levelPath !== undefined, t.reason ?? ''])).toEqual([
      ['a_L_1', true, ''],
      ['a_L_2', false, 'Code not found.'],
      ['a_L_3', false, 'odd, "quoted" reason'],
      ['a_L_5', false, '=1+1 is no drop_block call'],
    ]);
  });

  it('reads the fates from the files with the folder’s own T when no run wrote the accounting', () => {
    const root = join(tmp, 'files');
    mkdirSync(join(root, 'a', 'raw', 'L'), { recursive: true });
    writeFileSync(join(root, 'a', 'raw', 'L', 'a_L_1.txt'), 'no code here');
    writeFileSync(join(root, 'sbeval.config.yaml'), 'trials: 2\n');
    expect(listCompetition(root).map((t) => [t.name, t.reason])).toEqual([
      ['a_L_1', 'Code not found.'],
      ['a_L_2', 'no response (the trial was never generated)'],
    ]);
  });
});
