/**
 * `npm run unity:mutants [-- --only <id>[,<id>…]] [-- --quick] [-- --no-baseline]`: which faults of the
 * Unity half `npm run unity:check` catches. For every mutant of test/bridge/unity-mutants.json it
 * copies unity-plugin/ to a temporary folder, applies the mutant's edits (each must match exactly once),
 * and runs `npm run unity:check -- --bail=1` against the copy (SBEVAL_UNITY_PLUGIN, read by
 * test/bridge/mcs.ts); the mutant is killed when unity:check fails. First it runs unity:check on the
 * unmutated sources the same way, so a failure is the mutant's. `--quick` runs only each mutant's
 * `killedBy` test. Exits 1 when a mutant survives or an edit does not apply. Each run builds the mutated
 * plugin with mcs and starts the stand-in editor: allow about half a minute per mutant.
 */

import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { isMainModule } from '../core/main-module.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const LIST = join(ROOT, 'test', 'bridge', 'unity-mutants.json');

export interface Mutant {
  id: string;
  fault: string;
  edits: Array<{ file: string; find: string; replace: string }>;
  killedBy: string;
}

export function loadMutants(): Mutant[] {
  return (JSON.parse(readFileSync(LIST, 'utf8')) as { mutants: Mutant[] }).mutants;
}

/** Applies a mutant's edits to the plugin copy at `plugin`; the reason it cannot, or undefined. */
export function applyMutant(plugin: string, mutant: Mutant): string | undefined {
  for (const edit of mutant.edits) {
    const path = join(plugin, edit.file);
    if (!existsSync(path)) return `${edit.file} does not exist`;
    const text = readFileSync(path, 'utf8');
    const count = text.split(edit.find).length - 1;
    if (count !== 1) return `${edit.file}: the text to replace occurs ${count} times (expected once): ${JSON.stringify(edit.find.slice(0, 80))}`;
    writeFileSync(
      path,
      text.replace(edit.find, () => edit.replace),
    );
  }
  return undefined;
}

interface Outcome {
  id: string;
  killed: boolean;
  detail: string;
}

/** `npm run unity:check -- --bail=1` on the plugin sources at `plugin`; the failing tests' names, or [] when it passed. */
async function unityCheck(plugin: string, work: string, only?: string): Promise<{ passed: boolean; failing: string[]; output: string }> {
  const report = join(work, 'report.json');
  const args = ['run', 'unity:check', '--', '--bail=1', '--reporter=json', `--outputFile=${report}`, ...(only ? ['-t', only] : [])];
  // TMPDIR: the mutated plugin's build (test/bridge/mcs.ts caches it under the OS temp folder) goes away with `work`.
  const result = await execa('npm', args, { cwd: ROOT, reject: false, all: true, env: { SBEVAL_UNITY_PLUGIN: plugin, TMPDIR: work, FORCE_COLOR: '0' } });
  let failing: string[] = [];
  try {
    const json = JSON.parse(readFileSync(report, 'utf8')) as {
      testResults: Array<{ assertionResults: Array<{ status: string; fullName: string }>; message?: string }>;
    };
    failing = json.testResults.flatMap((f) => [
      ...f.assertionResults.filter((a) => a.status === 'failed').map((a) => a.fullName),
      ...(f.message ? [f.message.split('\n')[0] as string] : []),
    ]);
  } catch {
    failing = ['(no report: the run did not get to the tests)'];
  }
  return { passed: result.exitCode === 0, failing, output: String(result.all ?? '') };
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const value = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const quick = args.includes('--quick');
  const only = value('--only')?.split(',');
  const mutants = loadMutants().filter((m) => !only || only.includes(m.id));
  if (!args.includes('--no-baseline')) {
    const work = mkdtempSync(join(tmpdir(), 'sbeval-mutant-baseline-'));
    try {
      const baseline = await unityCheck(join(ROOT, 'unity-plugin'), work);
      if (!baseline.passed) {
        process.stderr.write(`unity:check fails without any mutant, so no mutant can be judged:\n${baseline.output.slice(-3000)}\n`);
        return 1;
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  const outcomes: Outcome[] = [];
  for (const mutant of mutants) {
    const work = mkdtempSync(join(tmpdir(), `sbeval-mutant-${mutant.id}-`));
    try {
      const plugin = join(work, 'unity-plugin');
      cpSync(join(ROOT, 'unity-plugin'), plugin, { recursive: true });
      const problem = applyMutant(plugin, mutant);
      if (problem) {
        outcomes.push({ id: mutant.id, killed: false, detail: `does not apply: ${problem}` });
        continue;
      }
      const check = await unityCheck(plugin, work, quick ? mutant.killedBy : undefined);
      outcomes.push({
        id: mutant.id,
        killed: !check.passed,
        detail: check.passed ? 'SURVIVED: unity:check passed' : `killed by ${check.failing.join('; ') || 'the build'}`,
      });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    const last = outcomes.at(-1) as Outcome;
    process.stdout.write(`${last.killed ? 'killed  ' : 'SURVIVED'} ${last.id}: ${last.detail}\n`);
  }
  const survived = outcomes.filter((o) => !o.killed);
  process.stdout.write(
    `${outcomes.length - survived.length}/${outcomes.length} mutants killed by npm run unity:check${quick ? ' (each by its killedBy test)' : ''}\n`,
  );
  return survived.length > 0 ? 1 : 0;
}

if (isMainModule(import.meta.url)) {
  process.exitCode = await main();
}
