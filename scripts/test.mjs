#!/usr/bin/env node
// `npm test`: everything CI runs. Type-check, lint, build (the CLI tests run the built `bin/sbeval.js` too),
// run every vitest suite, then print a plain `N passed, N failed` line from the real run's JSON report
// (CI reads that line; vitest's own summary is not in a form it parses).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function step(name, command, commandArgs) {
  process.stdout.write(`\n== ${name}: ${command} ${commandArgs.join(' ')}\n`);
  const result = spawnSync(command, commandArgs, { stdio: 'inherit' });
  return result.status ?? 1;
}

/**
 * A step run beside the others: its output is kept and printed whole when it ends, so its lines do not
 * interleave with vitest's. tsc is single-threaded and vitest does not keep both cores busy all the
 * time (test files wait on child processes, sockets and browsers), so the type-check runs beside the
 * tests instead of before them (docs/benchmarks.md, "Test suite").
 */
function backgroundStep(name, command, commandArgs) {
  return new Promise((done) => {
    const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    child.on('error', (error) => chunks.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code) => done({ code: code ?? 1, text: `\n== ${name}: ${command} ${commandArgs.join(' ')}\n${Buffer.concat(chunks).toString()}` }));
  });
}

const typecheck = backgroundStep('typecheck', npx, ['tsc', '-p', 'tsconfig.json', '--noEmit']);
// The viewer's and the survey's pages are plain JS checked from their JSDoc, with the browser's types
// (viewer/static/tsconfig.json, llm/survey/page/tsconfig.json): one after the other, the box has two cores.
const pageTypecheck = backgroundStep('typecheck (viewer page)', npx, ['tsc', '-p', 'viewer/static/tsconfig.json']).then(async (viewer) => {
  const survey = await backgroundStep('typecheck (survey page)', npx, ['tsc', '-p', 'llm/survey/page/tsconfig.json']);
  return { code: viewer.code || survey.code, text: viewer.text + survey.text };
});
// Format and lint (`npm run lint`, biome.jsonc): a finding fails the run like a failed test.
const lint = backgroundStep('lint', npm, ['run', '--silent', 'lint']);
// dist/ from these sources (the CLI tests run bin/sbeval.js): built unless `npm ci`'s prepare step or an
// earlier build already made it from the same sources (scripts/build-if-stale.mjs).
let failedSteps = step('build (when the sources changed)', process.execPath, ['scripts/build-if-stale.mjs']) !== 0 ? 1 : 0;

const outDir = join('test', '.out');
mkdirSync(outDir, { recursive: true });
const report = join(outDir, 'vitest-report.json');
rmSync(report, { force: true });
const vitestStatus = step('vitest', npx, ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...args]);

let passed = 0;
let failed = 0;
try {
  const json = JSON.parse(readFileSync(report, 'utf8'));
  passed = json.numPassedTests ?? 0;
  // A suite that fails to load has no tests; count it as a failure so it cannot pass unnoticed.
  const brokenSuites = (json.testResults ?? []).filter((s) => s.status === 'failed' && (s.assertionResults ?? []).length === 0).length;
  failed = (json.numFailedTests ?? 0) + brokenSuites;
} catch (error) {
  failed = Math.max(1, failed);
  process.stdout.write(`could not read the vitest report ${report}: ${error.message}\n`);
}
for (const background of [typecheck, pageTypecheck, lint]) {
  const checked = await background;
  process.stdout.write(checked.text);
  if (checked.code !== 0) failedSteps += 1;
}
failed += failedSteps;
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(vitestStatus !== 0 || failed > 0 ? 1 : 0);
