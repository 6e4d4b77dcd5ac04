import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The repository's modules as the TypeScript parser reads them (syntax only, no type check): what each
 * file imports from which file (named bindings, namespaces, re-exports, dynamic imports, worker entry
 * points) and what it exports. The structure checks (test/structure/structure.test.ts) draw the import
 * graph, its cycles and the exports nobody imports from this one reading.
 */

/** Product code: what `tsconfig.build.json` compiles and the viewer's and survey's browser modules. */
export const PRODUCT_ROOTS = ['index.ts', 'core', 'levels', 'bridge', 'scoring', 'viewer', 'orchestrator', 'llm', 'cli'];
/** Code that is not shipped but may import the product: the suites and the developer scripts. */
export const SUPPORT_ROOTS = ['test', 'scripts'];

const SOURCE = /\.(ts|js|mjs)$/;
const SKIPPED = new Set(['node_modules', 'dist', '.out']);

export interface ModuleImport {
  /** Repository-relative path of the imported file. */
  target: string;
  /** Names taken (`default` for a default import); `*` for a namespace, `export *`, or a dynamic import whose names are not destructured. */
  names: string[];
  kind: 'static' | 'reexport' | 'dynamic' | 'worker';
  typeOnly: boolean;
  line: number;
}

export interface ModuleExport {
  name: string;
  line: number;
  /** For `export { a as b } from './<name>.js'`: the file and the name re-exported. */
  from?: { target: string; name: string };
}

export interface SourceModule {
  path: string;
  imports: ModuleImport[];
  exports: ModuleExport[];
  /** Targets of `export * from`. */
  stars: string[];
  /** Identifier texts used in the file outside export lists (to tell "used in its own file" from "used nowhere"). */
  identifiers: Map<string, number>;
}

/** Every source file under the given roots (files or folders), repository-relative, sorted. */
export function sourceFiles(root: string, roots: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (path: string): void => {
    const full = join(root, path);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full)) if (!SKIPPED.has(name)) walk(join(path, name));
    } else if (SOURCE.test(path) && !path.endsWith('.d.ts')) out.push(path.split('\\').join('/'));
  };
  roots.forEach(walk);
  return out.sort();
}

/** A relative specifier resolved to the file it loads (`./<name>.js` is `./<name>.ts` in the sources); undefined for packages and missing files. */
export function resolveSpecifier(root: string, from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const full = resolve(root, dirname(from), specifier);
  const candidates = [full, full.replace(/\.js$/, '.ts'), full.replace(/\.mjs$/, '.mts'), `${full}.ts`, join(full, 'index.ts')];
  for (const c of candidates) if (existsSync(c) && statSync(c).isFile()) return relative(root, c).split('\\').join('/');
  return undefined;
}

const hasExport = (node: ts.Node): boolean => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
const hasDefault = (node: ts.Node): boolean => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bindingNames(e.name)));
}

/** Names a dynamic `import()` takes: `const { a, b } = await import(…)` → a, b; anything else → `*`. */
function dynamicNames(call: ts.CallExpression): string[] {
  let node: ts.Node = call.parent;
  while (ts.isAwaitExpression(node) || ts.isParenthesizedExpression(node)) node = node.parent;
  if (ts.isVariableDeclaration(node) && ts.isObjectBindingPattern(node.name)) {
    return node.name.elements.map((e) =>
      e.propertyName && ts.isIdentifier(e.propertyName) ? e.propertyName.text : ts.isIdentifier(e.name) ? e.name.text : '*',
    );
  }
  return ['*'];
}

/** `siblingModule(import.meta.url, './<name>.js')` and `new URL('./<name>.js', import.meta.url)` naming a module: a worker or child entry point. */
function workerSpecifier(node: ts.Node): string | undefined {
  if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'siblingModule') {
    const arg = node.arguments[1];
    return arg && ts.isStringLiteral(arg) ? arg.text : undefined;
  }
  if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'URL') {
    const arg = node.arguments?.[0];
    return arg && ts.isStringLiteral(arg) && SOURCE.test(arg.text) ? arg.text : undefined;
  }
  return undefined;
}

/**
 * Whether an identifier may refer to a module-level binding: not a declaration's own name, an
 * import/export list entry, or a property name (`x.name`, `{ name: … }`, a member's name).
 */
function refersToBinding(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isExportSpecifier(parent) || ts.isImportSpecifier(parent) || ts.isImportClause(parent) || ts.isNamespaceImport(parent)) return false;
  if (ts.isPropertyAccessExpression(parent)) return parent.name !== node;
  if (ts.isQualifiedName(parent)) return parent.right !== node;
  const named = parent as ts.Node & { name?: ts.Node; propertyName?: ts.Node };
  const declaresName =
    ts.isFunctionDeclaration(parent) ||
    ts.isClassDeclaration(parent) ||
    ts.isInterfaceDeclaration(parent) ||
    ts.isTypeAliasDeclaration(parent) ||
    ts.isEnumDeclaration(parent) ||
    ts.isVariableDeclaration(parent) ||
    ts.isParameter(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isPropertyDeclaration(parent) ||
    ts.isPropertySignature(parent) ||
    ts.isMethodDeclaration(parent) ||
    ts.isMethodSignature(parent) ||
    ts.isGetAccessor(parent) ||
    ts.isSetAccessor(parent) ||
    ts.isEnumMember(parent) ||
    ts.isBindingElement(parent);
  if (declaresName && named.name === node) return false;
  return !(ts.isBindingElement(parent) && parent.propertyName === node);
}

const parsedFiles = new Map<string, ts.SourceFile>();

/** A file parsed once per process (the checks read the same files for imports and for comments). */
export function parseSource(root: string, path: string): ts.SourceFile {
  const key = join(root, path);
  let file = parsedFiles.get(key);
  if (!file) {
    file = ts.createSourceFile(path, readFileSync(key, 'utf8'), ts.ScriptTarget.Latest, true, path.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);
    parsedFiles.set(key, file);
  }
  return file;
}

/** Reads one file's imports and exports. */
export function readModule(root: string, path: string): SourceModule {
  const file = parseSource(root, path);
  const lineOf = (node: ts.Node): number => file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
  const module: SourceModule = { path, imports: [], exports: [], stars: [], identifiers: new Map() };
  const target = (specifier: ts.Expression | undefined): string | undefined =>
    specifier && ts.isStringLiteral(specifier) ? resolveSpecifier(root, path, specifier.text) : undefined;

  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) {
      const to = target(statement.moduleSpecifier);
      if (!to) continue;
      const clause = statement.importClause;
      const names: string[] = [];
      let typeOnly = clause?.isTypeOnly ?? false;
      if (clause?.name) names.push('default');
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.push('*');
      if (bindings && ts.isNamedImports(bindings)) {
        for (const e of bindings.elements) names.push((e.propertyName ?? e.name).text);
        if (!typeOnly && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly)) typeOnly = true;
      }
      module.imports.push({ target: to, names, kind: 'static', typeOnly, line: lineOf(statement) });
    } else if (ts.isExportDeclaration(statement)) {
      const to = target(statement.moduleSpecifier);
      const clause = statement.exportClause;
      if (statement.moduleSpecifier && !to) continue;
      if (to && !clause) {
        module.stars.push(to);
        module.imports.push({ target: to, names: ['*'], kind: 'reexport', typeOnly: statement.isTypeOnly, line: lineOf(statement) });
      } else if (clause && ts.isNamespaceExport(clause)) {
        module.exports.push({ name: clause.name.text, line: lineOf(statement) });
        if (to) module.imports.push({ target: to, names: ['*'], kind: 'reexport', typeOnly: statement.isTypeOnly, line: lineOf(statement) });
      } else if (clause && ts.isNamedExports(clause)) {
        for (const e of clause.elements) {
          const local = (e.propertyName ?? e.name).text;
          module.exports.push({ name: e.name.text, line: lineOf(e), ...(to ? { from: { target: to, name: local } } : {}) });
        }
        if (to)
          module.imports.push({
            target: to,
            names: clause.elements.map((e) => (e.propertyName ?? e.name).text),
            kind: 'reexport',
            typeOnly: statement.isTypeOnly,
            line: lineOf(statement),
          });
      }
    } else if (ts.isExportAssignment(statement)) {
      module.exports.push({ name: 'default', line: lineOf(statement) });
    } else if (hasExport(statement)) {
      const line = lineOf(statement);
      if (hasDefault(statement)) module.exports.push({ name: 'default', line });
      else if (ts.isVariableStatement(statement)) {
        for (const d of statement.declarationList.declarations) for (const name of bindingNames(d.name)) module.exports.push({ name, line });
      } else {
        const name = (statement as ts.DeclarationStatement).name;
        if (name && ts.isIdentifier(name)) module.exports.push({ name: name.text, line });
      }
    }
  }

  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const to = target(node.arguments[0]);
      if (to) module.imports.push({ target: to, names: dynamicNames(node), kind: 'dynamic', typeOnly: false, line: lineOf(node) });
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const to = target(node.argument.literal as ts.Expression);
      const name = node.qualifier && ts.isIdentifier(node.qualifier) ? node.qualifier.text : '*';
      if (to) module.imports.push({ target: to, names: [name], kind: 'static', typeOnly: true, line: lineOf(node) });
    }
    const worker = workerSpecifier(node);
    const to = worker ? resolveSpecifier(root, path, worker) : undefined;
    if (to && SOURCE.test(to)) module.imports.push({ target: to, names: [], kind: 'worker', typeOnly: false, line: lineOf(node) });
    if (ts.isIdentifier(node) && refersToBinding(node)) module.identifiers.set(node.text, (module.identifiers.get(node.text) ?? 0) + 1);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return module;
}

/** Every module under the roots, by path. */
export function readModules(root: string, roots: readonly string[]): Map<string, SourceModule> {
  return new Map(sourceFiles(root, roots).map((path) => [path, readModule(root, path)]));
}

/** An import edge of the graph, for messages: `from:line → target`. */
export interface Edge {
  from: string;
  target: string;
  line: number;
}

/**
 * The import cycles among the modules `inside` accepts, following the edges `follows` accepts: one
 * cycle per strongly connected component (Tarjan), drawn as the shortest loop through its first module.
 */
export function importCycles(modules: Map<string, SourceModule>, inside: (path: string) => boolean, follows: (edge: ModuleImport) => boolean): Edge[][] {
  const edges = new Map<string, Edge[]>();
  for (const m of modules.values()) {
    if (!inside(m.path)) continue;
    const out = m.imports.filter((i) => follows(i) && inside(i.target) && modules.has(i.target)).map((i) => ({ from: m.path, target: i.target, line: i.line }));
    edges.set(m.path, out);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  const connect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const e of edges.get(v) ?? []) {
      if (!index.has(e.target)) {
        connect(e.target);
        low.set(v, Math.min(low.get(v)!, low.get(e.target)!));
      } else if (onStack.has(e.target)) low.set(v, Math.min(low.get(v)!, index.get(e.target)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      const selfLoop = (edges.get(v) ?? []).some((e) => e.target === v);
      if (component.length > 1 || selfLoop) components.push(component.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) connect(v);
  return components.map((component) => shortestLoop(component[0]!, new Set(component), edges));
}

function shortestLoop(start: string, within: Set<string>, edges: Map<string, Edge[]>): Edge[] {
  const via = new Map<string, Edge>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const e of edges.get(v) ?? []) {
      if (!within.has(e.target)) continue;
      if (e.target === start) {
        const loop = [e];
        for (let at = v; at !== start; at = via.get(at)!.from) loop.unshift(via.get(at)!);
        return loop;
      }
      if (!via.has(e.target)) {
        via.set(e.target, e);
        queue.push(e.target);
      }
    }
  }
  return [];
}

/** `<a>.ts:3 → <b>.ts:9 → <a>.ts`: a cycle as one line. */
export function drawCycle(cycle: readonly Edge[]): string {
  return [...cycle.map((e) => `${e.from}:${e.line}`), cycle[0]?.from ?? ''].join(' → ');
}

/**
 * Who imports each export (`file#name` → importing files), following re-exports (`export { a } from`,
 * `export * from`) to the module that declares the name. `entries` are used from outside the graph
 * (the package's API, the published bin), named by the importer given.
 */
export function exportImporters(
  modules: Map<string, SourceModule>,
  entries: ReadonlyArray<{ file: string; names: string[]; importer: string }>,
): Map<string, Set<string>> {
  const importers = new Map<string, Set<string>>();
  const seen = new Set<string>();
  const exportsOf = (file: string, trail: Set<string> = new Set()): string[] => {
    const m = modules.get(file);
    if (!m || trail.has(file)) return [];
    trail.add(file);
    return [...m.exports.map((e) => e.name), ...m.stars.flatMap((s) => exportsOf(s, trail).filter((n) => n !== 'default'))];
  };
  const use = (file: string, name: string, importer: string): void => {
    const key = `${file}#${name}`;
    if (seen.has(`${key}<${importer}`)) return;
    seen.add(`${key}<${importer}`);
    const m = modules.get(file);
    if (!m) return;
    if (name === '*') {
      for (const n of new Set(exportsOf(file))) use(file, n, importer);
      return;
    }
    const own = m.exports.find((e) => e.name === name);
    if (own) {
      if (!importers.has(key)) importers.set(key, new Set());
      importers.get(key)!.add(importer);
      if (own.from) use(own.from.target, own.from.name, importer);
      return;
    }
    for (const star of m.stars) if (exportsOf(star).includes(name)) use(star, name, importer);
  };
  // A re-export is no use of its own: `use` follows it from whoever imports the re-exported name.
  for (const m of modules.values()) for (const i of m.imports) if (i.kind !== 'reexport') for (const name of i.names) use(i.target, name, m.path);
  for (const entry of entries) for (const name of entry.names) use(entry.file, name, entry.importer);
  return importers;
}

/** The module and name an export finally refers to, following `export { a as b } from` and `export *`. */
export function originOf(
  modules: Map<string, SourceModule>,
  file: string,
  name: string,
  trail: Set<string> = new Set(),
): { file: string; name: string } | undefined {
  const m = modules.get(file);
  if (!m || trail.has(`${file}#${name}`)) return undefined;
  trail.add(`${file}#${name}`);
  const own = m.exports.find((e) => e.name === name);
  if (own) return own.from ? originOf(modules, own.from.target, own.from.name, trail) : { file, name };
  for (const star of m.stars) {
    const found = originOf(modules, star, name, trail);
    if (found) return found;
  }
  return undefined;
}

export interface ExportRules {
  /** Product code: the modules checked, and the importers that count as use. */
  isProduct: (path: string) => boolean;
  /** Exports used from outside the graph: the package's API, the published bin. */
  entries: ReadonlyArray<{ file: string; names: string[]; importer: string }>;
  /** `file#name` → why it is exported although the rule would drop it (a seam a test looks through, a frozen format type). */
  kept: Readonly<Record<string, string>>;
}

/**
 * The exports of product code that break the rule, one line each:
 * - an export no other module imports (drop `export`, or delete it when its own file does not use it);
 * - an export only tests or scripts import, whose module does not use it either: test or script code
 *   living in the product (move it there);
 * - a kept export that the rule no longer flags (the list must not go stale).
 * A product module's export counts as used when another product module imports it (directly or
 * through a re-export), or an entry exposes it; an export only tests or scripts import counts when
 * the product uses it itself (the test checks a piece of its module, a benchmark times it).
 */
export function exportProblems(modules: Map<string, SourceModule>, rules: ExportRules): string[] {
  const importers = exportImporters(modules, rules.entries);
  const entryFiles = new Set(rules.entries.filter((e) => e.names.includes('*')).map((e) => e.file));
  const productUse = (file: string, name: string): boolean =>
    [...(importers.get(`${file}#${name}`) ?? [])].some((who) => who !== file && (rules.isProduct(who) || !modules.has(who)));
  const problem = (m: SourceModule, e: ModuleExport): string | undefined => {
    const others = [...(importers.get(`${m.path}#${e.name}`) ?? [])].filter((who) => who !== m.path);
    if (others.length === 0)
      return `${m.path}:${e.line} ${e.name}: no other module imports it; drop \`export\` (delete it if ${m.path} does not use it either)`;
    if (productUse(m.path, e.name)) return undefined;
    const origin = originOf(modules, m.path, e.name) ?? { file: m.path, name: e.name };
    const live = (modules.get(origin.file)?.identifiers.get(origin.name) ?? 0) > 0 || productUse(origin.file, origin.name);
    return live
      ? undefined
      : `${m.path}:${e.line} ${e.name}: only ${others.join(', ')} import it and no product code uses it; it is test or script code, move it there`;
  };
  const problems: string[] = [];
  const kept = new Set(Object.keys(rules.kept));
  for (const m of modules.values()) {
    if (!rules.isProduct(m.path) || entryFiles.has(m.path)) continue;
    for (const e of m.exports) {
      const found = problem(m, e);
      const key = `${m.path}#${e.name}`;
      if (kept.has(key)) {
        if (found === undefined) problems.push(`${key}: listed as kept, but the rule does not flag it: take it off the list`);
        kept.delete(key);
      } else if (found !== undefined) problems.push(found);
    }
  }
  for (const key of kept) problems.push(`${key}: listed as kept, but there is no such export: take it off the list`);
  return problems;
}
