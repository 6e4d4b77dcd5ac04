#!/usr/bin/env node
// The published entry point runs the compiled CLI from dist/ (built by `npm ci` through `prepare`,
// or by `npm run build` after editing the sources).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write('sbeval: dist/ is missing; run `npm run build` (npm ci does it) in the sbeval checkout.\n');
  process.exit(2);
}
const { runCli, exitQuietlyOnClosedPipe } = await import(main.href);
exitQuietlyOnClosedPipe();
process.exitCode = await runCli(process.argv);
