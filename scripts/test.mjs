#!/usr/bin/env node
// `npm test`: everything CI runs. Type-check, build (the CLI tests run the built `bin/sbeval.js` too),
// run every vitest suite, then print a plain `N passed, N failed` line from the real run's JSON report
// (CI reads that line; vitest's own summary is not in a form it parses).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

function step(name, command, commandArgs) {
  process.stdout.write(`\n== ${name}: ${command} ${commandArgs.join(' ')}\n`);
  const result = spawnSync(command, commandArgs, { stdio: 'inherit' });
  return result.status ?? 1;
}

/**
 * A step run beside others: its output is kept and printed whole when it ends, so two steps' lines do
 * not interleave. tsc is single-threaded, so the type-check and the build together take the time of
 * the longer one on a 2-core machine (about 30 s instead of 55 s here).
 */
function parallelStep(name, command, commandArgs) {
  return new Promise((done) => {
    const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    child.on('error', (error) => chunks.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code) => {
      process.stdout.write(`\n== ${name}: ${command} ${commandArgs.join(' ')}\n${Buffer.concat(chunks).toString()}`);
      done(code ?? 1);
    });
  });
}

const statuses = await Promise.all([parallelStep('typecheck', npx, ['tsc', '-p', 'tsconfig.json', '--noEmit']), parallelStep('build', npx, ['tsc', '-p', 'tsconfig.build.json'])]);
const failedSteps = statuses.filter((status) => status !== 0).length;

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
failed += failedSteps;
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(vitestStatus !== 0 || failed > 0 ? 1 : 0);
