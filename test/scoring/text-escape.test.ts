import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvCell, csvText, markdownText, neutralizeFormula, restoreCsvText } from '../../scoring/formats/text-escape.js';
import { parseCsv } from '../helpers/csv.js';

const ENTITY_TEXT: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>' };

/** The inverse of `markdownText` (line breaks stay spaces): the oracle that shows it loses nothing. */
function plainFromMarkdown(markdown: string): string {
  return markdown.replace(/\\([\\`*_[\]|~])|&(amp|lt|gt);/g, (_, escaped: string | undefined, entity: string | undefined) => escaped ?? ENTITY_TEXT[entity!]!);
}

/** OWASP CSV injection and Markdown/HTML escaping of text from outside (scoring/formats/text-escape.ts). */
const TRIGGERS = ['=', '+', '-', '@', '\t', '\r'];

describe('CSV cells (OWASP formula injection)', () => {
  it('neutralizes formula-leading text and quotes it; leaves numbers and ordinary names alone', () => {
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
    expect(csvCell('+cmd')).toBe('"\'+cmd"');
    expect(csvCell('-2+3')).toBe('"\'-2+3"');
    expect(csvCell('@SUM(A1)')).toBe('"\'@SUM(A1)"');
    expect(csvCell('\tx')).toBe('"\'\tx"');
    expect(csvCell('\rx')).toBe('"\'\rx"');
    expect(csvCell("'already")).toBe('"\'\'already"');
    for (const number of ['-0.5', '-1e-7', '+3', '-.25', '0.13601346659619553', '12']) expect(csvCell(number)).toBe(number);
    expect(csvCell(-0.5)).toBe('-0.5');
    expect(csvCell('AdrienTeam')).toBe('AdrienTeam');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell(null)).toBe('');
    expect(
      csvText([
        ['h1', 'h2'],
        ['=1', -2],
      ]),
    ).toBe('h1,h2\n"\'=1",-2\n');
  });

  it('round-trips any text, and no cell a spreadsheet reads starts like a formula unless it is a number', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', "'", '"', ',', 'a', '1', '.', 'e', ' ') }), (text) => {
        expect(restoreCsvText(neutralizeFormula(text))).toBe(text);
        const [[cell]] = parseCsv(`${csvCell(text)}\n`) as [[string]];
        expect(cell).toBe(neutralizeFormula(text));
        if (TRIGGERS.some((t) => cell.startsWith(t))) expect(Number.isFinite(Number(cell)) && cell.trim() === cell).toBe(true);
      }),
      { numRuns: 2000, seed: 12 },
    );
  });
});

describe('Markdown text', () => {
  it('keeps table cells one cell and HTML as text', () => {
    expect(markdownText('<img src=x onerror=alert(1)> | *b* _i_ `c` [l](u) ~s~ \\ & x\ny')).toBe(
      '&lt;img src=x onerror=alert(1)&gt; \\| \\*b\\* \\_i\\_ \\`c\\` \\[l\\](u) \\~s\\~ \\\\ &amp; x y',
    );
    expect(markdownText('team-a.b_2')).toBe('team-a.b\\_2');
  });

  it('is undone by plainFromMarkdown, and leaves no unescaped | < > in a cell', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('|', '<', '>', '&', '\\', '`', '*', '_', '[', ']', '~', 'a', ' ', ';', 'l', 't', 'g', 'p', 'm') }),
        (text) => {
          const md = markdownText(text);
          expect(plainFromMarkdown(md)).toBe(text);
          expect(md).not.toMatch(/[<>]/);
          expect(md.replace(/\\\\/g, '').replace(/\\\|/g, '')).not.toContain('|');
        },
      ),
      { numRuns: 2000, seed: 7 },
    );
  });
});
