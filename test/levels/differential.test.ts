import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { dropBlocks } from '../../levels/drop.js';
import { extractCode } from '../../levels/extract.js';
import { programToXml } from '../../levels/pipeline.js';
import { parseDropProgram } from '../../levels/program.js';
import { containsDisallowedCharacters, countObjectTokens, countWords } from '../../levels/rules-2023.js';
import { parseLevelXml } from '../../levels/xml-read.js';
import { levelToXml, structureToLevel } from '../../levels/xml-write.js';
import { Gen, program, promptText, response } from './generators.js';

/**
 * Differential tests against the official package `chatgpt4pcg@1.4.1` (devDependency, the oracle):
 * seeded generated responses and programs must give the same extraction, the same XML bytes or the
 * same error message. On a mismatch the test names the seed and case index that reproduce it
 * (`SBEVAL_SEED=<seed>` re-runs with that seed).
 */
interface Official {
  extractCode(text: string, prefix?: string): string | null;
  convertTextToXML(text: string, prefix?: string): string;
  convertTextToBlocks(text: string): [Array<{ id: string; position: { x: { toString(): string }; y: { toString(): string } } }>, number[][]];
  countWords(text: string): number;
  containDisallowedCharacters(text: string): boolean;
  containObjectTokens(text: string): boolean;
}
const official = createRequire(import.meta.url)('chatgpt4pcg') as Official;

const SEED = Number(process.env.SBEVAL_SEED ?? 20240124);
const N = 10_000;

function officialXml(text: string, prefix: string): { xml: string } | { error: string } {
  try {
    return { xml: official.convertTextToXML(text, `${prefix}(`) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function ourXml(text: string, prefix: string): { xml: string } | { error: string } {
  try {
    return { xml: programToXml(text, { prefix }) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Collects mismatches and fails once with the first few, each with its reproduction. */
function report(kind: string, seed: number, failures: Array<{ index: number; input: string; ours: unknown; theirs: unknown }>) {
  if (failures.length === 0) return;
  const lines = failures
    .slice(0, 3)
    .map((f) => `#${f.index} input=${JSON.stringify(f.input)}\n  ours=${JSON.stringify(f.ours)}\n  official=${JSON.stringify(f.theirs)}`);
  throw new Error(`${failures.length} ${kind} mismatches with seed ${seed} (re-run with SBEVAL_SEED=${seed}):\n${lines.join('\n')}`);
}

describe(`differential vs chatgpt4pcg@1.4.1 (seed ${SEED})`, () => {
  it(`extractCode + convertTextToXML agree on ${N} generated responses (drop_block and ab_drop)`, () => {
    const g = new Gen(SEED);
    const failures: Array<{ index: number; input: string; ours: unknown; theirs: unknown }> = [];
    const seen = { extracted: 0, none: 0, xml: 0, errors: new Map<string, number>() };
    for (let i = 0; i < N; i++) {
      const prefix = g.chance(0.8) ? 'drop_block' : 'ab_drop';
      const text = response(g, prefix);
      const ours = extractCode(text, prefix);
      const theirs = official.extractCode(text, prefix);
      if (ours !== theirs) {
        failures.push({ index: i, input: text, ours, theirs });
        continue;
      }
      if (theirs === null) {
        seen.none++;
        continue;
      }
      seen.extracted++;
      const a = ourXml(theirs, prefix);
      const b = officialXml(theirs, prefix);
      if (JSON.stringify(a) !== JSON.stringify(b)) failures.push({ index: i, input: text, ours: a, theirs: b });
      else if ('xml' in b) seen.xml++;
      else seen.errors.set(b.error, (seen.errors.get(b.error) ?? 0) + 1);
    }
    report('response', SEED, failures);
    // The generator must exercise every outcome, or agreement would prove little.
    expect(seen.none).toBeGreaterThan(N * 0.1);
    expect(seen.extracted).toBeGreaterThan(N * 0.3);
    expect(seen.xml).toBeGreaterThan(N * 0.1);
    for (const reason of ['Height boundary is intruded.', 'Width boundary is intruded.', 'BlockType does not exist.']) {
      expect(seen.errors.get(reason) ?? 0).toBeGreaterThan(100);
    }
  });

  it(`convertTextToXML agrees on ${N} generated drop programs, clean and hand-edited`, () => {
    const g = new Gen(SEED ^ 0x5bd1e995);
    const failures: Array<{ index: number; input: string; ours: unknown; theirs: unknown }> = [];
    let xml = 0;
    let multiRow = 0;
    for (let i = 0; i < N; i++) {
      const prefix = g.chance(0.85) ? 'drop_block' : 'ab_drop';
      const text = program(g, prefix);
      const a = ourXml(text, prefix);
      const b = officialXml(text, prefix);
      if (JSON.stringify(a) !== JSON.stringify(b)) {
        failures.push({ index: i, input: text, ours: a, theirs: b });
        continue;
      }
      if (!('xml' in b)) continue;
      xml++;
      if (/minWidth="(?!17")/.test(b.xml)) multiRow++;
      // Pre-shift grid positions equal the official convertTextToBlocks (which knows only drop_block).
      if (prefix === 'drop_block') {
        const [blocks] = official.convertTextToBlocks(text);
        const ours = dropBlocks(parseDropProgram(text)).blocks.map((bl) => `${bl.block}@${bl.slot},${bl.row}`);
        const theirs = blocks.map((bl) => `${bl.id}@${bl.position.x.toString()},${bl.position.y.toString()}`);
        if (ours.join(' ') !== theirs.join(' ')) failures.push({ index: i, input: text, ours, theirs });
      }
      // The reader reads every written level back as the data the writer describes.
      const structure = dropBlocks(parseDropProgram(text, prefix));
      const level = structureToLevel(structure);
      expect(parseLevelXml(b.xml)).toEqual(level);
      // The general writer prints the same data as the same bytes.
      expect(levelToXml(level)).toBe(b.xml);
    }
    report('program', SEED, failures);
    expect(xml).toBeGreaterThan(N * 0.2);
    expect(multiRow).toBeGreaterThan(20); // tall structures exercise the camera formula
  });

  it(`countWords, containDisallowedCharacters and <OBJECT> agree on ${N} generated prompt texts`, () => {
    const g = new Gen(SEED ^ 0x1234567);
    const failures: Array<{ index: number; input: string; ours: unknown; theirs: unknown }> = [];
    let disallowed = 0;
    for (let i = 0; i < N; i++) {
      const text = promptText(g);
      const ours = [countWords(text), containsDisallowedCharacters(text), countObjectTokens(text) > 0];
      const theirs = [official.countWords(text), official.containDisallowedCharacters(text), official.containObjectTokens(text)];
      if (JSON.stringify(ours) !== JSON.stringify(theirs)) failures.push({ index: i, input: text, ours, theirs });
      if (theirs[1]) disallowed++;
    }
    report('prompt', SEED, failures);
    expect(disallowed).toBeGreaterThan(N * 0.2);
    expect(disallowed).toBeLessThan(N * 0.95);
  });
});

describe('hand-picked corner cases agree with chatgpt4pcg@1.4.1', () => {
  const fill = (slot: number, n: number) => `drop_block('b11', ${slot})\n`.repeat(n);
  const programs: Array<[string, string]> = [
    ['b31 beside a full column lands in the top row (official scan quirk)', `${fill(4, 16)}drop_block('b31', 5)\n`],
    ['b31 between two full columns', `${fill(4, 16)}${fill(6, 16)}drop_block('b31', 5)\n`],
    ['b31 on a full centre column', `${fill(5, 16)}drop_block('b31', 5)\n`],
    ['b31 at slot 19 with a full column 19', `${fill(19, 16)}drop_block('b31', 19)\n`],
    ['b13 reaching row 15 exactly', `${fill(3, 13)}drop_block('b13', 3)\n`],
    ['b13 one row too high', `${fill(3, 14)}drop_block('b13', 3)\n`],
    ['negative zero slots', "drop_block('b11', -0)\ndrop_block('b13', -0)\ndrop_block('b11', 1)\n"],
    ['negative zero b31', "drop_block('b31', -0)\n"],
    ['no comma', "drop_block('b11' 3)\n"],
    ['comma right after the paren', 'drop_block(,5)\n'],
    ['empty call', 'drop_block()\n'],
    ['unknown type before a boundary error', "drop_block('b11', 25)\ndrop_block('b99', 1)\n"],
    ['boundary error before an unknown type', "drop_block('b99', 1)\ndrop_block('b11', 25)\n"],
    ['CRLF program', "drop_block('b11', 3)\r\ndrop_block('b31', 3)\r\n"],
    ['no-break space before the slot', "drop_block('b11',\u00a05)\n"],
    ['dotted capital I changes lengths when lower-cased', "\u0130drop_block('b11', 3)\ndrop_block('\u0130', 3)\n"],
    ['plus sign and leading zeros', "drop_block('b11', +007)\n"],
    ['float slot truncates', "drop_block('b11', 12.9)\n"],
    ['2^32 slot', "drop_block('b11', 4294967296)\n"],
    [
      'full 20-wide rows',
      Array.from(
        { length: 16 },
        () => `${[1, 4, 7, 10, 13, 16].map((s) => `drop_block('b31', ${s})`).join('\n')}\ndrop_block('b11', 19)\ndrop_block('b11', 18)`,
      ).join('\n'),
    ],
    ['shift by the right-most column only', fill(19, 3)],
  ];
  it.each(programs)('%s', (_name, text) => {
    expect(ourXml(text, 'drop_block')).toEqual(officialXml(text, 'drop_block'));
  });
});
