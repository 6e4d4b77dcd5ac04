import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * How to start a Node process (or worker thread) on one of our own modules. From `dist/` the module
 * is plain JavaScript; from the TypeScript sources (tests, `tsx` runs) the child needs tsx's loader.
 */
export function nodeArgsFor(moduleUrl: URL): { execArgv: string[]; file: string } {
  const file = fileURLToPath(moduleUrl);
  return { execArgv: file.endsWith('.ts') ? ['--import', 'tsx'] : [], file };
}

/** `new URL('./<name>.js', import.meta.url)` resolved to the sibling that exists (`.ts` when running from source). */
export function siblingModule(base: string, relative: string): URL {
  const url = new URL(relative, base);
  if (base.endsWith('.ts') && url.pathname.endsWith('.js')) return new URL(url.href.replace(/\.js$/, '.ts'));
  return url;
}

/**
 * A worker thread on one of our own modules. From dist/ the worker runs the module directly. From the
 * sources, Node 20 does not apply `--import tsx` from a worker's execArgv before loading the worker's
 * main module, so a tiny eval'd bootstrap registers tsx's loader in the worker first and then imports it.
 */
export function startModuleWorker(moduleUrl: URL, options: { workerData?: unknown } = {}): Worker {
  const { execArgv, file } = nodeArgsFor(moduleUrl);
  if (execArgv.length === 0) return new Worker(file, options);
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(pathToFileURL(file).href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
