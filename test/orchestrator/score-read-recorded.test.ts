import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveSettings } from '../../orchestrator/config/index.js';
import type { ResultContributor } from '../../orchestrator/result/contributors.js';
import { hashInputs } from '../../orchestrator/result/inputs.js';
import { writeResults } from '../../orchestrator/result/step.js';
import { assertReadAsRecorded, readScoreFolder } from '../../orchestrator/stages/score.js';
import { randomCompetition, writeCompetition } from '../scoring/uncertainty-folder.js';

/**
 * The scores come from one reading of the folder and the manifest from one hashing of it, made after
 * (`sbeval score` reads before its check; `run` reads in its score step). A file another process
 * writes in between would give results the manifest does not describe: the score stops and names it.
 */
const tmp = mkdtempSync(join(tmpdir(), 'sbeval-score-read-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function folder(name: string): string {
  const root = join(tmp, name);
  writeCompetition(root, randomCompetition({ teams: ['north', 'south'], letters: ['A', 'I'], trials: 3, seed: 7 }), { rules: 2024, trials: 3 });
  return root;
}

describe('a score holds its reading of the folder to the manifest made after it', () => {
  it('an untouched folder scores: the reading took every per-letter file, each with the bytes the manifest records', async () => {
    const root = folder('untouched');
    const read = readScoreFolder({ root, rules: '2024', trials: 3 });
    expect(read.read.size).toBe(2 * 2 * 3); // 2 teams × 2 letters × stability, similarity, diversity
    expect(() => assertReadAsRecorded(read, root, hashInputs(root, [root], undefined, []))).not.toThrow();
    const scored = await read.score();
    expect(scored.ranking.map((r) => r.team).sort()).toEqual(['north', 'south']);
  });

  it('a file changed after the reading stops the score and is named', () => {
    const root = folder('changed');
    const read = readScoreFolder({ root, rules: '2024', trials: 3 });
    writeFileSync(join(root, 'south', 'stability', 'I.json'), '{"raws": []}');
    expect(() => assertReadAsRecorded(read, root, hashInputs(root, [root], undefined, []))).toThrow(
      /the folder changed while it was scored: south\/stability\/I\.json$/,
    );
  });

  it('a file removed after the reading stops the score too, and many are summed up', () => {
    const root = folder('removed');
    const read = readScoreFolder({ root, rules: '2024', trials: 3 });
    for (const stage of ['stability', 'similarity', 'diversity']) unlinkSync(join(root, 'north', stage, 'A.json'));
    unlinkSync(join(root, 'north', 'stability', 'I.json'));
    expect(() => assertReadAsRecorded(read, root, hashInputs(root, [root], undefined, []))).toThrow(
      /the folder changed while it was scored: north\/stability\/A\.json, north\/stability\/I\.json, north\/similarity\/A\.json and 1 more$/,
    );
  });

  it('2025: paths inside model folders match the manifest’s', () => {
    const root = join(tmp, 'models');
    for (const [m, model] of ['gemma', 'qwen'].entries()) {
      writeCompetition(join(root, model), randomCompetition({ teams: ['x', 'y'], letters: ['A'], trials: 3, seed: 20 + m, cls: 8 }), {
        rules: 2025,
        trials: 3,
      });
    }
    const read = readScoreFolder({ root, rules: '2025', trials: 3 });
    expect(read.read.size).toBe(2 * 2 * 3);
    expect(() => assertReadAsRecorded(read, root, hashInputs(root, [join(root, 'gemma'), join(root, 'qwen')], undefined, []))).not.toThrow();
  });
});

describe("the judges' and raters' files are held to the manifest too", () => {
  /** A raters' answers file the report reads through its contributor; `save` lands while it is read. */
  function answers(root: string, save?: () => void): ResultContributor {
    const file = join(root, 'result', 'survey', 'answers.json');
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, '{"ratings":[1]}\n');
    return {
      inputs: () => [{ kind: 'survey', path: file }],
      section: () => {
        const text = readFileSync(file, 'utf8');
        save?.();
        return { id: 'survey', title: 'Survey', markdown: `answers ${text.trim()}`, html: `<p>${text.trim()}</p>` };
      },
    };
  }
  const step = (root: string, contributor: ResultContributor) => {
    const settings = resolveSettings(root, { rules: '2024', trials: 3 }, { command: 'score' });
    return writeResults({
      settings,
      contributors: [contributor],
      command: 'score',
      record: {},
      options: { root, rules: '2024', trials: 3, uncertainty: { enabled: false, resamples: 1, seed: 1 } },
    });
  };

  it('read as recorded: the report holds the answers the manifest hashes', async () => {
    const root = folder('answers');
    const outcome = await step(root, answers(root));
    expect(outcome.status).toBe('written');
    expect(outcome.manifest.inputs['result/survey/answers.json']).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(join(root, 'result', 'report.md'), 'utf8')).toContain('answers {"ratings":[1]}');
  });

  it('a save landing between the hashing and the reading stops the score, naming the file; nothing is scored', async () => {
    const root = folder('answers-saved');
    const file = join(root, 'result', 'survey', 'answers.json');
    await expect(
      step(
        root,
        answers(root, () => writeFileSync(file, '{"ratings":[1,2]}\n')),
      ),
    ).rejects.toThrow(/the folder changed while it was scored: result\/survey\/answers\.json$/);
    expect(() => readFileSync(join(root, 'result', 'report.md'))).toThrow();
  });
});
