/**
 * Runs many `sbeval` command lines one after another in ONE process, for tests that need hundreds of
 * them (the write-guard walk): `node --import tsx test/helpers/cli-batch.ts <cases.json> <results.json>`.
 * Each case is parsed and run by `runCli` — the function the `sbeval` binary calls with its argv — with
 * its own stderr and exit code captured; only the process start (≈ 3 s under tsx) is shared.
 *
 * A case may carry a file-system fault (`fault`: the spec of test/helpers/fs-faults.mjs), armed for
 * that case only.
 *
 * cases.json: `[{ "argv": ["run", "/tmp/x", …], "fault"?: {…} }, …]`; results.json: `[{ "exitCode": 2, "stderr": "…" }, …]`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
// @ts-expect-error: a plain JavaScript test helper without types
import { setFault } from './fs-faults.mjs';
import { runCli } from '../../orchestrator/cli/main.js';

interface BatchCase {
  argv: string[];
  fault?: { code: string; under: string; afterBytes?: number };
}

const [casesFile, resultsFile] = process.argv.slice(2);
if (!casesFile || !resultsFile) throw new Error('usage: cli-batch.ts <cases.json> <results.json>');
const cases = JSON.parse(readFileSync(casesFile, 'utf8')) as BatchCase[];
const results: Array<{ exitCode: number; stderr: string }> = [];
const write = process.stderr.write.bind(process.stderr);
for (const c of cases) {
  let stderr = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stderr.write;
  process.exitCode = undefined;
  let exitCode: number;
  try {
    (setFault as (spec: BatchCase['fault'] | null) => void)(c.fault ?? null);
    exitCode = await runCli(['node', 'sbeval', ...c.argv]);
  } finally {
    (setFault as (spec: null) => void)(null);
    process.stderr.write = write;
  }
  results.push({ exitCode, stderr });
  writeFileSync(resultsFile, `${JSON.stringify(results)}\n`);
}
process.exitCode = 0;
