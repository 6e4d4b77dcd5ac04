import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EngineEndpoint } from '../../bridge/endpoint.js';
import { dialUrls, parseListen, readTokenFile, sharedToken } from '../../bridge/listen.js';
import { SbevalError } from '../../core/errors.js';
import { storageFault } from '../../core/storage.js';
import { guardWrite } from '../../core/write-guard.js';
import type { RunConfig } from '../config/index.js';
import { EnginePool, type EnginePoolOptions, type PoolEvent } from '../pool/index.js';
import type { ProgressSink } from '../progress/types.js';
import type { RunLog } from './run-log.js';

/**
 * `sbeval run --engine bridge`: listen on `--listen` (default 127.0.0.1, an OS port) and use every
 * engine that dials in with the token: Unity instances, headless workers on other machines. Trials
 * wait until an engine is there; once every engine that was there has left (retired for a lie, crashed),
 * they wait `limits.engineWaitSeconds` for another, then fail with "no engine left: …" (the pool).
 *
 * The token never appears on a command line, in the run log or in what sbeval prints: it comes from
 * `--token-file`/`tokenFile` or `SBEVAL_TOKEN` (required, and at least 32 characters, when other
 * machines can connect), or — loopback only — is generated once into `<root>/.sbeval/bridge-token`
 * (mode 600) and engines read it with `--token-file`.
 */
const GENERATED_TOKEN_FILE = join('.sbeval', 'bridge-token');

export async function bridgePool(
  config: RunConfig,
  common: Omit<EnginePoolOptions, 'engines'>,
  log: RunLog,
  progress: ProgressSink,
  warn: (message: string) => void,
): Promise<EnginePool> {
  const address = parseListen(config.listen ?? '127.0.0.1:0');
  const source = sharedToken(address, { tokenFile: config.tokenFile });
  for (const warning of source?.warnings ?? []) warn(warning);
  let token: string;
  let tokenFile: string | undefined;
  if (source) {
    token = source.token;
    tokenFile = 'file' in source.from ? source.from.file : undefined;
  } else {
    tokenFile = join(config.root, GENERATED_TOKEN_FILE);
    token = generatedToken(tokenFile, (line) => progress.note('simulate', line));
  }
  const endpoint = await EngineEndpoint.listen({ host: address.host, port: address.port, token, log: (line) => log.write({ type: 'endpoint', line }) });
  let pool: EnginePool | undefined;
  const urls = dialUrls(address.host, endpoint.port);
  const how = tokenFile ? `--token-file ${tokenFile}` : '(with SBEVAL_TOKEN set to the same token in its environment)';
  pool = new EnginePool({
    ...common,
    awaitEngines: true,
    engineWaitMs: config.limits.engineWaitMs,
    onClosed: () => endpoint.close(),
    onEvent: (event: PoolEvent) => {
      common.onEvent?.(event);
      // Nobody replaces a bridge engine but its owner: say how many are left and where more can dial in.
      if (event.type === 'engine-retired' && event.reason !== 'the engine pool closed' && pool) {
        const wait = pool.size === 0 ? ` (the levels left fail if none dials in within ${config.limits.engineWaitMs / 1000} s)` : '';
        progress.note('simulate', `${pool.size} engine(s) left; more can dial in${wait}: sbeval engine --connect ${urls[0]} ${how}`);
      }
    },
  });
  endpoint.onEngine((engine) => pool?.add(engine));
  log.write({ type: 'endpoint', line: `listening on ${endpoint.url}; token from ${tokenFile ? `file ${tokenFile}` : 'SBEVAL_TOKEN'}` });
  for (const url of urls) progress.note('simulate', `waiting for engines on ${url}: sbeval engine --connect ${url} ${how}`);
  return pool;
}

/**
 * The loopback token: the one already in `file` (engines started earlier keep working), else a fresh
 * one (mode 600). The file passes the write guard (a link there, e.g. to a well-known system file,
 * is refused, never read); one that other users can read gets mode 600 again, with a line saying so.
 */
function generatedToken(file: string, note: (line: string) => void): string {
  try {
    guardWrite(file);
    if (existsSync(file)) {
      try {
        const existing = readTokenFile(file);
        if (existing.readableByOthers) {
          chmodSync(file, 0o600);
          note(`the token file ${file} could be read by other users: its mode is now 600`);
        }
        return existing.token;
      } catch (error) {
        if (storageFault(error)) throw error;
        // Unreadable or empty: replaced below.
      }
    }
    const token = randomBytes(32).toString('hex');
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    if (readFileSync(file, 'utf8').trim() !== token)
      throw new SbevalError(
        'storage',
        `could not write the token file ${file}: it reads back different`,
        'check that nothing else writes that file, or name another with --token-file',
      );
    return token;
  } catch (error) {
    throw storageFault(error, file) ?? error;
  }
}
