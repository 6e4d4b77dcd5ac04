import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PRODUCT_ROOTS } from './source-graph.js';

/**
 * The house's rule "no function over ~80 lines": every function in the product
 * source, measured as a whole, is at most MAX_LINES lines long.
 *
 * What is measured: every function node the TypeScript parser sees — function declarations and
 * expressions, arrow functions, methods, constructors, accessors — from its first token (its leading
 * comment and JSDoc not counted) to its closing token, both lines included. A nested function is its own
 * node and is measured on its own, AND its lines count towards every function around it: a 60-line
 * closure inside a 40-line function makes the outer one 100 lines long. This is the simplest and the
 * strictest reading: moving a step into a closure does not shorten the function that holds it.
 *
 * Product source: the folders the package builds and ships (tsconfig.build.json's `include`, plus core/
 * which they import, bin/ and the viewer's browser scripts under viewer/static/). test/ and scripts/
 * are not product and are not checked.
 */
const MAX_LINES = 80;

const ROOT = resolve(import.meta.dirname, '..', '..');
const PRODUCT = [...PRODUCT_ROOTS, 'bin'];

/**
 * Paths (files, or folders ending in `/`) whose functions are not checked, each with the reason.
 * A stale entry (a path that no longer exists or no longer holds a long function) fails the suite.
 */
const EXEMPT: Record<string, string> = {
  // The planck-mirroring island solver: its long functions (solveIslandTyped, solveVelocities,
  // solveContact) transcribe planck.js 1.4.2's Solver.solveIsland and Contact.solveVelocityConstraint
  // statement by statement, in planck's order, so that they compute the same bits (the file's header says
  // why); cut into pieces they would no longer read side by side with planck's source. The bits are held
  // by test/headless/shortcuts.test.ts ("the typed-array island solver … gives planck's own solver's bits").
  'bridge/headless/solver.ts': 'mirrors planck.js solver routines statement by statement',
};

interface LongFunction {
  file: string;
  line: number;
  name: string;
  lines: number;
}

function sourceFiles(path: string): string[] {
  if (!existsSync(path)) return [];
  if (statSync(path).isDirectory()) return readdirSync(path).flatMap((name) => sourceFiles(join(path, name)));
  return /\.(ts|js|mjs)$/.test(path) && !path.endsWith('.d.ts') ? [path] : [];
}

/** The name a reader would search for: the declared name, or the variable/property/call the function is assigned or passed to. */
function functionName(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(source);
  if (ts.isCallExpression(parent)) return `<callback of ${parent.expression.getText(source).slice(0, 40)}>`;
  return '<anonymous>';
}

/** Every function node in `text` longer than `maxLines`, each measured over its full span (see the header). */
function longFunctions(file: string, text: string, maxLines: number): LongFunction[] {
  const kind = file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > maxLines) found.push({ file, line: first + 1, name: functionName(node as ts.FunctionLikeDeclaration, source), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function exemption(file: string): string | undefined {
  return Object.keys(EXEMPT).find((path) => (path.endsWith('/') ? file.startsWith(path) : file === path));
}

function productLongFunctions(): LongFunction[] {
  const files = PRODUCT.flatMap((path) => sourceFiles(join(ROOT, path)));
  return files.flatMap((path) => longFunctions(relative(ROOT, path).split('\\').join('/'), readFileSync(path, 'utf8'), MAX_LINES));
}

describe(`function length: no product function over ${MAX_LINES} lines`, () => {
  const all = productLongFunctions();

  it(`every function outside the exempt paths spans at most ${MAX_LINES} lines`, () => {
    const offences = all.filter((f) => exemption(f.file) === undefined).map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`);
    expect(offences).toEqual([]);
  });

  it('every exemption still names a path that exists and holds a function over the limit', () => {
    const stale = Object.keys(EXEMPT).filter((path) => !all.some((f) => exemption(f.file) === path));
    expect(stale).toEqual([]);
  });

  it('measures every kind of function over its full span, nested closures included (a blind check would pass vacuously)', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = [
      '/** a doc comment that is not counted */',
      `export function declared() {\n${body(5)}\n  const inner = () => {\n${body(5)}\n  };\n}`,
      `class C {\n  method() {\n${body(6)}\n  }\n  constructor() {\n${body(2)}\n  }\n}`,
      `const expr = function () {\n${body(9)}\n};`,
      `register('x', async () => {\n${body(9)}\n});`,
      `function short() {\n${body(1)}\n}`,
    ].join('\n');
    const found = longFunctions('sample.ts', text, 6).map((f) => `${f.name}:${f.line}:${f.lines}`);
    // declared: 1 signature + 5 + (1 + 5 + 1 inner) + 1 closing = 14 lines; inner alone 7; method 8;
    // constructor 4 (under the limit); expr 11; the callback 11; short 3 (under the limit).
    expect(found).toEqual(['declared:2:14', 'inner:8:7', 'method:17:8', 'expr:30:11', '<callback of register>:41:11']);
    expect(longFunctions('sample.js', 'function f() {\n  return 1;\n}', 2).map((f) => f.name)).toEqual(['f']);
  });
});
