import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dropBlocks } from '../../../levels/drop.js';
import { programToXml } from '../../../levels/pipeline.js';
import { parseDropProgram } from '../../../levels/program.js';
import { listJudgedLevels, loadView } from '../../../llm/judges/levels.js';
import { parseRubricText, rubricOf } from '../../../llm/judges/rubric-file.js';
import { gridView } from '../../../llm/judges/scoring/grid-view.js';

/** What the judges are shown of each level of a folder, and rubric files. */
const base = mkdtempSync(join(tmpdir(), 'sbeval-judge-levels-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function put(path: string, text: string | Uint8Array): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

describe('levels as the judges see them', () => {
  const root = join(base, 'c');
  const program = "drop_block('b31', 5)\ndrop_block('b11', 5)";
  put(join(root, 'T', 'raw', 'A', 'T_A_1.txt'), 'no code here');
  put(join(root, 'T', 'raw', 'A', 'T_A_2.txt'), `\`\`\`python\n${program}\n\`\`\``);
  put(join(root, 'T', 'intermediate', 'A', 'T_A_2.txt'), program);
  put(join(root, 'T', 'levels', 'A', 'T_A_2.xml'), programToXml(program));
  put(join(root, 'T', 'raw', 'A', 'T_A_3.txt'), `\`\`\`python\n${program}\n\`\`\``);
  put(join(root, 'T', 'raw', 'A', 'T_A_4.txt'), "```python\ndrop_block('b31', 0)\n```");
  put(join(root, 'T', 'images', 'A', 'T_A_2.png'), new Uint8Array([137, 80, 78, 71]));
  put(join(root, 'T', 'images', 'A', 'T_A_2_raw.png'), new Uint8Array([0]));

  it('lists every trial with a file in any stage, by trial number, and honours --trials', () => {
    const levels = listJudgedLevels(root);
    expect(levels.map((l) => [l.name, l.raw !== undefined, l.intermediate !== undefined, l.level !== undefined, l.image !== undefined])).toEqual([
      ['T_A_1', true, false, false, false],
      ['T_A_2', true, true, true, true],
      ['T_A_3', true, false, false, false],
      ['T_A_4', true, false, false, false],
    ]);
    expect(listJudgedLevels(root, { trials: 2 }).map((l) => l.name)).toEqual(['T_A_1', 'T_A_2']);
    expect(() => listJudgedLevels(root, { teams: ['Nobody'] })).toThrow(/no team folder "Nobody"/);
  });

  it('shows the image, the XML or the drop grid, and says why when there is nothing to show', async () => {
    const [one, two, three, four] = listJudgedLevels(root);
    const image = await loadView(two!, 'image', 'drop_block');
    expect(image).toEqual({ kind: 'image', png: new Uint8Array([137, 80, 78, 71]) });
    expect(await loadView(two!, 'xml', 'drop_block')).toEqual({ kind: 'xml', text: readFileSync(join(root, 'T', 'levels', 'A', 'T_A_2.xml'), 'utf8') });
    const grid = gridView(dropBlocks(parseDropProgram(program, 'drop_block')));
    expect(await loadView(two!, 'grid', 'drop_block')).toEqual({ kind: 'grid', text: grid });
    // No intermediate yet: the grid comes from the response.
    expect(await loadView(three!, 'grid', 'drop_block')).toEqual({ kind: 'grid', text: grid });
    expect(await loadView(one!, 'grid', 'drop_block')).toEqual({ missing: 'no level (Code not found.)' });
    expect(await loadView(four!, 'grid', 'drop_block')).toEqual({ missing: 'no level (Width boundary is intruded.)' });
    expect(await loadView(one!, 'image', 'drop_block')).toEqual({ missing: 'no level' });
    expect(await loadView(one!, 'xml', 'drop_block')).toEqual({ missing: 'no level XML' });
  });
});

describe('rubric files', () => {
  it('takes a template, per-letter rubrics, and rejects what the procedure cannot use', () => {
    const spec = parseRubricText(
      'question: Q {letter}\nlevels: {100: ["a {letter}"], 50: [b], 25: []}\nletters:\n  B: {levels: {100: [], 50: [x, y], 25: [z]}}\n',
      'r.yaml',
    );
    expect(rubricOf(spec, 'A')).toEqual({ question: 'Q A', levels: { 100: ['a A'], 50: ['b'], 25: [] } });
    expect(rubricOf(spec, 'B')).toEqual({ question: 'Q B', levels: { 100: [], 50: ['x', 'y'], 25: ['z'] } });
    expect(() => parseRubricText('letters:\n  B: {levels: {100: [x]}}\n', 'r.yaml')).not.toThrow();
    expect(() => rubricOf(parseRubricText('letters:\n  B: {levels: {100: [x]}}\n', 'r.yaml'), 'A')).toThrow(/no rubric for letter A/);
    expect(() => parseRubricText('levels: {100: [], 50: [a, b, c, d, e]}\n', 'r.yaml')).toThrow(/at most 4/);
    expect(() => parseRubricText('levels: {100: [a]}\nscore: 3\n', 'r.yaml')).toThrow(/unknown key "score"/);
    expect(() => parseRubricText('question: q\n', 'r.yaml')).toThrow(/no rubric/);
  });
});
