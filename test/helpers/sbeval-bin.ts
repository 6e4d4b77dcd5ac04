import { fileURLToPath } from 'node:url';

/**
 * The `sbeval` command as the package installs it: `bin/sbeval.js`, which runs the compiled CLI in
 * `dist/` (kept current by the globalSetup test/helpers/built-dist.ts). Child processes of the tests
 * run `node <SBEVAL_BIN> <args>`.
 */
export const SBEVAL_BIN = fileURLToPath(new URL('../../bin/sbeval.js', import.meta.url));

/** The arguments after `node` for `sbeval <args>`. */
export const sbevalArgv = (args: readonly string[]): string[] => [SBEVAL_BIN, ...args];
