import { appendFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { describeError, SbevalError } from '../core/errors.js';
import { type EndpointOptions, EngineEndpoint } from './endpoint.js';
import type { Engine, EngineIdentity, LevelJob, LevelSink } from './engine.js';
import { EngineLostError, type RemoteEngine } from './remote-engine.js';

/**
 * A fleet of engine processes the orchestrator starts and owns: one endpoint (127.0.0.1, OS port,
 * fresh token), N instances launched with execa (`sbeval engine` workers or Unity editors), one log
 * file per instance, and a full life cycle (ML-Agents' lesson, reference/model-codebases.md §1):
 * launch → health (the instance dials in and completes the handshake) → quit (`bye`) → SIGTERM →
 * SIGKILL, with a dead instance restarted within a budget. Each instance appears as one `Engine`
 * whose identity survives restarts, so the engine pool and the stages never see the processes.
 *
 * A level running on an instance that dies fails with `EngineLostError` (retryable); the engine pool
 * runs it again (on another instance, or on this one once it is back): no level is lost.
 */

/** How to start one instance. */
export interface LaunchSpec {
  file: string;
  args: string[];
  /** Added to this process's environment (the token travels here, not in argv, so `ps` does not show it). */
  env?: Record<string, string>;
  cwd?: string;
  /** Send the child's stdout/stderr to the instance log (false when the program writes its own log, like Unity's `-logFile`). */
  captureOutput: boolean;
}

export interface InstanceInfo {
  /** The instance's name: its engine id, its `--instance`/`-sbevalInstance` argument. */
  name: string;
  index: number;
  url: string;
  token: string;
  logFile: string;
}

export interface InstanceLauncher {
  kind: string;
  spec(instance: InstanceInfo): LaunchSpec;
  /** Longest time from start to handshake (a Unity editor needs minutes on a cold project). */
  connectTimeoutMs: number;
  /** Work to do once before the first start (e.g. Unity project clones). */
  prepare?(count: number): Promise<void>;
  /** How far an instance got, read from its log (a Unity editor's stages), for the error when it does not connect. */
  progress?(log: string): string;
}

export interface FleetOptions {
  launcher: InstanceLauncher;
  count: number;
  /** Where instance logs go (default: a new folder under $SBEVAL_ENGINE_LOG_DIR, else under the OS temp dir). */
  logDir?: string;
  endpoint?: EndpointOptions;
  /** Restarts allowed per instance over the fleet's life (default 3). */
  maxRestarts?: number;
  /** First restart delay, doubled per restart of the same instance (default 500 ms). */
  restartDelayMs?: number;
  /** After `bye`, how long an instance may take to exit before SIGTERM (default 10 s). */
  quitTimeoutMs?: number;
  /** After SIGTERM, how long before SIGKILL (default 5 s). */
  killTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface InstanceStatus {
  name: string;
  pid: number | undefined;
  starts: number;
  connected: boolean;
  gaveUp: boolean;
  logFile: string;
  /** How the last process ended (`exited with code 0`, `killed by SIGTERM`), '' while it runs or before it started. */
  lastExit: string;
  /** What ended it at shutdown: it left after `bye`, or needed SIGTERM or SIGKILL. */
  stoppedBy: 'bye' | 'SIGTERM' | 'SIGKILL' | undefined;
}

/** What the launcher reads in an instance's log about how far it got: ` (reached "…")`, or ''. */
function progressOf(launcher: InstanceLauncher, file: string): string {
  if (!launcher.progress) return '';
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // no log yet
  }
  return ` (${launcher.progress(text)})`;
}

/** The last lines of a log file, for error messages (a failure should show what the program said). */
function logTail(file: string, lines = 15): string {
  try {
    const text = readFileSync(file, 'utf8').trimEnd();
    return text.split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

type Waiter = { resolve: (engine: RemoteEngine) => void; reject: (error: unknown) => void };

class Instance {
  process: ResultPromise | undefined;
  pid: number | undefined;
  remote: RemoteEngine | undefined;
  /** Whether the process of the latest start has connected: one that never did cannot be told to quit. */
  connectedSinceStart = false;
  identity: EngineIdentity | undefined;
  starts = 0;
  gaveUp = false;
  stopping = false;
  lastExit = '';
  stoppedBy: InstanceStatus['stoppedBy'];
  private waiters: Waiter[] = [];
  exited: Promise<void> = Promise.resolve();

  constructor(
    readonly info: InstanceInfo,
    private readonly fleet: EngineFleet,
  ) {}

  get connected(): boolean {
    return this.remote?.alive === true;
  }

  /** The live connection, waiting up to `timeoutMs` for the instance to (re)connect. */
  waitConnected(timeoutMs: number, signal?: AbortSignal): Promise<RemoteEngine> {
    if (this.remote?.alive) return Promise.resolve(this.remote);
    if (this.gaveUp) return Promise.reject(this.deadError());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(
          new EngineLostError(
            this.info.name,
            `engine ${this.info.name} did not connect within ${Math.round(timeoutMs / 1000)} s` +
              (this.lastExit ? ` (${this.lastExit})` : '') +
              progressOf(this.fleet.launcher, this.info.logFile) +
              `; log ${this.info.logFile}:\n${logTail(this.info.logFile)}`,
          ),
        );
      }, timeoutMs);
      const onAbort = (): void => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new SbevalError('simulate', 'cancelled while waiting for an engine'));
      };
      const waiter: Waiter = {
        resolve: (engine) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(engine);
        },
        reject: (error) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  attach(remote: RemoteEngine): void {
    const old = this.remote;
    this.remote = remote;
    this.connectedSinceStart = true;
    this.identity = remote.identity;
    if (old && old !== remote && old.alive) void old.close('superseded by a new connection of the same instance');
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.resolve(remote);
  }

  failWaiters(error: unknown): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(error);
  }

  deadError(): EngineLostError {
    return new EngineLostError(
      this.info.name,
      `engine ${this.info.name} is down for good after ${this.starts} start(s)${this.lastExit ? ` (${this.lastExit})` : ''}; log ${this.info.logFile}:\n${logTail(this.info.logFile)}`,
    );
  }

  start(): void {
    const spec = this.fleet.launcher.spec(this.info);
    this.starts += 1;
    this.connectedSinceStart = false;
    appendFileSync(
      this.info.logFile,
      `\n=== sbeval: start ${this.starts} of ${this.info.name}: ${spec.file} ${spec.args.join(' ')} (${new Date().toISOString()})\n`,
    );
    const output = spec.captureOutput ? { file: this.info.logFile, append: true } : ('ignore' as const);
    const child = execa(spec.file, spec.args, {
      ...(spec.cwd ? { cwd: spec.cwd } : {}),
      env: spec.env ?? {},
      extendEnv: true,
      stdin: 'ignore',
      stdout: output,
      stderr: output,
      // Its own process group: Ctrl-C reaches us first, and a group kill also ends the children an
      // editor spawns.
      detached: true,
      reject: false,
      cleanup: false,
    });
    this.process = child;
    this.pid = child.pid;
    this.fleet.track(this);
    this.exited = child.then(
      (result) => this.onExit(child, result.exitCode, result.signal),
      (error: unknown) => this.onExit(child, undefined, undefined, error),
    );
  }

  private onExit(child: ResultPromise, code: number | undefined, signal: string | undefined, error?: unknown): void {
    if (this.process !== child) return;
    this.process = undefined;
    this.pid = undefined;
    this.fleet.untrack(this);
    this.lastExit = error ? `failed to start: ${describeError(error)}` : signal ? `killed by ${signal}` : `exited with code ${code}`;
    if (this.stopping) return;
    this.fleet.log(`${this.info.name} ${this.lastExit}`);
    if (this.remote?.alive) void this.remote.close('instance exited');
    this.fleet.onInstanceDied(this);
  }

  /** Graceful quit: bye, wait (when this start connected), SIGTERM, wait, SIGKILL (to the whole process group). */
  async stop(quitMs: number, killMs: number): Promise<void> {
    this.stopping = true;
    this.failWaiters(new SbevalError('shutdown', `engine ${this.info.name} is shutting down`));
    const child = this.process;
    if (this.remote?.alive) await this.remote.close('orchestrator finished').catch(() => undefined);
    if (!child) return;
    // An editor that never connected (still importing, or stuck before play mode) hears no bye: waiting
    // for it to quit would only add the quit timeout before the SIGTERM it needs anyway.
    if (this.connectedSinceStart) {
      this.stoppedBy = 'bye';
      if (await settlesWithin(this.exited, quitMs)) return;
    }
    this.stoppedBy = 'SIGTERM';
    this.signalGroup('SIGTERM');
    if (await settlesWithin(this.exited, killMs)) return;
    this.stoppedBy = 'SIGKILL';
    this.signalGroup('SIGKILL');
    await settlesWithin(this.exited, killMs);
  }

  signalGroup(signal: NodeJS.Signals): void {
    const pid = this.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      try {
        process.kill(pid, signal);
      } catch {
        // Already gone.
      }
    }
  }
}

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = promise.then(
    () => true as const,
    () => true as const,
  );
  const result = await Promise.race([settled, timeout]);
  clearTimeout(timer);
  return result;
}

/** One instance as an `Engine`: runs wait for the instance to be connected, then go over its connection. */
export class FleetEngine implements Engine {
  constructor(
    private readonly instance: Instance,
    private readonly fleet: EngineFleet,
  ) {}

  get id(): string {
    return this.instance.info.name;
  }

  get identity(): EngineIdentity {
    return this.instance.identity ?? { kind: this.fleet.launcher.kind, version: 'unknown', description: 'not connected yet' };
  }

  /** False once the instance is down for good (restart budget used up) or closed. */
  get alive(): boolean {
    return !this.instance.gaveUp && !this.instance.stopping;
  }

  get logFile(): string {
    return this.instance.info.logFile;
  }

  async run(job: LevelJob, sink: LevelSink, signal?: AbortSignal): Promise<void> {
    if (this.instance.stopping) throw new SbevalError('simulate', `engine ${this.id} is closed`);
    const remote = await this.instance.waitConnected(this.fleet.launcher.connectTimeoutMs, signal);
    return remote.run(job, sink, signal);
  }

  /** Stops this instance; the fleet (endpoint included) shuts down when its last engine is closed. */
  async close(): Promise<void> {
    await this.fleet.release(this.instance);
  }
}

const liveFleets = new Set<EngineFleet>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Detached children do not die with us: on exit, kill every instance group still running.
  process.on('exit', () => {
    for (const fleet of liveFleets) fleet.killAll();
  });
}

export class EngineFleet {
  readonly engines: FleetEngine[];
  readonly logDir: string;
  private readonly instances: Instance[];
  private readonly running = new Set<Instance>();
  private readonly released = new Set<Instance>();
  private closing: Promise<void> | undefined;
  private started = false;
  private readonly quitMs: number;
  private readonly killMs: number;
  private readonly maxRestarts: number;
  private readonly restartDelayMs: number;
  readonly log: (line: string) => void;

  private constructor(
    readonly endpoint: EngineEndpoint,
    readonly launcher: InstanceLauncher,
    options: FleetOptions,
    logDir: string,
  ) {
    this.logDir = logDir;
    this.log = options.log ?? (() => {});
    this.quitMs = options.quitTimeoutMs ?? 10_000;
    this.killMs = options.killTimeoutMs ?? 5_000;
    this.maxRestarts = options.maxRestarts ?? 3;
    this.restartDelayMs = options.restartDelayMs ?? 500;
    this.instances = Array.from({ length: options.count }, (_, index) => {
      const name = `${launcher.kind}-${index}`;
      return new Instance({ name, index, url: endpoint.url, token: endpoint.token, logFile: join(logDir, `${name}.log`) }, this);
    });
    this.engines = this.instances.map((i) => new FleetEngine(i, this));
    endpoint.onEngine((remote) => this.onConnected(remote));
  }

  /** Starts the endpoint and every instance; resolves when all of them completed the handshake. */
  static async start(options: FleetOptions): Promise<EngineFleet> {
    if (!Number.isInteger(options.count) || options.count < 1)
      throw new SbevalError('config', `instance count must be a positive integer, got ${options.count}`);
    const fromEnvironment = process.env.SBEVAL_ENGINE_LOG_DIR;
    const logDir = options.logDir ?? (fromEnvironment ? mkdtempSync(join(fromEnvironment, 'engines-')) : mkdtempSync(join(tmpdir(), 'sbeval-engines-')));
    mkdirSync(logDir, { recursive: true });
    await options.launcher.prepare?.(options.count);
    const endpoint = await EngineEndpoint.listen({ ...options.endpoint, log: options.endpoint?.log ?? options.log });
    const fleet = new EngineFleet(endpoint, options.launcher, options, logDir);
    liveFleets.add(fleet);
    installExitHook();
    fleet.log(`endpoint ${endpoint.url}; starting ${options.count} ${options.launcher.kind} instance(s), logs in ${logDir}`);
    for (const instance of fleet.instances) instance.start();
    try {
      await Promise.all(fleet.instances.map((i) => fleet.firstConnection(i)));
    } catch (error) {
      await fleet.close();
      throw error;
    }
    fleet.started = true;
    return fleet;
  }

  /** Instance state for displays and the run log. */
  status(): InstanceStatus[] {
    return this.instances.map((i) => ({
      name: i.info.name,
      pid: i.pid,
      starts: i.starts,
      connected: i.connected,
      gaveUp: i.gaveUp,
      logFile: i.info.logFile,
      lastExit: i.lastExit,
      stoppedBy: i.stoppedBy,
    }));
  }

  /** Total restarts so far (starts beyond the first). */
  get restarts(): number {
    return this.instances.reduce((n, i) => n + Math.max(0, i.starts - 1), 0);
  }

  /** Shuts everything down: bye → SIGTERM → SIGKILL per instance, then the endpoint. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all(this.instances.map((i) => i.stop(this.quitMs, this.killMs)));
      await this.endpoint.close();
      liveFleets.delete(this);
    })();
    return this.closing;
  }

  /** Called by FleetEngine.close: stops that instance; the last one closes the fleet. */
  async release(instance: Instance): Promise<void> {
    if (this.released.has(instance)) return this.closing;
    this.released.add(instance);
    await instance.stop(this.quitMs, this.killMs);
    if (this.released.size === this.instances.length) await this.close();
  }

  track(instance: Instance): void {
    this.running.add(instance);
  }

  untrack(instance: Instance): void {
    this.running.delete(instance);
  }

  killAll(): void {
    for (const instance of this.running) instance.signalGroup('SIGKILL');
  }

  onInstanceDied(instance: Instance): void {
    // Before the fleet is up, an exit is a launch failure (start() reports it with the log), not a restart.
    if (this.closing || instance.stopping || !this.started) return;
    const restartsSoFar = instance.starts - 1;
    if (restartsSoFar >= this.maxRestarts) {
      instance.gaveUp = true;
      this.log(`${instance.info.name} is down for good: ${this.maxRestarts} restart(s) used (log ${instance.info.logFile})`);
      instance.failWaiters(instance.deadError());
      return;
    }
    const delay = this.restartDelayMs * 2 ** restartsSoFar;
    this.log(`restarting ${instance.info.name} in ${delay} ms (restart ${restartsSoFar + 1} of ${this.maxRestarts})`);
    const timer = setTimeout(() => {
      if (this.closing || instance.stopping) return;
      try {
        instance.start();
      } catch (error) {
        instance.lastExit = `failed to start: ${describeError(error)}`;
        this.onInstanceDied(instance);
      }
    }, delay);
    timer.unref();
  }

  private onConnected(remote: RemoteEngine): void {
    const instance = this.instances.find((i) => i.info.name === remote.instance);
    if (!instance || instance.stopping) {
      this.log(`closing connection ${remote.id}: not an instance of this fleet`);
      void remote.close(instance ? 'instance is shutting down' : 'unknown instance name');
      return;
    }
    instance.attach(remote);
  }

  /** Waits for an instance's first handshake, failing early (with its log) if the process exits first. */
  private firstConnection(instance: Instance): Promise<RemoteEngine> {
    const exitedFirst = instance.exited.then(() => {
      if (instance.connected) return new Promise<never>(() => {});
      throw new SbevalError(
        'launch',
        `${instance.info.name} ${instance.lastExit || 'exited'} before connecting to ${this.endpoint.url}${progressOf(this.launcher, instance.info.logFile)}; log ${instance.info.logFile}:\n${logTail(instance.info.logFile)}`,
        this.launcher.kind === 'unity' ? 'check the editor path, the project path, and that the plugin is installed (sbeval unity install)' : undefined,
      );
    });
    return Promise.race([instance.waitConnected(this.launcher.connectTimeoutMs), exitedFirst]);
  }
}
