import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `npm run lint` (package.json; `npm test` runs it over the whole tree) fails on a lint finding and on
 * unformatted code, and passes on clean code: the same command, with the repository's biome.jsonc, run
 * in a scratch folder that holds one planted file.
 */

const ROOT = resolve(import.meta.dirname, '..', '..');
const LINT = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.lint!;
const BIOME = join(ROOT, 'node_modules', '.bin', process.platform === 'win32' ? 'biome.cmd' : 'biome');
const scratch = mkdtempSync(join(tmpdir(), 'sbeval-lint-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs the lint script's arguments in a folder holding only `file` (no git there, so no ignore file). */
function lint(name: string, text: string): { status: number; output: string } {
  const dir = mkdtempSync(join(scratch, 'case-'));
  copyFileSync(join(ROOT, 'biome.jsonc'), join(dir, 'biome.jsonc'));
  writeFileSync(join(dir, name), text);
  const [command, ...args] = LINT.split(' ');
  expect(command).toBe('biome');
  const result = spawnSync(BIOME, [...args, '--vcs-enabled=false'], { cwd: dir, encoding: 'utf8' });
  return { status: result.status ?? 1, output: `${result.stdout}${result.stderr}` };
}

describe('lint', () => {
  it('is Biome at the version package.json pins', () => {
    const pinned = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies[
      '@biomejs/biome'
    ];
    expect(execFileSync(BIOME, ['--version'], { encoding: 'utf8' })).toContain(pinned);
  });

  it('passes clean code', () => {
    const clean = lint('clean.ts', 'export function same(a: unknown, b: unknown): boolean {\n  return a === b;\n}\n');
    expect(clean.output).not.toMatch(/error|warn/i);
    expect(clean.status).toBe(0);
  });

  it('fails on a planted lint finding', () => {
    const planted = lint('planted.ts', 'export function same(a: unknown, b: unknown): boolean {\n  return a == b;\n}\n');
    expect(planted.status).not.toBe(0);
    expect(planted.output).toContain('lint/suspicious/noDoubleEquals');
  });

  it('fails on unformatted code', () => {
    const planted = lint('planted.ts', 'export const x =  "1"\n');
    expect(planted.status).not.toBe(0);
    expect(planted.output).toMatch(/format/i);
  });

  it("checks the viewer page's JavaScript too", () => {
    const planted = lint('page.js', 'export function same(a, b) {\n  return a == b;\n}\n');
    expect(planted.status).not.toBe(0);
    expect(planted.output).toContain('lint/suspicious/noDoubleEquals');
  });
});
