import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { PRODUCT_ROOTS, sourceFiles } from './source-graph.js';

/**
 * One error type (docs/architecture.md): what can reach a user is an SbevalError with its phase and
 * hint (core/errors.ts); a broken rule of sbeval's own code is `invariant()` (core/invariant.ts). The
 * product's TypeScript is read with the TypeScript parser; each rule is shown to name a planted case.
 */

/**
 * Files whose bare `throw new Error(…)`s are kept, and why. A throw inside a `try` whose `catch` wraps
 * it counts as that catch's business and is not listed.
 */
const BARE_THROWS_KEPT: Readonly<Record<string, string>> = {
  'core/invariant.ts': 'the one plain Error: a broken internal rule',
  'bridge/png-check.ts': 'checkPngDecodes throws its finding as text; its one caller (bridge/expected-run.ts pngProblem) catches it and returns it',
  'orchestrator/run/effects.ts': "a level's planned paths, set before its machine starts (a missing one is a bug of the run)",
};

/**
 * Error classes kept although no `instanceof` names them: callers branch on a field they add, read
 * duck-typed across worker and process boundaries (where a class does not survive).
 */
const SUBCLASSES_KEPT: Readonly<Record<string, string>> = {
  LevelLoadError: '`levelError`: the pool does not retry the level elsewhere (orchestrator/pool/options.ts)',
  EngineLostError: '`retryable` and `engineId`: the level runs again on another engine',
  RemoteRunError: "`levelError`, `remotePhase`, `engineId`: the engine's own verdict on the level",
};

interface Finding {
  path: string;
  line: number;
  text: string;
}

const shown = (f: Finding): string => `${f.path}:${f.line} ${f.text}`;

function parse(path: string, text: string): ts.SourceFile {
  return ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

/** Whether `node` sits in the `try` block of a try statement that has a `catch`. */
function caughtLocally(node: ts.Node): boolean {
  for (let at: ts.Node = node; at.parent; at = at.parent) {
    const parent = at.parent;
    if (ts.isTryStatement(parent) && parent.tryBlock === at && parent.catchClause) return true;
    if (ts.isSourceFile(parent)) return false;
  }
  return false;
}

/** `throw new Error(…)` outside a local try/catch, in a file not kept. */
function bareThrows(path: string, text: string): Finding[] {
  if (BARE_THROWS_KEPT[path] !== undefined) return [];
  const file = parse(path, text);
  const findings: Finding[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isThrowStatement(node) &&
      ts.isNewExpression(node.expression) &&
      ts.isIdentifier(node.expression.expression) &&
      node.expression.expression.text === 'Error' &&
      !caughtLocally(node)
    ) {
      findings.push({ path, line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1, text: node.getText(file).slice(0, 60) });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return findings;
}

/** Classes that extend `Error` or another `…Error` class. */
function errorClasses(path: string, text: string): Finding[] {
  const file = parse(path, text);
  const found: Finding[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node) && node.name) {
      const base = node.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]?.expression;
      if (base && ts.isIdentifier(base) && /Error$/.test(base.text))
        found.push({ path, line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1, text: node.name.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The names `instanceof` tests anywhere in the files. */
function branchedOn(files: ReadonlyArray<{ path: string; text: string }>): Set<string> {
  const names = new Set<string>();
  for (const { path, text } of files) {
    const visit = (node: ts.Node): void => {
      if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.InstanceOfKeyword && ts.isIdentifier(node.right)) names.add(node.right.text);
      ts.forEachChild(node, visit);
    };
    visit(parse(path, text));
  }
  return names;
}

/** Error classes no caller branches on (by `instanceof`, or by a field kept above); SbevalError is the one type. */
function unbranchedSubclasses(files: ReadonlyArray<{ path: string; text: string }>): Finding[] {
  const branched = branchedOn(files);
  return files
    .flatMap((f) => errorClasses(f.path, f.text))
    .filter((c) => c.text !== 'SbevalError' && !branched.has(c.text) && SUBCLASSES_KEPT[c.text] === undefined);
}

const product = (): Array<{ path: string; text: string }> =>
  sourceFiles(PROJECT_ROOT, PRODUCT_ROOTS)
    .filter((path) => path.endsWith('.ts'))
    .map((path) => ({ path, text: readFileSync(join(PROJECT_ROOT, path), 'utf8') }));

describe('one error type', () => {
  const files = product();

  it('no bare `throw new Error(…)` in product code but the kept files (invariant() for broken internal rules)', () => {
    expect(files.map((f) => f.path)).toEqual(expect.arrayContaining(Object.keys(BARE_THROWS_KEPT)));
    expect(files.flatMap((f) => bareThrows(f.path, f.text)).map(shown)).toEqual([]);
    // A kept file must still need its place.
    for (const path of Object.keys(BARE_THROWS_KEPT)) {
      const text = files.find((f) => f.path === path)!.text;
      expect(bareThrows(`${path}.unkept.ts`, text).length, path).toBeGreaterThan(0);
    }
  });

  it('names a planted bare throw; not one a local catch wraps, nor an SbevalError', () => {
    const planted = [
      "import { SbevalError } from '../../core/errors.js';",
      "export function a(x: number) { if (x < 0) throw new Error('negative'); }",
      "export function b() { try { throw new Error('inner'); } catch (e) { throw new SbevalError('input', String(e)); } }",
      "export function c() { throw new SbevalError('input', 'bad input', 'fix it'); }",
      "export function d() { try { throw new Error('no catch'); } finally { void 0; } }",
    ].join('\n');
    expect(bareThrows('scoring/planted.ts', planted).map(shown)).toEqual([
      "scoring/planted.ts:2 throw new Error('negative');",
      "scoring/planted.ts:5 throw new Error('no catch');",
    ]);
  });

  it('every Error subclass is one a caller branches on', () => {
    const classes = files.flatMap((f) => errorClasses(f.path, f.text)).map((c) => c.text);
    expect(classes).toEqual(expect.arrayContaining(['SbevalError', ...Object.keys(SUBCLASSES_KEPT)]));
    expect(unbranchedSubclasses(files).map(shown)).toEqual([]);
  });

  it('names a planted subclass nobody branches on; not one an instanceof names', () => {
    const planted = {
      path: 'scoring/planted.ts',
      text: [
        'export class UnusedError extends Error {}',
        'export class CheckedError extends SbevalError {}',
        'export const isChecked = (e: unknown) => e instanceof CheckedError;',
      ].join('\n'),
    };
    expect(unbranchedSubclasses([planted]).map(shown)).toEqual(['scoring/planted.ts:1 UnusedError']);
  });
});
