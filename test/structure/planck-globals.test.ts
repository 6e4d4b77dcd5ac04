import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { PRODUCT_ROOTS, parseSource, sourceFiles } from './source-graph.js';

/**
 * planck keeps Box2D's tuning constants as process-global statics (`planck.Settings`): a write from
 * anywhere changes every world of the process. So the physics package belongs to the engine alone:
 * - no module outside bridge/headless/ imports planck (static, type-only, re-exported, dynamic, require);
 * - no module but bridge/headless/settings.ts writes to planck's `Settings` (through an alias or a
 *   re-export too), where the evaluator's values are set and an engine's overrides are scoped.
 * Checked over the product and the developer scripts; the suites may set planck's globals themselves
 * to build an independent expectation (test/viewer/corpus.test.ts replays with a changed constant).
 */

const ROOT = resolve(import.meta.dirname, '..', '..');
const ENGINE = 'bridge/headless/';
const SETTINGS_WRITER = 'bridge/headless/settings.ts';
/** Calls that write to their first argument. */
const WRITING_CALLS = new Set([
  'Object.assign',
  'Object.defineProperty',
  'Object.defineProperties',
  'Reflect.set',
  'Reflect.defineProperty',
  'Reflect.deleteProperty',
]);

const isPlanck = (node: ts.Node | undefined): boolean => node !== undefined && ts.isStringLiteral(node) && node.text === 'planck';

/** The expression under parentheses, `as`, `satisfies` and `!`. */
function bare(node: ts.Expression): ts.Expression {
  const wrapped = (n: ts.Expression) => ts.isParenthesizedExpression(n) || ts.isAsExpression(n) || ts.isSatisfiesExpression(n) || ts.isNonNullExpression(n);
  while (wrapped(node)) node = (node as ts.ParenthesizedExpression).expression;
  return node;
}

function isAssignment(kind: ts.SyntaxKind): boolean {
  return kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
}

/** Local names bound to planck's `Settings`: imported as `Settings` (from planck or a re-export), destructured from `import('planck')`. */
function settingsImports(file: ts.SourceFile): { names: Set<string>; namespaces: Set<string> } {
  const names = new Set<string>();
  const namespaces = new Set<string>();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings) && isPlanck(statement.moduleSpecifier)) namespaces.add(bindings.name.text);
    if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) if ((e.propertyName ?? e.name).text === 'Settings') names.add(e.name.text);
  }
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && node.initializer && ts.isObjectBindingPattern(node.name)) {
      let init: ts.Expression = bare(node.initializer);
      if (ts.isAwaitExpression(init)) init = bare(init.expression);
      if (ts.isCallExpression(init) && init.expression.kind === ts.SyntaxKind.ImportKeyword && isPlanck(init.arguments[0])) {
        for (const e of node.name.elements) {
          if (ts.isIdentifier(e.name) && ((e.propertyName ?? e.name) as ts.Identifier).text === 'Settings') names.add(e.name.text);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { names, namespaces };
}

/** Every line of `path` that imports planck, and every line that writes to planck's `Settings`. */
function planckUses(root: string, path: string): { imports: number[]; writes: number[] } {
  const file = parseSource(root, path);
  const lineOf = (node: ts.Node): number => file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
  const imports: number[] = [];
  const writes: number[] = [];
  const { names, namespaces } = settingsImports(file);
  const isSettings = (node: ts.Expression): boolean => {
    const e = bare(node);
    if (ts.isIdentifier(e)) return names.has(e.text);
    return ts.isPropertyAccessExpression(e) && e.name.text === 'Settings' && ts.isIdentifier(e.expression) && namespaces.has(e.expression.text);
  };
  const writesTo = (target: ts.Expression): boolean => {
    const e = bare(target);
    return (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) && isSettings(e.expression);
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && isPlanck(node.moduleSpecifier)) imports.push(lineOf(node));
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && isPlanck(node.argument.literal)) imports.push(lineOf(node));
    if (ts.isCallExpression(node) && isPlanck(node.arguments[0])) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) imports.push(lineOf(node));
    }
    // An alias (`const s = Settings as Record<string, number>`) is the Settings object under another name.
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && isSettings(node.initializer)) names.add(node.name.text);
    if (ts.isBinaryExpression(node) && isAssignment(node.operatorToken.kind) && writesTo(node.left)) writes.push(lineOf(node));
    if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) && writesTo(node.operand)) {
      if (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken) writes.push(lineOf(node));
    }
    if (ts.isDeleteExpression(node) && writesTo(node.expression)) writes.push(lineOf(node));
    const first = ts.isCallExpression(node) ? node.arguments[0] : undefined;
    if (first && WRITING_CALLS.has((node as ts.CallExpression).expression.getText(file)) && isSettings(first)) writes.push(lineOf(node));
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { imports, writes };
}

/** What breaks the rule in `files` (see the header), one line per offence. */
function planckProblems(root: string, files: readonly string[]): string[] {
  const problems: string[] = [];
  for (const path of files) {
    const { imports, writes } = planckUses(root, path);
    const outside = !path.startsWith(ENGINE);
    if (outside) for (const line of imports) problems.push(`${path}:${line}: imports planck outside ${ENGINE} (ask the headless engine instead)`);
    if (path !== SETTINGS_WRITER) for (const line of writes) problems.push(`${path}:${line}: writes planck's Settings (only ${SETTINGS_WRITER} may)`);
  }
  return problems;
}

describe("planck's globals belong to the headless engine", () => {
  it('no module outside bridge/headless/ imports planck, and only bridge/headless/settings.ts writes its Settings', () => {
    const files = sourceFiles(ROOT, [...PRODUCT_ROOTS, 'scripts']);
    expect(files).toContain(SETTINGS_WRITER);
    expect(files).toContain('orchestrator/stages/verify.ts');
    expect(planckUses(ROOT, SETTINGS_WRITER).writes.length).toBeGreaterThan(10);
    expect(planckProblems(ROOT, files)).toEqual([]);
  });

  describe('the check sees what it polices (planted modules)', () => {
    const root = mkdtempSync(join(tmpdir(), 'sbeval-planck-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));
    const write = (path: string, text: string): string => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
      return path;
    };
    const problemsOf = (path: string, text: string): string[] => planckProblems(root, [write(path, text)]);

    it('names a stage that sets a Box2D constant through an alias of Settings', () => {
      const stage = [
        "import { Settings } from 'planck';",
        'const settings = Settings as unknown as Record<string, number>;',
        'export function set(name: string, value: number): void {',
        '  settings[name] = value;',
        '}',
        '',
      ].join('\n');
      expect(problemsOf('orchestrator/stages/replay.ts', stage)).toEqual([
        'orchestrator/stages/replay.ts:1: imports planck outside bridge/headless/ (ask the headless engine instead)',
        "orchestrator/stages/replay.ts:4: writes planck's Settings (only bridge/headless/settings.ts may)",
      ]);
    });

    it('names every way in: a type-only, a dynamic, a required and a re-exported planck', () => {
      const text = [
        "import type { Vec2 } from 'planck';",
        "const { World } = await import('planck');",
        "const p = require('planck');",
        "export { Settings } from 'planck';",
        "type B = import('planck').Body;",
        '',
      ].join('\n');
      const lines = problemsOf('scoring/lazy.ts', text).map((p) => p.split(': ')[0]);
      expect(lines).toEqual(['scoring/lazy.ts:1', 'scoring/lazy.ts:2', 'scoring/lazy.ts:3', 'scoring/lazy.ts:4', 'scoring/lazy.ts:5']);
    });

    it("names writes inside the engine but settings.ts's: assignments, ++, Object.assign, through a namespace and a re-export; reads pass", () => {
      const text = [
        "import * as planck from 'planck';",
        "import { Settings as S } from 'planck';",
        'planck.Settings.linearSlop = 0.01;',
        'S.baumgarte++;',
        'Object.assign(S, { baumgarte: 0.1 });',
        "(S as unknown as Record<string, number>)['timeToSleep'] ??= 1;",
        'export const read = S.baumgarte * planck.Settings.linearSlop;',
        '',
      ].join('\n');
      expect(problemsOf('bridge/headless/world-like.ts', text).map((p) => p.split(': ')[0])).toEqual([
        'bridge/headless/world-like.ts:3',
        'bridge/headless/world-like.ts:4',
        'bridge/headless/world-like.ts:5',
        'bridge/headless/world-like.ts:6',
      ]);
      const reexported = "import { Settings } from '../bridge/headless/world-like.js';\nexport function f(): void {\n  Settings.baumgarte = 1;\n}\n";
      const problems = problemsOf('orchestrator/physics.ts', reexported);
      expect(problems).toEqual(["orchestrator/physics.ts:3: writes planck's Settings (only bridge/headless/settings.ts may)"]);
    });

    it('lets the engine import planck and settings.ts write its Settings', () => {
      expect(problemsOf('bridge/headless/settings.ts', "import { Settings } from 'planck';\nSettings.linearSlop = 0.005;\n")).toEqual([]);
      const reader = "import { Settings, Solver } from 'planck';\nexport const slop = Settings.linearSlop;\nexport { Solver };\n";
      expect(problemsOf('bridge/headless/solver-like.ts', reader)).toEqual([]);
    });
  });
});
