import { fileURLToPath } from 'node:url';

/**
 * How to start a Node process (or worker thread) on one of our own modules. From `dist/` the module
 * is plain JavaScript; from the TypeScript sources (tests, `tsx` runs) the child needs tsx's loader.
 */
export function nodeArgsFor(moduleUrl: URL): { execArgv: string[]; file: string } {
  const file = fileURLToPath(moduleUrl);
  return { execArgv: file.endsWith('.ts') ? ['--import', 'tsx'] : [], file };
}

/** `new URL('./x.js', import.meta.url)` resolved to the sibling that exists (`.ts` when running from source). */
export function siblingModule(base: string, relative: string): URL {
  const url = new URL(relative, base);
  if (base.endsWith('.ts') && url.pathname.endsWith('.js')) return new URL(url.href.replace(/\.js$/, '.ts'));
  return url;
}
