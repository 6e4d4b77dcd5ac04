import type { GuardOptions } from '../layout/root-guard.js';

/**
 * The commands that write into a competition root, named by their first argument `<root>`. Each of
 * them runs behind the root guard (orchestrator/layout/root-guard.ts: no symbolic links where sbeval
 * writes, one lock per root, temporaries of killed runs removed) — main.ts does it for all of them in
 * one place, before the command's action. Read-only commands (`view`, `explain`, `verify`, `qualify`
 * without `--copy-to` into a root…) and commands that write elsewhere (`level --image`, `record --out`,
 * `model`, `unity`) take no lock.
 */
export const ROOT_WRITERS: ReadonlyMap<string, GuardOptions> = new Map([
  ['run', {}],
  ['generate', { create: true }],
  ['extract', {}],
  ['convert', {}],
  ['simulate', {}],
  ['similarity', {}],
  ['diversity', {}],
  ['score', {}],
]);
