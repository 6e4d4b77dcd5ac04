import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { SbevalError } from '../core/errors.js';

/**
 * Where the orchestrator's endpoint listens (`sbeval run --engine bridge --listen host:port`) and
 * which token engines must present. Loopback is the default; any other address lets engines on other
 * machines dial in, and then the token must be one the operator chose and shared out of band — from
 * `SBEVAL_TOKEN` or a token file — never one printed by sbeval, never one on a command line (`ps`
 * shows argv to every user of the machine).
 */
interface ListenAddress {
  host: string;
  port: number;
  /** Only this machine can connect (127.0.0.0/8, ::1, localhost). */
  loopback: boolean;
}

/** Tokens for a non-loopback endpoint: at least this long (`openssl rand -hex 32` gives 64). */
export const MIN_SHARED_TOKEN_LENGTH = 32;

function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/** `host:port`, `[v6]:port` or `v6-address:port`; port 0 lets the OS choose. */
export function parseListen(text: string): ListenAddress {
  const trimmed = text.trim();
  const bracketed = /^\[([^\]]+)\]:(\d{1,5})$/.exec(trimmed);
  const plain = /^(.+):(\d{1,5})$/.exec(trimmed);
  const match = bracketed ?? plain;
  const problem = (why: string) =>
    new SbevalError('config', `--listen "${text}": ${why}`, 'use host:port, e.g. 127.0.0.1:0 (this machine only) or 0.0.0.0:8765 (every interface)');
  if (!match) throw problem('expected host:port');
  const host = match[1] as string;
  const port = Number(match[2]);
  if (!Number.isInteger(port) || port > 65_535) throw problem(`port ${match[2]} is not 0–65535`);
  if (!bracketed && host.includes(':')) throw problem('an IPv6 address goes in brackets, e.g. [::1]:8765');
  if (!(isIP(host) !== 0 || /^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/.test(host))) throw problem(`"${host}" is not an IP address or host name`);
  return { host, port, loopback: isLoopbackHost(host) };
}

/** The URLs engines on other machines can dial for an endpoint on `host` (all interfaces → each address). */
export function dialUrls(host: string, port: number): string[] {
  const url = (h: string) => `ws://${h.includes(':') ? `[${h}]` : h}:${port}`;
  if (host !== '0.0.0.0' && host !== '::') return [url(host)];
  const addresses: string[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.internal) continue;
      if (a.family === 'IPv4' || (host === '::' && a.family === 'IPv6' && !a.address.startsWith('fe80'))) addresses.push(a.address);
    }
  }
  return addresses.length > 0 ? addresses.map(url) : [url(host === '::' ? '::1' : '127.0.0.1')];
}

interface TokenSource {
  token: string;
  /** Where engines get it from: the file they can read with `--token-file`, or the environment. */
  from: { file: string } | { env: 'SBEVAL_TOKEN' };
  /** Problems worth a warning (a token file others can read). */
  warnings: string[];
}

/** Group or other permission bits set: users other than the owner may read the file. */
function readableByOthers(mode: number): boolean {
  return (mode & 0o077) !== 0;
}

/** Reads a token file: the first line, trimmed; refuses an empty one, and notes when other users can read it. */
export function readTokenFile(file: string): { token: string; readableByOthers: boolean; warnings: string[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SbevalError('config', `cannot read the token file ${file}: ${(error as Error).message}`);
  }
  const token = (text.split(/\r?\n/)[0] ?? '').trim();
  if (token.length === 0)
    throw new SbevalError('config', `the token file ${file} is empty`, 'put the token on its first line, e.g. openssl rand -hex 32 > token');
  let others = false;
  try {
    others = readableByOthers(statSync(file).mode);
  } catch {
    // Read above; a race with its removal changes nothing here.
  }
  return { token, readableByOthers: others, warnings: others ? [`the token file ${file} can be read by other users (chmod 600 ${file})`] : [] };
}

/**
 * The token for an endpoint on `address`: from `tokenFile`, else `SBEVAL_TOKEN`, else (loopback only)
 * none — the caller generates one and writes it to a file of its own. A non-loopback address without a
 * token, with a short one, or with a token file other users can read, is refused.
 */
export function sharedToken(address: ListenAddress, options: { tokenFile?: string | undefined; env?: NodeJS.ProcessEnv }): TokenSource | undefined {
  const env = options.env ?? process.env;
  let source: TokenSource | undefined;
  if (options.tokenFile !== undefined) {
    const { token, readableByOthers: others, warnings } = readTokenFile(options.tokenFile);
    // Other machines may try the token: one that other users of this machine can read is no secret.
    if (others && !address.loopback) {
      throw new SbevalError(
        'config',
        `the token file ${options.tokenFile} can be read by other users, and listening on ${address.host} lets other machines connect with it`,
        `chmod 600 ${options.tokenFile}, then run the same command again`,
      );
    }
    source = { token, from: { file: options.tokenFile }, warnings };
  } else if (env.SBEVAL_TOKEN) {
    source = { token: env.SBEVAL_TOKEN, from: { env: 'SBEVAL_TOKEN' }, warnings: [] };
  }
  if (!address.loopback) {
    if (!source) {
      throw new SbevalError(
        'config',
        `listening on ${address.host} lets other machines connect: the engines need a token you share with them`,
        'set SBEVAL_TOKEN or pass --token-file <file> (e.g. openssl rand -hex 32 > token && chmod 600 token), and give the engines the same file',
      );
    }
    if (source.token.length < MIN_SHARED_TOKEN_LENGTH) {
      throw new SbevalError(
        'config',
        `the token is ${source.token.length} characters; one that other machines can try needs at least ${MIN_SHARED_TOKEN_LENGTH}`,
        'openssl rand -hex 32 > token',
      );
    }
  }
  return source;
}
