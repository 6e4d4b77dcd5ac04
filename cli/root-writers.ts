import type { GuardOptions } from '../orchestrator/layout/root-guard.js';

/**
 * The commands that write into a competition root, by their path (`judge rubric`), each with `<root>`
 * as its first argument. Each runs behind the root guard (orchestrator/layout/root-guard.ts: no
 * symbolic links where sbeval writes, one lock per root, temporaries of killed runs removed); main.ts
 * takes it for all of them in one place, before the command's action, and releases it when the
 * command ends. Commands that only read (`view`, `explain`, `verify`) or write elsewhere (`level
 * --image`, `record --out`, `model`, `unity`, `qualify --copy-to`) take no lock; `check` (only reads)
 * and `survey serve` (writes only raters' answer files, atomically, for days beside other commands)
 * take a `<root>` and no lock (test/orchestrator/root-lock.test.ts holds that list).
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
  // Reads result/ as the run left it (not half-written by a live one) and caches thumbnails in .sbeval/.
  ['publish', {}],
  ['judge rubric', {}],
  ['judge order', {}],
  ['survey build', {}],
  ['survey invite', {}],
  ['survey collect', {}],
]);

/** `judge rubric` for the `rubric` sub-command of `judge` (the program itself is not part of the path). */
export function commandPath(command: { name(): string; parent: unknown }): string {
  const names: string[] = [];
  for (let c: { name(): string; parent: unknown } | null = command; c && (c as { parent: unknown }).parent; c = c.parent as typeof c) names.unshift(c.name());
  return names.join(' ');
}
