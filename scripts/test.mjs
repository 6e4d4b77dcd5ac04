#!/usr/bin/env node
// `npm test`: everything CI runs. Type-check, build (the CLI tests run the built `bin/sbeval.js` too),
// run every vitest suite, then print a plain `N passed, N failed` line from the real run's JSON report
// (CI reads that line; vitest's own summary is not in a form it parses).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

function step(name, command, commandArgs) {
  process.stdout.write(`\n== ${name}: ${command} ${commandArgs.join(' ')}\n`);
  const result = spawnSync(command, commandArgs, { stdio: 'inherit' });
  return result.status ?? 1;
}

let failedSteps = 0;
if (step('typecheck', npx, ['tsc', '-p', 'tsconfig.json', '--noEmit']) !== 0) failedSteps += 1;
if (step('build', npx, ['tsc', '-p', 'tsconfig.build.json']) !== 0) failedSteps += 1;

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
