import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The house's direction of dependencies (README, "Project layout"): the lower floors never reach up.
 * core/, levels/ ← bridge/ ← scoring/ ← viewer/ ← orchestrator/ (levels/ uses core/, core/ nothing).
 * The viewer is handed what it shows (a trace, a level, a competition listing) by the orchestrator,
 * which drives it; no product floor reads the suites or the developer scripts.
 * Each entry lists the folders a floor must not import from.
 */
const FORBIDDEN: Record<string, string[]> = {
  core: ['levels', 'bridge', 'scoring', 'viewer', 'orchestrator', 'test', 'scripts'],
  levels: ['bridge', 'scoring', 'viewer', 'orchestrator', 'test', 'scripts'],
  bridge: ['scoring', 'viewer', 'orchestrator', 'test', 'scripts'],
  scoring: ['viewer', 'orchestrator', 'test', 'scripts'],
  viewer: ['orchestrator', 'test', 'scripts'],
  orchestrator: ['test', 'scripts'],
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
export function specifiers(text: string): string[] {
  const found: string[] = [];
  const patterns = [/\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/g, /\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]/g, /\bnew URL\(\s*['"](\.{1,2}\/[^'"]+)['"]/g, /siblingModule\([^,]+,\s*['"](\.{1,2}\/[^'"]+)['"]/g];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[1]!);
  return found;
}

function topFolder(file: string, specifier: string): string {
  return relative(ROOT, resolve(dirname(file), specifier)).split(/[\\/]/)[0]!;
}

describe('layering: lower floors import nothing from the floors above them', () => {
  for (const [floor, forbidden] of Object.entries(FORBIDDEN)) {
    it(`${floor}/ reaches none of ${forbidden.join(', ')}`, () => {
      const offences: string[] = [];
      for (const file of sources(join(ROOT, floor))) {
        for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
          const target = topFolder(file, specifier);
          if (forbidden.includes(target)) offences.push(`${relative(ROOT, file)} → ${specifier}`);
        }
      }
      expect(offences).toEqual([]);
    });
  }

  it('finds the kinds of reference it polices (a check that cannot see imports would pass vacuously)', () => {
    const text = [
      "import { a } from '../orchestrator/errors.js';",
      "export * from '../../orchestrator/x.js';",
      "const m = await import('../orchestrator/y.js');",
      "const u = new URL('../orchestrator/cli/main.js', import.meta.url);",
      "siblingModule(import.meta.url, '../orchestrator/cli/main.js')",
    ].join('\n');
    expect(specifiers(text)).toEqual(['../orchestrator/errors.js', '../../orchestrator/x.js', '../orchestrator/y.js', '../orchestrator/cli/main.js', '../orchestrator/cli/main.js']);
  });
});
