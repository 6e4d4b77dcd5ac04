import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { sbevalArgv } from '../helpers/sbeval-bin.js';

/**
 * `sbeval unity doctor` loads the doctor's modules and none of the other unity commands' (the command
 * groups of cli/commands/index.ts), and `sbeval --help` none of the LLM tooling: the real CLI in a child process, with a module-resolution hook
 * that writes every module URL it resolves to a file.
 */
const dir = mkdtempSync(join(tmpdir(), 'sbeval-lazy-unity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hook = join(dir, 'hook.mjs');
writeFileSync(
  hook,
  "import { appendFileSync } from 'node:fs';\n" +
    'export async function resolve(specifier, context, next) {\n' +
    '  const resolved = await next(specifier, context);\n' +
    "  appendFileSync(process.env.SBEVAL_MODULE_LOG, resolved.url + '\\n');\n" +
    '  return resolved;\n' +
    '}\n',
);
const register = join(dir, 'register.mjs');
writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hook).href)});\n`);

/** The modules under `dist/<folder>/` a run of `args` resolved (default: the CLI's own command modules, by file name). */
async function commandModules(args: string[], folder = 'cli/commands/'): Promise<string[]> {
  const log = join(dir, `${args.join('-')}.log`);
  writeFileSync(log, '');
  const result = await execa(process.execPath, ['--import', pathToFileURL(register).href, ...sbevalArgv(args)], {
    cwd: PROJECT_ROOT,
    reject: false,
    env: { SBEVAL_MODULE_LOG: log, FORCE_COLOR: '0' },
  });
  expect(result.exitCode, String(result.stderr)).toBe(0);
  const modules = readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url.includes(`/dist/${folder}`));
  return [...new Set(modules.map((url) => url.slice(url.lastIndexOf('/') + 1)))].sort();
}

describe('the CLI loads only the command it runs', () => {
  it('`unity doctor` loads the doctor and not unity.js or unity-calibrate.js; `unity launch` loads unity.js', async () => {
    expect(await commandModules(['unity', 'doctor', '--help'])).toEqual(['index.js', 'summaries.js', 'unity-doctor.js']);
    expect(await commandModules(['unity', 'launch', '--help'])).toEqual(expect.arrayContaining(['unity.js', 'unity-calibrate.js', 'unity-doctor.js']));
  }, 60_000);

  it('`--help` and `view --help` load no module of the LLM tooling (no model-call client, no config schema of its own); `judge rubric --help` does', async () => {
    expect(await commandModules(['--help'], 'llm/')).toEqual([]);
    expect(await commandModules(['view', '--help'], 'llm/')).toEqual([]);
    expect(await commandModules(['judge', 'rubric', '--help'], 'llm/')).toEqual(expect.arrayContaining(['apis.js', 'config.js', 'client.js']));
  }, 60_000);

  it('`publish` loads its own command module and no other command', async () => {
    expect(await commandModules(['publish', '--help'])).toEqual(['index.js', 'publish.js', 'summaries.js']);
  }, 60_000);
});
