import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as sbeval from '../../index.js';
import { GOLDEN } from '../helpers/cli.js';

/** The level functions are reachable from the library entry (`import { ... } from 'sbeval'`). */
describe('library entry: levels', () => {
  it('runs a response through to a level and reads it back', () => {
    const program = readFileSync(join(GOLDEN, 'sample-levels/result_22.input.txt'), 'utf8');
    const expected = readFileSync(join(GOLDEN, 'sample-levels/result_22.expected.xml'), 'utf8');
    const result = sbeval.responseToLevel(`\`\`\`\n${program}\`\`\``, { prefix: sbeval.AB_DROP });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.xml).toBe(expected);
    expect(sbeval.parseLevelXml(result.xml)).toEqual(sbeval.structureToLevel(result.structure));
    expect(sbeval.structureToText(result.structure).split('\n')).toHaveLength(sbeval.GRID_HEIGHT);
  });

  it('exposes the official failure reasons as values', () => {
    expect(sbeval.responseToLevel('no code here')).toEqual({ ok: false, stage: 'extract', reason: sbeval.CODE_NOT_FOUND });
    const wide = sbeval.responseToLevel("```\ndrop_block('b31', 19)\n```");
    expect(wide.ok === false && wide.reason).toBe(sbeval.WIDTH_BOUNDARY);
    expect(sbeval.tryDropBlocks(sbeval.parseDropProgram("drop_block('b11', 20)\n"))).toMatchObject({ ok: false, reason: sbeval.HEIGHT_BOUNDARY });
    expect(sbeval.qualify('Build <OBJECT> with drop_block.')).toMatchObject({ qualified: true, words: 5 });
    expect(() => sbeval.parseLevelXml('<!DOCTYPE x><Level/>')).toThrow(sbeval.LevelXmlError);
  });
});
