import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The house's direction of dependencies (docs/architecture.md): the lower floors never reach up.
 * core/, levels/ ← bridge/ ← scoring/ ← viewer/ ← orchestrator/ (the evaluator) ← llm/ (the LLM
 * tooling: generation, model calls, judges, survey) ← cli/ (levels/ uses core/, core/ nothing).
 * The evaluator imports nothing of the LLM tooling: what the judges add to the report comes in as a
 * contributor the CLI hands it (orchestrator/result/contributors.ts). No product floor reads the
 * suites or the developer scripts. Each entry lists the folders a floor must not import from.
 */
const FORBIDDEN: Record<string, string[]> = {
  core: ['levels', 'bridge', 'scoring', 'viewer', 'orchestrator', 'llm', 'cli', 'test', 'scripts'],
  levels: ['bridge', 'scoring', 'viewer', 'orchestrator', 'llm', 'cli', 'test', 'scripts'],
  bridge: ['scoring', 'viewer', 'orchestrator', 'llm', 'cli', 'test', 'scripts'],
  scoring: ['viewer', 'orchestrator', 'llm', 'cli', 'test', 'scripts'],
  viewer: ['orchestrator', 'llm', 'cli', 'test', 'scripts'],
  orchestrator: ['llm', 'cli', 'test', 'scripts'],
  llm: ['cli', 'test', 'scripts'],
  cli: ['test', 'scripts'],
};

const ROOT = resolve(import.meta.dirname, '..');

function sources(folder: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** Every relative module specifier in a file: static imports and re-exports, dynamic imports, `new URL(…, import.meta.url)`. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/g,
    /\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]/g,
    /\bnew URL\(\s*['"](\.{1,2}\/[^'"]+)['"]/g,
    /siblingModule\([^,]+,\s*['"](\.{1,2}\/[^'"]+)['"]/g,
  ];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[1]!);
  return found;
}

function topFolder(file: string, specifier: string): string {
  return relative(ROOT, resolve(dirname(file), specifier)).split(/[\\/]/)[0]!;
}

/** The imports of `files` (repository-relative path → text) that reach a folder the file's floor must not import from. */
function offences(files: ReadonlyArray<{ path: string; text: string }>): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    const forbidden = FORBIDDEN[path.split('/')[0]!] ?? [];
    for (const specifier of specifiers(text)) {
      if (forbidden.includes(topFolder(join(ROOT, path), specifier))) found.push(`${path} → ${specifier}`);
    }
  }
  return found;
}

describe('layering: lower floors import nothing from the floors above them', () => {
  for (const [floor, forbidden] of Object.entries(FORBIDDEN)) {
    it(`${floor}/ reaches none of ${forbidden.join(', ')}`, () => {
      const files = sources(join(ROOT, floor)).map((file) => ({ path: relative(ROOT, file).split('\\').join('/'), text: readFileSync(file, 'utf8') }));
      expect(files.length).toBeGreaterThan(0);
      expect(offences(files)).toEqual([]);
    });
  }

  it('names a planted violation: the evaluator reaching the LLM tooling or the CLI, the LLM tooling reaching the CLI', () => {
    const planted = [
      { path: 'orchestrator/result/planted.ts', text: "import { judgesReportSection } from '../../llm/judges/report.js';" },
      { path: 'scoring/planted.ts', text: "export { x } from '../llm/judges/scoring/rubric.js';" },
      { path: 'viewer/planted.ts', text: "const m = await import('../cli/main.js');" },
      { path: 'llm/judges/planted.ts', text: "import { registerJudgeCommands } from '../../cli/commands/judge.js';" },
      { path: 'cli/planted.ts', text: "import { LLM_RESULT_CONTRIBUTORS } from '../llm/result-contributors.js';" },
    ];
    expect(offences(planted)).toEqual([
      'orchestrator/result/planted.ts → ../../llm/judges/report.js',
      'scoring/planted.ts → ../llm/judges/scoring/rubric.js',
      'viewer/planted.ts → ../cli/main.js',
      'llm/judges/planted.ts → ../../cli/commands/judge.js',
    ]);
  });

  it('finds the kinds of reference it polices (a check that cannot see imports would pass vacuously)', () => {
    const text = [
      "import { a } from '../orchestrator/errors.js';",
      "export * from '../../orchestrator/x.js';",
      "const m = await import('../orchestrator/y.js');",
      "const u = new URL('../cli/main.js', import.meta.url);",
      "siblingModule(import.meta.url, '../cli/main.js')",
    ].join('\n');
    expect(specifiers(text)).toEqual(['../orchestrator/errors.js', '../../orchestrator/x.js', '../orchestrator/y.js', '../cli/main.js', '../cli/main.js']);
  });
});
