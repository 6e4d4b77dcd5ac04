import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dropBlocks } from '../../levels/drop.js';
import { extractCode } from '../../levels/extract.js';
import { convertProgram, programToXml, responseToLevel } from '../../levels/pipeline.js';
import { parseDropProgram } from '../../levels/program.js';
import { containsDisallowedCharacters, countObjectTokens, countWords, disallowedCharacters, qualify } from '../../levels/rules-2023.js';
import { parseLevelXml } from '../../levels/xml-read.js';
import { structureToLevel, structureToXml } from '../../levels/xml-write.js';
import { GOLDEN } from '../helpers/cli.js';
import { readZip } from './zip.js';

interface ExtractCase {
  name: string;
  input: string;
  output: string | null;
  prefix?: string;
}
interface XmlCase {
  name: string;
  input: string;
  prefix: string;
  output: string | null;
  error: string | null;
  blocksBeforeShift: Array<{ id: string; x: string; y: string }> | null;
}
interface Cases {
  extract: ExtractCase[];
  xml: XmlCase[];
  words: Array<{ input: string; output: number }>;
  disallowed: Array<{ input: string; output: boolean }>;
  object: Array<{ input: string; output: boolean }>;
}

const CASES = JSON.parse(readFileSync(join(GOLDEN, 'official-1.4.1/cases.json'), 'utf8')) as Cases;
/** The golden xml cases give the converter prefix with its parenthesis (`drop_block(`); sbeval takes the function name. */
const functionName = (prefix: string) => prefix.replace(/\($/, '');

describe('golden: chatgpt4pcg@1.4.1 extractCode', () => {
  it('has the 35 cases', () => expect(CASES.extract).toHaveLength(35));
  it.each(CASES.extract.map((c) => [c.name, c]))('%s', (_name, c) => {
    expect(extractCode(c.input, c.prefix ?? 'drop_block')).toBe(c.output);
  });
});

describe('golden: chatgpt4pcg@1.4.1 convertTextToXML', () => {
  it('has the 25 cases', () => expect(CASES.xml).toHaveLength(25));
  it.each(CASES.xml.map((c) => [c.name, c]))('%s', (_name, c) => {
    const result = convertProgram(c.input, { prefix: functionName(c.prefix) });
    if (c.error !== null) {
      expect(result.ok).toBe(false);
      expect(result.ok ? undefined : result.reason).toBe(c.error);
      expect(() => programToXml(c.input, { prefix: functionName(c.prefix) })).toThrow(c.error);
      return;
    }
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.xml).toBe(c.output);
    if (c.blocksBeforeShift) {
      expect(result.structure.blocks.map((b) => ({ id: b.block, x: String(b.slot), y: String(b.row) }))).toEqual(c.blocksBeforeShift);
    }
    // The reader reads back exactly the data the writer describes.
    expect(parseLevelXml(result.xml)).toEqual(structureToLevel(result.structure));
  });
});

describe('golden: 2023 prompt rules', () => {
  it.each(CASES.words.map((c) => [JSON.stringify(c.input), c]))('countWords %s', (_n, c) => expect(countWords(c.input)).toBe(c.output));
  it.each(CASES.disallowed.map((c) => [JSON.stringify(c.input), c]))('disallowed %s', (_n, c) => {
    expect(containsDisallowedCharacters(c.input)).toBe(c.output);
    expect(disallowedCharacters(c.input).length > 0).toBe(c.output);
  });
  it.each(CASES.object.map((c) => [JSON.stringify(c.input), c]))('<OBJECT> %s', (_n, c) => expect(countObjectTokens(c.input) > 0).toBe(c.output));
});

describe('golden: the 2023 qualification of the 18 published prompts', () => {
  const expected = JSON.parse(readFileSync(join(GOLDEN, 'official-1.4.1/qualification-2023-prompts.json'), 'utf8')) as Array<{
    file: string;
    words: number;
    exceeds900: boolean;
    disallowed: boolean;
    hasObject: boolean;
    leftover: string;
  }>;
  const zip = readZip(readFileSync(join(GOLDEN, 'scoring/2023/prompts.zip')));
  it('has 18 prompts', () => expect(expected).toHaveLength(18));
  it.each(expected.map((e) => [e.file, e]))('%s', (file, e) => {
    const text = zip.get(`prompts/${file}`)!.toString('utf8');
    const verdict = qualify(text);
    expect(verdict.words).toBe(e.words);
    expect(verdict.withinWordLimit).toBe(!e.exceeds900);
    expect(verdict.disallowedCharacters.length > 0).toBe(e.disallowed);
    // The offending characters are what the official check leaves over (minus whitespace).
    expect(verdict.disallowedCharacters.join('')).toBe([...new Set(e.leftover.replace(/\s/g, ''))].join(''));
    expect(verdict.objectTokens > 0).toBe(e.hasObject);
    const failed = e.exceeds900 ? 'maxLength' : e.disallowed ? 'disallowChars' : !e.hasObject ? 'objectToken' : undefined;
    expect(verdict.failedCheck).toBe(failed);
    expect(verdict.qualified).toBe(failed === undefined);
  });
  it('disqualifies exactly BirdBirdBird, BirdsTeam and pixelArt (published 2023 outcome)', () => {
    const out = expected.filter((e) => !qualify(zip.get(`prompts/${e.file}`)!.toString('utf8')).qualified).map((e) => e.file);
    expect(out.sort()).toEqual(['BirdBirdBird.txt', 'BirdsTeam.TXT', 'pixelArt.txt']);
  });
});

describe('golden: sample levels of the evaluator repository', () => {
  const dir = join(GOLDEN, 'sample-levels');
  const inputs = readdirSync(dir).filter((f) => f.endsWith('.input.txt'));
  it('has the reconstructed inputs', () => expect(inputs.length).toBeGreaterThanOrEqual(3));
  it.each(inputs)('%s converts byte-identically', (file) => {
    const input = readFileSync(join(dir, file), 'utf8');
    const expected = readFileSync(join(dir, file.replace('.input.txt', '.expected.xml')), 'utf8');
    // The 2023 samples are written with ab_drop; the prefix decides which lines count.
    const prefix = /^ab_drop\(/m.test(input) ? 'ab_drop' : 'drop_block';
    expect(programToXml(input, { prefix })).toBe(expected);
    // The same calls wrapped in a fenced LLM response go through extraction unchanged.
    const response = responseToLevel(`Here is the level:\n\`\`\`python\n${input}\`\`\`\nEnjoy!`, { prefix });
    expect(response.ok && response.xml).toBe(expected);
  });
});

describe('writer and reader agree', () => {
  it('structureToXml of an empty program is the official empty level', () => {
    const xml = structureToXml(dropBlocks(parseDropProgram('')));
    const empty = CASES.xml.find((c) => c.name === 'empty_input')!;
    expect(xml).toBe(empty.output);
    expect(parseLevelXml(xml).objects).toEqual([]);
  });
});
