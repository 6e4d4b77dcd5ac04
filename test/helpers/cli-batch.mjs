// Runs many `sbeval` command lines one after another in ONE process, for tests that need hundreds of
// them (the write-guard walk): `node test/helpers/cli-batch.mjs <cases.json> <results.json>`.
// Each case is parsed and run by `runCli` from dist/ — the function the `sbeval` binary (bin/sbeval.js)
// calls with its argv; dist/ is kept current by the globalSetup test/helpers/built-dist.ts — with its
// own stderr and exit code captured; only the process start is shared.
//
// A case may carry a file-system fault (`fault`: the spec of test/helpers/fs-faults.mjs), armed for
// that case only.
//
// cases.json: `[{ "argv": ["run", "/tmp/x", …], "fault"?: {…} }, …]`; results.json: `[{ "exitCode": 2, "stderr": "…" }, …]`.
import { readFileSync, writeFileSync } from 'node:fs';
import { setFault } from './fs-faults.mjs';

const { runCli } = await import(new URL('../../dist/cli/main.js', import.meta.url).href);

const [casesFile, resultsFile] = process.argv.slice(2);
if (!casesFile || !resultsFile) throw new Error('usage: cli-batch.mjs <cases.json> <results.json>');
const cases = JSON.parse(readFileSync(casesFile, 'utf8'));
const results = [];
const write = process.stderr.write.bind(process.stderr);
for (const c of cases) {
  let stderr = '';
  process.stderr.write = (chunk) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  };
  process.exitCode = undefined;
  let exitCode;
  try {
    setFault(c.fault ?? null);
    exitCode = await runCli(['node', 'sbeval', ...c.argv]);
  } finally {
    setFault(null);
    process.stderr.write = write;
  }
  results.push({ exitCode, stderr });
  writeFileSync(resultsFile, `${JSON.stringify(results)}\n`);
}
process.exitCode = 0;
