import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LevelXmlError, parseLevelXml, readLevelXml } from '../../levels/xml-read.js';
import { levelToXml } from '../../levels/xml-write.js';
import { GOLDEN, PROJECT_ROOT, REFERENCE_LEVELS } from '../helpers/cli.js';

/** Every `.xml` under a folder, recursively. */
function xmlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...xmlFiles(path));
    else if (name.endsWith('.xml')) out.push(path);
  }
  return out.sort();
}

/**
 * An independent reading of the competition files' fixed shape: one regex per element, numbers via
 * `Number`. It only understands the official converter's exact layout, which is all the golden files use.
 */
function naiveBlocks(xml: string) {
  return [...xml.matchAll(/<Block type="(\w+)" material="(\w+)" x="([^"]+)" y="([^"]+)" rotation="([^"]+)" \/>/g)].map((m) => ({
    kind: 'block',
    type: m[1],
    material: m[2],
    x: Number(m[3]),
    y: Number(m[4]),
    rotation: Number(m[5]),
  }));
}

const REFERENCE = xmlFiles(REFERENCE_LEVELS);
const SAMPLES = xmlFiles(join(GOLDEN, 'sample-levels'));

describe('parseLevelXml on the golden levels', () => {
  it('finds the 90 reference levels', () => {
    expect(REFERENCE).toHaveLength(90);
  });

  it.each([...REFERENCE, ...SAMPLES].map((p) => [relative(PROJECT_ROOT, p), p]))('%s', (_name, path) => {
    const xml = readFileSync(path, 'utf8');
    const { level, warnings } = readLevelXml(xml);
    expect(warnings).toEqual([]);
    expect(level.width).toBe(Number(/<Level width="(\d+)">/.exec(xml)![1]));
    const cam = /<Camera x="([^"]+)" y="([^"]+)" minWidth="([^"]+)" maxWidth="([^"]+)" \/>/.exec(xml)!;
    expect(level.camera).toEqual({ x: Number(cam[1]), y: Number(cam[2]), minWidth: Number(cam[3]), maxWidth: Number(cam[4]) });
    expect(level.birds).toEqual([...xml.matchAll(/<Bird type="(\w+)" \/>/g)].map((m) => m[1]));
    expect(level.slingshot).toEqual({ x: -9, y: -2.5 });
    const blocks = naiveBlocks(xml);
    expect(blocks.length).toBeGreaterThan(0);
    expect(level.objects).toEqual(blocks);
    // Round trip: the general writer reproduces the file byte for byte.
    expect(levelToXml(level)).toBe(xml);
  });
});

const HEAD =
  '<?xml version="1.0" encoding="utf-16"?>\n<Level width="3">\n  <Camera x="2" y="0" minWidth="17" maxWidth="22" />\n  <Birds>\n    <Bird type="BirdRed" />\n  </Birds>\n  <Slingshot x="-9" y="-2.5" />\n  <GameObjects>\n';
const TAIL = '  </GameObjects>\n</Level>';
const withObject = (line: string) => `${HEAD}    ${line}\n${TAIL}`;

describe('general Science Birds levels', () => {
  it('reads every object kind with the LevelLoader defaults', () => {
    const level = parseLevelXml(
      `${HEAD}    <Block type="RectFat" material="ice" x="1.5" y="-2" />\n    <Pig type="BasicMedium" x="5.21" y="-2.03" rotation="45.5" />\n    <TNT type="" x="3.21" y="-4" rotation="0" />\n    <Platform type="Platform" x="-1e-1" y="+2.5E0" scaleX="2" />\n${TAIL}`,
    );
    expect(level.objects).toEqual([
      { kind: 'block', type: 'RectFat', material: 'ice', x: 1.5, y: -2, rotation: 0 },
      { kind: 'pig', type: 'BasicMedium', x: 5.21, y: -2.03, rotation: 45.5 },
      { kind: 'tnt', type: '', x: 3.21, y: -4, rotation: 0 },
      { kind: 'platform', type: 'Platform', x: -0.1, y: 2.5, rotation: 0, scaleX: 2, scaleY: 1 },
    ]);
  });

  it('round-trips every object kind through levelToXml, escaping included', () => {
    const level = parseLevelXml(
      `${HEAD}    <Block type="Circle" material="stone" x="-0.000001" y="1e-7" rotation="359.99" />\n    <Pig type="BasicBig" x="1" y="2" rotation="-45" />\n    <TNT type="a&amp;b&lt;&quot;" x="0.1" y="0.2" rotation="0" />\n    <Platform type="Platform" x="3" y="4" rotation="90" scaleX="0.5" scaleY="12.25" />\n${TAIL}`,
    );
    const written = levelToXml(level);
    const again = readLevelXml(written);
    expect(again.warnings).toEqual([]);
    expect(again.level).toEqual(level);
    expect(levelToXml(again.level)).toBe(written);
    expect(() => levelToXml({ ...level, width: Number.NaN })).toThrow(/non-finite/);
  });

  it('defaults width to 1 and accepts a BOM, comments outside containers, single quotes and entities', () => {
    const xml = `\uFEFF<?xml version='1.0'?>\n<!-- made by hand -->\n<Level>\n  <Camera x='2' y="0" minWidth="17" maxWidth="22"/>\n  <Birds>\n    <Bird type="Bird&#82;ed" />\n  </Birds>\n  <Slingshot x="-9" y="-2.5"/>\n  <GameObjects>\n    <Block type="Square&#x54;iny" material="w&#111;od" x="2" y="-3"/>\n  </GameObjects>\n</Level>\n<!-- end -->\n`;
    const { level, warnings } = readLevelXml(xml);
    expect(warnings).toEqual([]);
    expect(level.width).toBe(1);
    expect(level.birds).toEqual(['BirdRed']);
    expect(level.objects).toEqual([{ kind: 'block', type: 'SquareTiny', material: 'wood', x: 2, y: -3, rotation: 0 }]);
  });

  it('accepts compact XML but warns that Unity would misread it', () => {
    const compact = `${HEAD}${TAIL}`
      .replace(/>\s+</g, '><')
      .replace(
        '<GameObjects></GameObjects>',
        '<GameObjects><Block type="SquareTiny" material="wood" x="1" y="2"/><Block type="SquareTiny" material="wood" x="1" y="3"/></GameObjects>',
      );
    const { level, warnings } = readLevelXml(compact);
    expect(level.objects).toHaveLength(2);
    expect(warnings.some((w) => w.includes('<Birds> layout'))).toBe(true);
    expect(warnings.some((w) => w.includes('<GameObjects> layout'))).toBe(true);
  });

  it('warns about comments between objects, <X></X> pairs, a missing material and unread attributes', () => {
    const xml = `${HEAD}    <!-- a -->\n    <Block type="SquareTiny" x="1" y="2" hp="3"></Block>\n${TAIL}`;
    const { level, warnings } = readLevelXml(xml);
    expect(level.objects).toEqual([{ kind: 'block', type: 'SquareTiny', material: 'wood', x: 1, y: 2, rotation: 0 }]);
    expect(warnings).toHaveLength(3);
    expect(warnings.join('\n')).toMatch(/<GameObjects> layout/);
    expect(warnings.join('\n')).toMatch(/without "material"/);
    expect(warnings.join('\n')).toMatch(/"hp" is not read/);
  });

  it('warns when Camera, Birds or Slingshot is missing or out of order', () => {
    const { warnings } = readLevelXml('<Level>\n  <GameObjects>\n  </GameObjects>\n  <Camera x="0" y="0" minWidth="1" maxWidth="2" />\n</Level>');
    expect(warnings.filter((w) => /has no <(Birds|Slingshot)>/.test(w))).toHaveLength(2);
    expect(warnings.some((w) => /<Camera> comes after <GameObjects>/.test(w))).toBe(true);
  });
});

/** Each hostile or malformed input, and what the error must say (message and position). */
const BAD: Array<{ name: string; xml: string; message: RegExp; line?: number; attribute?: string }> = [
  {
    name: 'billion laughs',
    xml: '<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">\n]>\n<Level>&lol1;</Level>',
    message: /DOCTYPE and ENTITY declarations are not allowed/,
    line: 2,
  },
  { name: 'external entity', xml: '<!DOCTYPE Level SYSTEM "file:///etc/passwd">\n<Level/>', message: /DOCTYPE/, line: 1 },
  { name: 'stray ENTITY', xml: '<!ENTITY x "y"><Level/>', message: /ENTITY declarations are not allowed/ },
  {
    name: 'undefined entity',
    xml: withObject('<Block type="&x;" material="wood" x="1" y="1" />'),
    message: /undefined entity &x;/,
    attribute: 'type',
    line: 9,
  },
  { name: 'bare ampersand', xml: withObject('<Block type="a&b" material="wood" x="1" y="1" />'), message: /bare "&"/ },
  { name: 'invalid character reference', xml: withObject('<Block type="&#0;" material="wood" x="1" y="1" />'), message: /not a valid XML character/ },
  {
    name: 'NaN',
    xml: withObject('<Block type="SquareTiny" material="wood" x="NaN" y="1" />'),
    message: /NaN and Infinity are not allowed/,
    attribute: 'x',
    line: 9,
  },
  { name: 'Infinity', xml: withObject('<Pig type="BasicSmall" x="1" y="-Infinity" />'), message: /NaN and Infinity/, attribute: 'y' },
  { name: '1e308', xml: withObject('<Block type="SquareTiny" material="wood" x="1e308" y="1" />'), message: /out of range/, attribute: 'x' },
  {
    name: '1e999 (overflows to Infinity)',
    xml: withObject('<Block type="SquareTiny" material="wood" x="1" y="1e999" />'),
    message: /out of range/,
    attribute: 'y',
  },
  { name: 'hex number', xml: withObject('<Block type="SquareTiny" material="wood" x="0x1A" y="1" />'), message: /hexadecimal/ },
  { name: 'decimal comma', xml: withObject('<Block type="SquareTiny" material="wood" x="2,5" y="1" />'), message: /decimal separator/ },
  { name: 'empty number', xml: withObject('<Block type="SquareTiny" material="wood" x="" y="1" />'), message: /not a plain decimal/ },
  { name: 'number with spaces', xml: withObject('<Block type="SquareTiny" material="wood" x=" 1" y="1" />'), message: /not a plain decimal/ },
  { name: 'bad scale', xml: withObject('<Platform x="1" y="1" scaleX="big" />'), message: /not a plain decimal/, attribute: 'scaleX' },
  { name: 'fractional width', xml: '<Level width="3.0"/>', message: /whole number/, attribute: 'width' },
  { name: 'huge width', xml: '<Level width="100000000"/>', message: /between 0 and/, attribute: 'width' },
  {
    name: 'unclosed element',
    xml: `${HEAD}    <Block type="SquareTiny" material="wood" x="1" y="1">\n${TAIL}`,
    message: /does not match the open element <Block>/,
  },
  { name: 'unclosed root', xml: '<Level>\n  <GameObjects>\n  </GameObjects>\n', message: /unclosed element <Level>/, line: 1 },
  { name: 'unclosed start tag', xml: '<Level width="3"', message: /unclosed start tag/ },
  { name: 'unclosed attribute', xml: '<Level width="3>\n</Level>', message: /"<" is not allowed|unclosed attribute/ },
  { name: 'unquoted attribute', xml: '<Level width=3/>', message: /must be quoted/ },
  {
    name: 'duplicate attribute',
    xml: withObject('<Block type="SquareTiny" material="wood" x="1" x="2" y="1" />'),
    message: /duplicate attribute/,
    attribute: 'x',
  },
  { name: 'mismatched end tag', xml: '<Level></Levels>', message: /does not match/ },
  { name: 'unknown root', xml: '<Map/>', message: /root element is <Map>/ },
  { name: 'unknown element in Level', xml: '<Level>\n  <Score highScore="1" />\n</Level>', message: /unknown element <Score> in <Level>/, line: 2 },
  { name: 'unknown object element', xml: withObject('<Bomb x="1" y="1" />'), message: /unknown element <Bomb> in <GameObjects>/ },
  { name: 'unknown block type', xml: withObject('<Block type="Cube" material="wood" x="1" y="1" />'), message: /unknown block type "Cube"/, attribute: 'type' },
  { name: 'block type in wrong case', xml: withObject('<Block type="squaretiny" material="wood" x="1" y="1" />'), message: /unknown block type/ },
  { name: 'unknown pig type', xml: withObject('<Pig type="KingPig" x="1" y="1" />'), message: /unknown pig type "KingPig"/ },
  { name: 'unknown bird type', xml: '<Level>\n  <Birds>\n    <Bird type="BirdGreen" />\n  </Birds>\n</Level>', message: /unknown bird type/ },
  {
    name: 'bad material',
    xml: withObject('<Block type="SquareTiny" material="gold" x="1" y="1" />'),
    message: /unknown material "gold"/,
    attribute: 'material',
  },
  { name: 'material in wrong case', xml: withObject('<Block type="SquareTiny" material="Wood" x="1" y="1" />'), message: /unknown material "Wood"/ },
  { name: 'missing coordinate', xml: withObject('<Block type="SquareTiny" material="wood" x="1" />'), message: /missing/, attribute: 'y' },
  { name: 'missing block type', xml: withObject('<Block material="wood" x="1" y="1" />'), message: /missing/, attribute: 'type' },
  { name: 'camera without maxWidth', xml: '<Level>\n  <Camera x="1" y="1" minWidth="1" />\n</Level>', message: /missing/, attribute: 'maxWidth' },
  {
    name: 'duplicate Camera',
    xml: '<Level>\n  <Camera x="1" y="1" minWidth="1" maxWidth="2" />\n  <Camera x="1" y="1" minWidth="1" maxWidth="2" />\n</Level>',
    message: /more than one <Camera>/,
  },
  {
    name: 'element inside an object',
    xml: withObject('<Block type="SquareTiny" material="wood" x="1" y="1"><Pig type="BasicSmall" x="1" y="1"/></Block>'),
    message: /cannot contain elements/,
  },
  { name: 'trailing garbage', xml: `${HEAD}${TAIL}\ngarbage`, message: /unexpected text after the end/ },
  { name: 'second root', xml: '<Level/>\n<Level/>', message: /only one root element/ },
  { name: 'text content', xml: '<Level>hello</Level>', message: /unexpected text inside <Level>/ },
  { name: 'CDATA', xml: '<Level><![CDATA[x]]></Level>', message: /CDATA/ },
  { name: 'processing instruction', xml: '<Level><?php x ?></Level>', message: /processing instructions/ },
  { name: 'declaration not at start', xml: '\n\n<?xml version="1.0"?><Level/>', message: /processing instructions/ },
  { name: 'XML 1.1', xml: '<?xml version="1.1"?><Level/>', message: /unsupported XML version/ },
  { name: 'control character', xml: '<Level>\u0001</Level>', message: /control character U\+0001/ },
  { name: 'double dash in comment', xml: '<!-- a -- b --><Level/>', message: /"--" is not allowed/ },
  { name: 'unclosed comment', xml: '<Level/><!-- ', message: /unclosed comment/ },
  { name: 'empty document', xml: '  \n', message: /empty document/ },
  { name: 'not XML at all', xml: 'drop_block("b11", 3)', message: /unexpected text before the root element/ },
  { name: 'end tag first', xml: '</Level>', message: /end tag without a matching start tag/ },
  {
    name: '2 MiB file',
    xml: `${HEAD}${'    <Block type="SquareTiny" material="wood" x="1" y="1" />\n'.repeat(40_000)}${TAIL}`,
    message: /more than the limit of 1048576/,
  },
  { name: 'too many objects', xml: `${HEAD}${'    <Pig type="BasicSmall" x="1" y="1" />\n'.repeat(10_001)}${TAIL}`, message: /more than 10000 objects/ },
  { name: 'deep nesting', xml: `${'<Level>'.repeat(5_000)}${'</Level>'.repeat(5_000)}`, message: /nested more than 16 deep/ },
  { name: 'attribute flood', xml: `<Level ${Array.from({ length: 100_000 }, (_, k) => `a${k}=""`).join(' ')}/>`, message: /more than 64 attributes/ },
  { name: 'huge name', xml: `<Level${'x'.repeat(100_000)}/>`, message: /name longer than 256 characters/ },
  { name: 'huge unterminated comment', xml: `<Level/><!--${'-'.repeat(500_000)}`, message: /"--" is not allowed/ },
  { name: 'too many elements', xml: `<Level>${'<GameObjects/>'.repeat(20_000)}</Level>`, message: /more than \d+ elements/ },
];

describe('parseLevelXml rejects malformed and hostile input', () => {
  it.each(BAD.map((c) => [c.name, c]))('%s', (_name, c) => {
    let caught: unknown;
    try {
      parseLevelXml(c.xml);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(LevelXmlError);
    const error = caught as LevelXmlError;
    expect(error.message).toMatch(c.message);
    expect(error.message).toMatch(/^line \d+, column \d+: /);
    expect(error.line).toBeGreaterThanOrEqual(1);
    expect(error.column).toBeGreaterThanOrEqual(1);
    if (c.line !== undefined) expect(error.line).toBe(c.line);
    if (c.attribute !== undefined) {
      expect(error.attribute).toBe(c.attribute);
      expect(error.message).toContain(`attribute "${c.attribute}"`);
    }
  });

  it('points at the offending attribute', () => {
    const line = '    <Block type="SquareTiny" material="wood" x="1" y="oops" />';
    const xml = `${HEAD}${line}\n${TAIL}`;
    const column = line.indexOf(' y=') + 2;
    expect(() => parseLevelXml(xml)).toThrow(`line 9, column ${column}: <Block> attribute "y": is not a plain decimal number: "oops"`);
  });

  it('honours configured limits', () => {
    const xml = withObject('<Block type="SquareTiny" material="wood" x="50" y="1" />');
    expect(() => parseLevelXml(xml, { maxSize: 100 })).toThrow(/more than the limit of 100/);
    expect(() => parseLevelXml(xml, { maxMagnitude: 10 })).toThrow(/out of range/);
    expect(() => parseLevelXml(`${HEAD}${'    <Pig type="BasicSmall" x="1" y="1" />\n'.repeat(3)}${TAIL}`, { maxObjects: 3 })).toThrow(/more than 3 objects/);
    expect(parseLevelXml(xml, { maxMagnitude: 100 }).objects).toHaveLength(1);
  });
});
