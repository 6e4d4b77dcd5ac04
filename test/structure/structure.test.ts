import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { citedPaths as docCitedPaths, snippets } from '../docs/doc-references.js';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { type Citation, commentCitations, cSharpComments } from './citations.js';
import {
  drawCycle,
  type ExportRules,
  exportProblems,
  importCycles,
  PRODUCT_ROOTS,
  parseSource,
  readModules,
  type SourceModule,
  SUPPORT_ROOTS,
  sourceFiles,
} from './source-graph.js';

/**
 * The house's structure, checked over the sources (test/layering.test.ts checks the floors' order):
 * - no import cycle anywhere in the repository: product, suites, scripts and bin/, `.ts` and `.mjs`
 *   (static, type-only and dynamic imports alike; a worker entry point is a new module instance, not an import);
 * - no unused export in product code (the rule: exportProblems in source-graph.ts);
 * - comments of product code, suites and scripts, and the Markdown pages outside README.md and docs/
 *   (test/docs/docs-commands.test.ts checks those), cite only repository files that exist.
 */

const isProduct = (path: string): boolean => PRODUCT_ROOTS.some((root) => path === root || path.startsWith(`${root}/`));

/** bin/sbeval.js loads the compiled CLI by URL (`dist/cli/main.js`) and takes these names from it. */
const BIN_NAMES = ['runCli', 'exitQuietlyOnClosedPipe'];

const RULES: ExportRules = {
  isProduct,
  entries: [
    { file: 'index.ts', names: ['*'], importer: 'index.ts (the package API)' },
    { file: 'cli/main.ts', names: BIN_NAMES, importer: 'bin/sbeval.js' },
  ],
  kept: {
    'bridge/headless/fdlibm.ts#fdlibmSin': "the playground's bundle injects it for Math.sin (scripts/build-play.mjs): no module imports it",
    'bridge/headless/fdlibm.ts#fdlibmCos': "the playground's bundle injects it for Math.cos (scripts/build-play.mjs): no module imports it",
    'bridge/headless/fdlibm.ts#fdlibmAtan2': "the playground's bundle injects it for Math.atan2 (scripts/build-play.mjs): no module imports it",
    'bridge/headless/solver.ts#islandSolverInUse': 'a seam: which island solver runs; the bit-for-bit test proves the WebAssembly kernel is the one in use',
    'bridge/trace-versions.ts#TraceHeaderV1': 'a frozen format: every trace version ever written stays as a type (the module comment)',
    'orchestrator/machine/events.ts#machineEvents': 'a seam: typed builders of the events XState sends, with which the graph test walks every transition',
    'scoring/uncertainty/resample.ts#scoreResample':
      'a reference path: a resample drawn and scored step by step, against which the one-pass resampler is proven',
  },
};

/** A repository-relative citation exists: as written, as the `.ts` source of a `.js` name, or (a bare name) as some tracked file's name. */
function citationExists(root: string, file: string, citation: Pick<Citation, 'path' | 'kind'>, names: ReadonlySet<string>): boolean {
  const exists = (path: string) => existsSync(path) || (path.endsWith('.js') && existsSync(path.replace(/\.js$/, '.ts')));
  if (citation.kind === 'rooted') return exists(join(root, citation.path));
  if (citation.kind === 'relative') return exists(join(root, dirname(file), citation.path));
  return names.has(citation.path) || names.has(citation.path.replace(/\.js$/, '.ts'));
}

/**
 * Bare file names that comments cite from outside this repository, and which repository holds them.
 * Anything else written as a bare source file name must be a file of this one.
 */
const EXTERNAL_FILES: Readonly<Record<string, string>> = {
  'planck.js': 'the physics package (npm planck)',
  'bignumber.js': 'the decimal package (npm bignumber.js)',
  'converter.ts': 'the official level converter (npm chatgpt4pcg@1.4.1)',
  'machineEvents.ts': "Expensify's App, a model codebase",
};

/** Bare names checked: source and test files (output files such as `trials.csv` are named in prose too). */
const CHECKED_BARE = /\.(ts|mjs|js|cs)$/;

function citationProblems(root: string, files: readonly string[], names: ReadonlySet<string>, roots: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  for (const file of files) {
    const found = file.endsWith('.cs') ? cSharpComments(readFileSync(join(root, file), 'utf8')) : parseSource(root, file);
    for (const c of commentCitations(found, roots)) {
      if (c.kind === 'bare' && (!CHECKED_BARE.test(c.path) || EXTERNAL_FILES[c.path] !== undefined)) continue;
      if (!citationExists(root, file, c, names)) problems.push(`${file}:${c.line}: cites ${c.path}, which does not exist`);
    }
  }
  return problems;
}

function markdownProblems(root: string, pages: readonly string[], roots: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  for (const page of pages) {
    for (const snippet of snippets(readFileSync(join(root, page), 'utf8'))) {
      for (const path of docCitedPaths(snippet, new Set(roots)))
        if (!existsSync(join(root, path))) problems.push(`${page}:${snippet.line}: cites ${path}, which does not exist`);
    }
  }
  return problems;
}

function tracked(root: string): string[] {
  return execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
}

describe('structure of the product code', () => {
  const modules = readModules(PROJECT_ROOT, [...PRODUCT_ROOTS, ...SUPPORT_ROOTS]);

  it('reads the whole house: every floor, the suites and the scripts, with their imports', () => {
    for (const floor of PRODUCT_ROOTS)
      expect(
        [...modules.keys()].some((p) => p === floor || p.startsWith(`${floor}/`)),
        floor,
      ).toBe(true);
    const cli = modules.get('cli/main.ts');
    expect(cli?.imports.length).toBeGreaterThan(3);
    expect(modules.get('index.ts')?.stars.length).toBeGreaterThan(0);
  });

  it('has no import cycle anywhere in the repository: product, suites, scripts, bin', () => {
    const everything = readModules(PROJECT_ROOT, [...PRODUCT_ROOTS, ...SUPPORT_ROOTS, 'bin']);
    expect([...everything.keys()].some((p) => p.startsWith('scripts/') && p.endsWith('.mjs'))).toBe(true);
    const cycles = importCycles(
      everything,
      () => true,
      (i) => i.kind !== 'worker',
    );
    expect(cycles.map(drawCycle)).toEqual([]);
  });

  it('exports nothing no other module uses (an export only tests or scripts use must be a piece the product uses itself)', () => {
    const bin = readFileSync(join(PROJECT_ROOT, 'bin', 'sbeval.js'), 'utf8');
    expect(bin).toContain('dist/cli/main.js');
    for (const name of BIN_NAMES) expect(bin).toContain(name);
    expect(exportProblems(modules, RULES)).toEqual([]);
  });

  it('cites only repository files that exist, in comments and in the Markdown pages outside docs/', () => {
    const files = tracked(PROJECT_ROOT);
    const roots = new Set(files.map((f) => f.split('/')[0]!));
    const code = [...sourceFiles(PROJECT_ROOT, [...PRODUCT_ROOTS, ...SUPPORT_ROOTS, 'bin']), ...files.filter((f) => f.endsWith('.cs'))];
    const names = new Set([...files, ...code].map((f) => basename(f)));
    const pages = files.filter((f) => f.endsWith('.md') && f !== 'README.md' && !f.startsWith('docs/') && !f.includes('/fixtures/'));
    expect(pages).toContain('bridge/PROTOCOL.md');
    expect(code).toContain('unity-plugin/Runtime/BridgeClient.cs');
    expect([...citationProblems(PROJECT_ROOT, code, names, roots), ...markdownProblems(PROJECT_ROOT, pages, roots)]).toEqual([]);
  });
});

describe('the structure checks see what they police (a check that cannot see would pass vacuously)', () => {
  const root = mkdtempSync(join(tmpdir(), 'sbeval-structure-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write(
    'core/a.ts',
    "import { b } from './b.js';\nexport const a = () => b();\nexport const unused = 1;\nexport const localOnly = 2;\nexport const twice = localOnly * 2;\n",
  );
  write('core/b.ts', "import type { a } from './a.js';\nexport function b(): ReturnType<typeof a> | void {}\n");
  write(
    'core/c.ts',
    "export { a } from './a.js';\nexport const forTests = 3;\nexport const checked = 4;\nexport const inside = checked + 1;\nexport const seam = 5;\n",
  );
  write('core/d.ts', "const { inside } = await import('./c.js');\nexport const d = inside;\n");
  write('index.ts', "export * from './core/d.js';\nexport { a } from './core/c.js';\nexport { twice } from './core/a.js';\n");
  write('core/e.ts', 'export const viaBarrel = 6;\n');
  write('core/barrel.ts', "export { viaBarrel } from './e.js';\n");
  write('test/c.test.ts', "import { forTests, checked, seam } from '../core/c.js';\nimport { viaBarrel } from '../core/barrel.js';\n");
  const modules = new Map<string, SourceModule>(readModules(root, ['index.ts', 'core', 'test']));
  const inCore = (p: string) => p === 'index.ts' || p.startsWith('core/');

  it('draws a cycle through a type-only import, naming the files and lines', () => {
    expect(importCycles(modules, inCore, () => true).map(drawCycle)).toEqual(['core/a.ts:1 → core/b.ts:1 → core/a.ts']);
    expect(importCycles(modules, inCore, (i) => !i.typeOnly)).toEqual([]);
  });

  it('draws a cycle among scripts and suites, through an .mjs file and a dynamic import', () => {
    write('scripts/bench/suites.ts', "export const SUITES = ['a'];\nexport const run = () => import('./a.mjs');\n");
    write('scripts/bench/a.mjs', "import { SUITES } from './suites.js';\nexport const a = SUITES;\n");
    write('test/bench.test.ts', "import { run } from '../scripts/bench/suites.js';\n");
    const all = readModules(root, ['core', 'index.ts', 'scripts', 'test']);
    expect(
      importCycles(
        all,
        (p) => !inCore(p),
        () => true,
      ).map(drawCycle),
    ).toEqual(['scripts/bench/a.mjs:1 → scripts/bench/suites.ts:2 → scripts/bench/a.mjs']);
  });

  it('names the export nobody imports, the one used only in its file, and test code living in the product (through a re-export too)', () => {
    const entries = [{ file: 'index.ts', names: ['*'], importer: 'index.ts' }];
    const problems = exportProblems(modules, { isProduct: inCore, entries, kept: { 'core/c.ts#seam': 'a test looks inside' } });
    expect(problems).toEqual([
      'core/a.ts:3 unused: no other module imports it; drop `export` (delete it if core/a.ts does not use it either)',
      'core/a.ts:4 localOnly: no other module imports it; drop `export` (delete it if core/a.ts does not use it either)',
      'core/barrel.ts:1 viaBarrel: only test/c.test.ts import it and no product code uses it; it is test or script code, move it there',
      'core/c.ts:2 forTests: only test/c.test.ts import it and no product code uses it; it is test or script code, move it there',
      'core/e.ts:1 viaBarrel: only test/c.test.ts import it and no product code uses it; it is test or script code, move it there',
    ]);
    const stale = exportProblems(modules, { isProduct: inCore, entries, kept: { 'core/c.ts#seam': 'x', 'core/c.ts#checked': 'x', 'core/c.ts#gone': 'x' } });
    expect(stale.filter((p) => p.includes('listed as kept'))).toEqual([
      'core/c.ts#checked: listed as kept, but the rule does not flag it: take it off the list',
      'core/c.ts#gone: listed as kept, but there is no such export: take it off the list',
    ]);
  });

  it('finds cited paths in comments only, and tells the missing from the present', () => {
    write(
      'core/cites.ts',
      "// core/a.ts and core/missing.ts, ./b.ts, ../core/gone.ts, a.ts, nothere.test.ts, <team>/levels/<C>/\nconst url = 'http://x/core/none.ts'; // core/after.ts\n/* test/c.test.ts */\nfunction f() {\n  return /\\/\\/ core\\/regex.ts/;\n  // core/last.ts\n}\n",
    );
    const citations = commentCitations(parseSource(root, 'core/cites.ts'), new Set(['core', 'test']));
    expect(citations.map((c) => `${c.line}:${c.kind}:${c.path}`)).toEqual([
      '1:rooted:core/a.ts',
      '1:rooted:core/missing.ts',
      '1:relative:./b.ts',
      '1:relative:../core/gone.ts',
      '1:bare:a.ts',
      '1:bare:nothere.test.ts',
      '2:rooted:core/after.ts',
      '3:rooted:test/c.test.ts',
      '6:rooted:core/last.ts',
    ]);
    expect(citationProblems(root, ['core/cites.ts'], new Set(['a.ts', 'b.ts', 'c.test.ts']), new Set(['core', 'test']))).toEqual([
      'core/cites.ts:1: cites core/missing.ts, which does not exist',
      'core/cites.ts:1: cites ../core/gone.ts, which does not exist',
      'core/cites.ts:1: cites nothere.test.ts, which does not exist',
      'core/cites.ts:2: cites core/after.ts, which does not exist',
      'core/cites.ts:6: cites core/last.ts, which does not exist',
    ]);
    write('core/Host.cs', '/// <summary>core/a.ts, core/gone.cs</summary>\nvar s = "// core/none.cs"; // core/b.ts\n');
    expect(commentCitations(cSharpComments(readFileSync(join(root, 'core/Host.cs'), 'utf8')), new Set(['core'])).map((c) => `${c.line}:${c.path}`)).toEqual([
      '1:core/a.ts',
      '1:core/gone.cs',
      '2:core/b.ts',
    ]);
  });
});
