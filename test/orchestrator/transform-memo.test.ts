import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scoreBlockers } from '../../orchestrator/result/readiness.js';
import { runConvertStage } from '../../orchestrator/stages/convert.js';
import { runExtractStage } from '../../orchestrator/stages/extract.js';
import { simulationIdentity } from '../../orchestrator/stages/level-cache.js';
import { copyExampleSources } from '../helpers/cli.js';

/**
 * The readiness check after the extract and convert stages of the same process (as in `sbeval run`)
 * compares the files with what the stages computed, remembered by content (stages/transform-memo.ts),
 * instead of transforming every trial again: what it remembers must never hide a file changed since.
 */
const root = mkdtempSync(join(tmpdir(), 'sbeval-transform-memo-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const transformBlockers = () =>
  scoreBlockers({
    root,
    competitions: [{ root }],
    prefix: 'drop_block',
    rules: '2025',
    trials: 3,
    simulation: simulationIdentity({ engine: 'headless', simulationTrials: 3, damage: 'contact-point' }),
  })
    .filter((b) => /extracted|converted/.test(b.reason))
    .map((b) => `${b.path}: ${b.reason}`);

describe('readiness after the transforms of the same process', () => {
  it('finds the stages current, then every program, level and response changed since', async () => {
    copyExampleSources(root, { teams: ['BlockSmith'], letters: ['I'] });
    await runExtractStage({ root });
    await runConvertStage({ root });
    expect(transformBlockers()).toEqual([]);

    // A program edited after it was extracted; a level edited after it was converted; a new response.
    appendFileSync(join(root, 'BlockSmith', 'intermediate', 'I', 'BlockSmith_I_1.txt'), "drop_block('b11', 3)\n");
    const level = join(root, 'BlockSmith', 'levels', 'I', 'BlockSmith_I_2.xml');
    writeFileSync(level, readFileSync(level, 'utf8').replace('</Level>', '</Level>\n'));
    writeFileSync(join(root, 'BlockSmith', 'raw', 'I', 'BlockSmith_I_3.txt'), "```python\ndrop_block('b31', 9)\n```\n");
    expect(transformBlockers()).toEqual([
      'BlockSmith/raw/I/BlockSmith_I_1.txt: responses changed since they were extracted (run sbeval extract)',
      'BlockSmith/raw/I/BlockSmith_I_3.txt: responses changed since they were extracted (run sbeval extract)',
      'BlockSmith/intermediate/I/BlockSmith_I_1.txt: programs changed since they were converted (run sbeval convert)',
      'BlockSmith/intermediate/I/BlockSmith_I_2.txt: programs changed since they were converted (run sbeval convert)',
    ]);

    await runExtractStage({ root });
    await runConvertStage({ root });
    expect(transformBlockers()).toEqual([]);
  }, 60_000);
});
