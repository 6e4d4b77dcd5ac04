import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { PRODUCT_ROOTS, sourceFiles } from './source-graph.js';

/**
 * One source per rule and list (docs/architecture.md): a fact the product holds in one place cannot
 * drift from a copy. Each check reads the product code with the TypeScript parser (comments are prose,
 * not checked) and is shown to name a planted violation.
 */

/** The one file that may name a rule year: the rule sets, where each year's differences are data. */
const RULE_SETS_FILE = 'scoring/score/rules.ts';

/** A year a rule set could be named by: the competitions' and the next few. */
const RULE_YEAR = /^20(2[3-9]|3\d)$/;

interface Finding {
  path: string;
  line: number;
  text: string;
}

function parse(path: string, text: string): ts.SourceFile {
  return ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);
}

function visitLiterals(file: ts.SourceFile, found: (node: ts.Node, text: string) => void): void {
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isNumericLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      // Module specifiers name files (`levels/rules-2023.js`), not rules.
      if (!(ts.isStringLiteral(node) && (ts.isImportDeclaration(node.parent) || ts.isExportDeclaration(node.parent)))) found(node, node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}

/**
 * Rule years written as code outside the rule sets: a literal whose whole value is a year (`'2025'`,
 * `2024`, in a value or a type), or a message telling the user to pass one (`--rules 2025`).
 */
export function ruleYearLiterals(path: string, text: string): Finding[] {
  if (path === RULE_SETS_FILE) return [];
  const file = parse(path, text);
  const findings: Finding[] = [];
  visitLiterals(file, (node, value) => {
    if (RULE_YEAR.test(value) || /--rules 20\d\d\b/.test(value)) findings.push({ path, line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1, text: value });
  });
  return findings;
}

const product = (): Array<{ path: string; text: string }> => sourceFiles(PROJECT_ROOT, PRODUCT_ROOTS).map((path) => ({ path, text: readFileSync(join(PROJECT_ROOT, path), 'utf8') }));
const shown = (f: Finding): string => `${f.path}:${f.line} ${JSON.stringify(f.text)}`;

describe('every year difference is data in the rule sets', () => {
  it(`no product file but ${RULE_SETS_FILE} writes a rule year as code`, () => {
    const files = product();
    expect(files.map((f) => f.path)).toContain(RULE_SETS_FILE);
    expect(ruleYearLiterals(RULE_SETS_FILE, readFileSync(join(PROJECT_ROOT, RULE_SETS_FILE), 'utf8'))).toEqual([]);
    expect(files.flatMap((f) => ruleYearLiterals(f.path, f.text)).map(shown)).toEqual([]);
  });

  it('names a planted year: a comparison, a type, a number, a hint; not a comment, an import or a date in prose', () => {
    const planted = [
      "import { qualify } from '../../levels/rules-2023.js';",
      '// the 2025 rules sum the models',
      "export const prefix = (rules: string) => (rules === '2023' ? 'ab_drop' : 'drop_block');",
      'export type Format = 2024 | 2026;',
      "export const hint = `use --rules 2025, or give one folder`;",
      "export const note = 'the published 2024 files use CRLF';",
    ].join('\n');
    expect(ruleYearLiterals('orchestrator/planted.ts', planted).map(shown)).toEqual([
      'orchestrator/planted.ts:3 "2023"',
      'orchestrator/planted.ts:4 "2024"',
      'orchestrator/planted.ts:4 "2026"',
      'orchestrator/planted.ts:5 "use --rules 2025, or give one folder"',
    ]);
  });
});
