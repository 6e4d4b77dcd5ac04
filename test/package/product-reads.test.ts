import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { execa } from 'execa';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { PRODUCT_ROOTS } from '../structure/source-graph.js';

/**
 * The product never reads `test/` (DESIGN.md, conventions): no string in a product file — the code,
 * its help texts, the viewer's page — names a path into `test/`. Comments may cite tests; strings are
 * what the program uses. Everything the product reads at run time ships with the package instead
 * (calibration/, llm/judges/defaults/, llm/generate/builtin/, viewer/static/, llm/survey/page/;
 * test/package/installed.test.ts runs the installed package).
 */
const PRODUCT = [...PRODUCT_ROOTS.filter((root) => root !== 'index.ts'), 'bin'];
const SCRIPT = new Set(['.ts', '.js', '.mjs']);
/** Assets the product serves or reads (markdown is documentation for people: it may cite tests). */
const TEXT = new Set(['.html', '.css', '.json', '.yaml', '.yml', '.txt']);
const TEXT_INTO_TEST = /(?<![\w.-])test[\\/]/;

/** A path into test/: `test/…` (or `test\…`) at the start of a word, or the folder name alone as a path segment. */
const INTO_TEST = /(?<![\w.-])test[\\/]|^test$/;

function files(folder: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) out.push(...files(path));
    else out.push(path);
  }
  return out;
}

/** Every string a script holds (literals and template pieces), comments excluded. */
function stringsOf(path: string, text: string): string[] {
  const kind = path.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, kind);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) out.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Where a product file names a path into test/. */
function testReferences(path: string, text: string): string[] {
  const ext = extname(path);
  if (SCRIPT.has(ext)) return stringsOf(path, text).filter((s) => s.split(/\s+/).some((word) => INTO_TEST.test(word)) || INTO_TEST.test(s));
  if (TEXT.has(ext)) return text.split('\n').filter((line) => TEXT_INTO_TEST.test(line));
  return [];
}

describe('the product never reads test/', () => {
  it('no product file names a path into test/ in its code, help texts or assets', () => {
    const found: string[] = [];
    let scanned = 0;
    for (const folder of PRODUCT) {
      for (const file of files(join(PROJECT_ROOT, folder))) {
        if (file.endsWith('.test.ts')) continue;
        const ext = extname(file);
        if (!SCRIPT.has(ext) && !TEXT.has(ext)) continue;
        scanned += 1;
        for (const hit of testReferences(file, readFileSync(file, 'utf8'))) found.push(`${relative(PROJECT_ROOT, file)}: ${JSON.stringify(hit.slice(0, 160))}`);
      }
    }
    expect(scanned).toBeGreaterThan(200);
    expect(found).toEqual([]);
  });

  it('finds a path into test/ in strings, not in comments', () => {
    const code = [
      '// test/headless/fidelity.test.ts checks this (a comment may cite a test)',
      "const golden = new URL('../../test/fixtures/golden/', import.meta.url);",
      "const corpus = join(root, 'test', 'fixtures');",
      'const help = `Example: sbeval verify test/fixtures/corpus`;',
      "const fine = ['latest/', 'contest/x', 'tests are elsewhere', 'calibration/reference-levels/'];",
    ].join('\n');
    expect(testReferences('x.ts', code)).toEqual(['../../test/fixtures/golden/', 'test', 'Example: sbeval verify test/fixtures/corpus']);
    expect(testReferences('page.html', '<script src="static/app.js"></script>\n<img src="../test/x.png">')).toEqual(['<img src="../test/x.png">']);
  });
});

/** A page of docs/ named in a string (a message or a help text points the user there). */
const DOC_PAGE = /(?<![\w.-])docs\/[\w.-]+\.md/g;

/** The docs pages the product's strings name, each with one file that names it. */
function citedDocs(path: string, text: string): string[] {
  return stringsOf(path, text).flatMap((s) => s.match(DOC_PAGE) ?? []);
}

describe('the package carries the docs its messages cite', () => {
  it('every docs/… page a product string names is a file of the packed package', async () => {
    const cited = new Map<string, string>();
    for (const folder of PRODUCT) {
      for (const file of files(join(PROJECT_ROOT, folder))) {
        if (file.endsWith('.test.ts') || !SCRIPT.has(extname(file))) continue;
        for (const page of citedDocs(file, readFileSync(file, 'utf8'))) cited.set(page, relative(PROJECT_ROOT, file));
      }
    }
    expect(cited.size).toBeGreaterThan(3);
    // What `npm pack` puts in the tarball (package.json `files`), without building or packing anything.
    const { stdout } = await execa('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], { cwd: PROJECT_ROOT });
    const packed = new Set((JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path));
    const missing = [...cited].filter(([page]) => !packed.has(page)).map(([page, by]) => `${page} (named in ${by})`);
    expect(missing).toEqual([]);
  });

  it('finds the docs pages named in strings, not in comments', () => {
    const code = [
      '// docs/uncertainty.md says why',
      "const hint = 'see docs/similarity.md#offline';",
      'const t = `Details: docs/result-folder.md.`;',
      "const no = 'mydocs/x.md';",
    ].join('\n');
    expect(citedDocs('x.ts', code)).toEqual(['docs/similarity.md', 'docs/result-folder.md']);
  });
});
