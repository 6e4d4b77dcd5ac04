import { afterAll, vi } from 'vitest';

/**
 * vitest setup file: test files share their worker process (`isolate: false` in vitest.config.ts), so
 * each file leaves the process as it found it — its environment variables, working directory, exit
 * code, timers and spies — whatever its own hooks forgot. Registered first, this hook runs after the
 * file's own `afterAll` hooks (vitest runs after-hooks in reverse order).
 */
const env = { ...process.env };
const cwd = process.cwd();

afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
  Object.assign(process.env, env);
  if (process.cwd() !== cwd) process.chdir(cwd);
  process.exitCode = undefined;
});
