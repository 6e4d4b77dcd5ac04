/**
 * Text from the outside world (team and model names from folders, failure reasons, judges' answers)
 * ends up in files people open in spreadsheets and Markdown/HTML viewers. Two escapes keep it text:
 *
 * CSV — formula injection (OWASP, "CSV Injection"): a cell that starts with `=`, `+`, `-`, `@`, a tab
 * or a carriage return is run as a formula by Excel, LibreOffice and Google Sheets
 * (`=HYPERLINK("http://…")`). Such a cell gets a leading `'` and is quoted, as OWASP recommends. A
 * number is not a formula: `-0.5` and `1e-7` are left alone, so score columns do not change. A cell
 * that already starts with `'` gets one more, so `restoreCsvText` gives back exactly what was written.
 * Ordinary names (letters, digits, `_`, `.`…) are untouched: the official files stay byte-identical.
 *
 * Markdown — a table cell is inline text: `|` would end the cell, `<…>` is raw HTML to a renderer,
 * `*`, `_`, `` ` ``, `[`, `]`, `~` and `\` format or link. They are backslash-escaped or written as
 * entities, and line breaks become spaces (a table row is one line).
 */
const FORMULA_START = /^[=+\-@\t\r']/;
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The cell's text as a spreadsheet must see it: `'` before a formula-leading text, numbers unchanged. */
export function neutralizeFormula(text: string): string {
  return FORMULA_START.test(text) && !NUMBER.test(text) ? `'${text}` : text;
}

/** The inverse of `neutralizeFormula`, for sbeval's own readers of the CSVs it wrote. */
export function restoreCsvText(text: string): string {
  return text.startsWith("'") ? text.slice(1) : text;
}

/**
 * One RFC 4180 cell: null is empty, numbers as `String(n)`, text neutralized and quoted when it holds
 * `,`, `"`, a line end, or was neutralized (`"` doubled).
 */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const text = neutralizeFormula(value);
  return text !== value || /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows of RFC 4180 cells, `eol` between rows and after the last. */
export function csvText(rows: ReadonlyArray<ReadonlyArray<string | number | null | undefined>>, eol = '\n'): string {
  return rows.map((row) => `${row.map(csvCell).join(',')}${eol}`).join('');
}

const MARKDOWN_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** Text for a Markdown table cell or paragraph: HTML as entities, formatting characters escaped, one line. */
export function markdownText(text: string): string {
  return text
    .replace(/\r\n|[\r\n]/g, ' ')
    .replace(/[&<>]/g, (c) => MARKDOWN_ENTITIES[c]!)
    .replace(/[\\`*_[\]|~]/g, (c) => `\\${c}`);
}
