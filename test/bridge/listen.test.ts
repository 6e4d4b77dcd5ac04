import { randomBytes } from 'node:crypto';
import { chmodSync, cpSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { MIN_SHARED_TOKEN_LENGTH, parseListen, sharedToken } from '../../bridge/listen.js';
import { runSimulateStage } from '../../orchestrator/stages/simulate.js';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { otherSide } from '../helpers/netns.js';
import { sbevalArgv } from '../helpers/sbeval-bin.js';
import { exampleCopy, readRunLog, runLogs, snapshot } from '../orchestrator/helpers/competition.js';
import { descendants } from '../orchestrator/helpers/processes.js';

/**
 * `sbeval run --engine bridge --listen host:port`: engines on other machines can
 * dial in, the token is one the operator shares (SBEVAL_TOKEN or a token file) and never appears on a
 * command line — neither the orchestrator's nor an engine's, nor in what sbeval prints.
 */

type Child = ResultPromise<{ reject: false; cwd: string; env: Record<string, string>; all: true }>;

function spawn(args: string[], env: Record<string, string> = {}, prefix: string[] = []): Child {
  const [file, ...rest] = prefix.length > 0 ? [...prefix, process.execPath, ...sbevalArgv(args)] : [process.execPath, ...sbevalArgv(args)];
  return execa(file as string, rest, { reject: false, cwd: PROJECT_ROOT, env: { FORCE_COLOR: '0', ...env }, all: true });
}

/** Resolves with the first `ws://…:port` the running command prints in its engine hint. */
function waitForHint(child: Child): Promise<{ line: string; port: number }> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const match = /waiting for engines on ws:\/\/\S+:(\d+): (.*)/.exec(text);
      if (match) {
        child.all?.off('data', onData);
        resolve({ line: match[0], port: Number(match[1]) });
      }
    };
    child.all?.on('data', onData);
    void child.then((r) => reject(new Error(`exited ${r.exitCode} before the engine hint:\n${r.all}`)));
  });
}

const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      cleanup();
    } catch {
      // best effort
    }
  }
});

/** The same levels simulated by the in-process engine: what any bridge run must write. */
async function inProcessReference(root: string): Promise<Map<string, string>> {
  const clean = mkdtempSync(join(tmpdir(), 'sbeval-listen-clean-'));
  for (const team of readdirSync(root).filter((t) => !t.startsWith('.') && statSync(join(root, t)).isDirectory() && !['logs', 'result'].includes(t))) {
    cpSync(join(root, team, 'levels'), join(clean, team, 'levels'), { recursive: true });
  }
  await runSimulateStage({ root: clean, engines: [new HeadlessEngine()] });
  const files = new Map<string, string>();
  for (const [file, hash] of snapshot(clean, ['logs', '.sbeval'])) if (/\/(stability|images)\//.test(file)) files.set(file, hash);
  return files;
}

function expectSameFiles(root: string, reference: Map<string, string>): void {
  const ours = snapshot(root, ['logs', '.sbeval']);
  expect(reference.size).toBeGreaterThan(0);
  for (const [file, hash] of reference) expect(ours.get(file), file).toBe(hash);
}

describe('--listen and tokens', () => {
  it('parses host:port for IPv4, IPv6 and names, and knows loopback from the rest', () => {
    expect(parseListen('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0, loopback: true });
    expect(parseListen('[::1]:8765')).toEqual({ host: '::1', port: 8765, loopback: true });
    expect(parseListen('0.0.0.0:8765')).toEqual({ host: '0.0.0.0', port: 8765, loopback: false });
    expect(parseListen('[::]:1')).toEqual({ host: '::', port: 1, loopback: false });
    expect(parseListen('localhost:9')).toEqual({ host: 'localhost', port: 9, loopback: true });
    for (const bad of ['8765', '0.0.0.0', '::1:80', 'host:70000', 'a b:1', '[::1]']) expect(() => parseListen(bad), bad).toThrow(/--listen/);
  });

  it('requires a shared token of at least 32 characters off loopback, from a file or SBEVAL_TOKEN', () => {
    const open = parseListen('0.0.0.0:0');
    expect(() => sharedToken(open, { env: {} })).toThrow(/lets other machines connect: the engines need a token you share/);
    expect(() => sharedToken(open, { env: { SBEVAL_TOKEN: 'short' } })).toThrow(new RegExp(`at least ${MIN_SHARED_TOKEN_LENGTH}`));
    const dir = mkdtempSync(join(tmpdir(), 'sbeval-token-'));
    const file = join(dir, 'token');
    const token = randomBytes(32).toString('hex');
    writeFileSync(file, `${token}\n`, { mode: 0o644 });
    // Other users of this machine can read it: no secret for a listener other machines reach, a warning on loopback.
    expect(() => sharedToken(open, { tokenFile: file, env: { SBEVAL_TOKEN: 'x'.repeat(40) } })).toThrow(
      `the token file ${file} can be read by other users, and listening on 0.0.0.0 lets other machines connect with it`,
    );
    expect(sharedToken(parseListen('127.0.0.1:0'), { tokenFile: file, env: {} })?.warnings).toEqual([
      `the token file ${file} can be read by other users (chmod 600 ${file})`,
    ]);
    chmodSync(file, 0o600);
    const fromFile = sharedToken(open, { tokenFile: file, env: { SBEVAL_TOKEN: 'x'.repeat(40) } });
    expect(fromFile?.token).toBe(token);
    expect(fromFile?.from).toEqual({ file });
    expect(fromFile?.warnings).toEqual([]);
    expect(sharedToken(parseListen('127.0.0.1:0'), { env: {} })).toBeUndefined();
  });

  it('refuses to listen beyond loopback without a shared token (exit 2, nothing simulated)', async () => {
    const root = exampleCopy({ teams: ['BlockSmith'], letters: ['I'] });
    const run = await spawn(['run', root, '--engine', 'bridge', '--listen', '0.0.0.0:0'], { SBEVAL_TOKEN: '' });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/listening on 0\.0\.0\.0 lets other machines connect.*SBEVAL_TOKEN or pass --token-file/);
  });

  it('on loopback: the hint names a token file, never the token; an engine started from the hint finishes the run', async () => {
    const root = exampleCopy({ teams: ['BlockSmith'], letters: ['I', 'L'] });
    const run = spawn(['run', root, '--engine', 'bridge'], { SBEVAL_TOKEN: '' });
    const { line, port } = await waitForHint(run);
    const tokenFile = join(root, '.sbeval', 'bridge-token');
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(line).toBe(`waiting for engines on ws://127.0.0.1:${port}: sbeval engine --connect ws://127.0.0.1:${port} --token-file ${tokenFile}`);
    // Start the engine exactly as the hint says; no command line shows the token (what `ps` shows).
    const engine = spawn(['engine', '--connect', `ws://127.0.0.1:${port}`, '--token-file', tokenFile]);
    cleanups.push(() => engine.kill('SIGKILL'));
    const commandLines = [run.pid, engine.pid].map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
    expect(commandLines[1]).toContain('--token-file');
    for (const cmdline of commandLines) expect(cmdline).not.toContain(token);
    const result = await run;
    expect(result.all).not.toContain(token);
    expect(result.exitCode, result.all).toBe(0);
    // Nor the run log.
    for (const log of runLogs(root)) expect(readFileSync(log, 'utf8')).not.toContain(token);
    expect((await engine).exitCode).toBe(0);
    expectSameFiles(root, await inProcessReference(root));
  }, 180_000);
});

/**
 * Engines from another network namespace (another machine, as far as the network goes): the run
 * listens on 0.0.0.0 with the token from SBEVAL_TOKEN; an engine inside a namespace joined by a veth
 * pair dials the host side's address with --token-file. Where namespaces cannot be made (no
 * CAP_NET_ADMIN), the engine dials this machine's own non-loopback address instead — the variant
 * that ran is printed and recorded in the test's assertions; the run must work either way.
 */
describe('--listen 0.0.0.0 with an engine from elsewhere', () => {
  it('serves an engine that connects from another network namespace (or a non-loopback address)', async () => {
    const side = otherSide(231);
    cleanups.push(side.cleanup);
    const { variant, nsIp, prefix } = side;
    const dialIp = side.hostIp;
    console.log(`--listen test variant: ${variant} (engine dials ${dialIp})`);

    const root = exampleCopy({ teams: ['GridThinkers'], letters: ['I', 'T'] });
    const dir = mkdtempSync(join(tmpdir(), 'sbeval-shared-token-'));
    const token = randomBytes(32).toString('hex');
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    const run = spawn(['run', root, '--engine', 'bridge', '--listen', '0.0.0.0:0'], { SBEVAL_TOKEN: token });
    const { line, port } = await waitForHint(run);
    expect(line).not.toContain(token);
    expect(line).toMatch(/\(with SBEVAL_TOKEN set to the same token in its environment\)$/);
    const engine = spawn(['engine', '--connect', `ws://${dialIp}:${port}`, '--token-file', tokenFile], {}, prefix);
    cleanups.push(() => {
      for (const p of descendants(engine.pid as number)) process.kill(p.pid, 'SIGKILL');
      engine.kill('SIGKILL');
    });
    const result = await run;
    expect(result.exitCode, result.all).toBe(0);
    expect((await engine).exitCode).toBe(0);
    // The endpoint saw the engine arrive from the other side: the namespace's address, or this machine's own.
    const connected = readRunLog(runLogs(root)[0]!).filter((l) => l.type === 'endpoint' && / connected from /.test(String(l.line)));
    const from = variant === 'netns' ? nsIp : dialIp;
    expect(connected.map((l) => String(l.line).replace(/^.* connected from (\S+):\d+.*$/, '$1'))).toContain(from);
    expect(variant === 'loopback' || from !== '127.0.0.1').toBe(true);
    expectSameFiles(root, await inProcessReference(root));
  }, 180_000);
});
