import { SbevalError } from '../../core/errors.js';
import {
  CallError,
  type CallSettings,
  type ChatRequestSpec,
  type ChatResult,
  chatOnce,
  DEFAULT_CALL_DEADLINE_S,
  DEFAULT_MAX_ANSWER_BYTES,
  hostHasModel,
  listModels,
  type ModelApi,
  type ModelCallSettings,
  ModelEndpoint,
} from '../model-calls/index.js';

/**
 * Several model hosts (Ollama, or OpenAI-style with `api: 'openai'`) share the calls. Each call goes
 * to the least busy host that has the model and is not backing off (ties: fewer calls so far, then the
 * order of `--hosts`). A host that fails a
 * call with a transport error or a 5xx backs off exponentially (`backoffMs` × 2^(k−1) after its k-th
 * consecutive failure, at most `backoffMaxMs`) and the call is retried at once on another host, or on
 * the same one when its back-off ends. After `hostFailures` consecutive failures the host is set
 * aside for `cooldownMs` (doubling on each new set-aside, up to 8×); afterwards it gets calls again,
 * and its first success returns it to normal. A call gives up after `maxAttempts` failed attempts, or
 * at once when every host that has its model is set aside (waiting out a cool-down would hold the
 * run; the stages stop instead and the same command resumes).
 *
 * Hosts are known by their labels (credentials hidden, llm/model-calls/endpoint.ts) in every
 * event, attempt and message.
 */
export interface HostPoolSettings {
  /** The API every host speaks. */
  api: ModelApi;
  maxAttempts: number;
  backoffMs: number;
  backoffMaxMs: number;
  hostFailures: number;
  cooldownMs: number;
  call: CallSettings;
  /** Timeout of the `/api/tags` check at start (ms). */
  tagsTimeoutMs: number;
}

export const DEFAULT_POOL_SETTINGS: HostPoolSettings = {
  maxAttempts: 10,
  backoffMs: 1000,
  backoffMaxMs: 30_000,
  hostFailures: 3,
  cooldownMs: 60_000,
  api: 'ollama',
  call: { stream: true, stallTimeoutMs: 300_000, deadlineMs: DEFAULT_CALL_DEADLINE_S * 1000, maxAnswerBytes: DEFAULT_MAX_ANSWER_BYTES },
  tagsTimeoutMs: 10_000,
};

/** `base` with the API, call deadline and answer cap the settings resolved (orchestrator/config/settings.ts). */
export function withModelCalls(base: HostPoolSettings, calls: ModelCallSettings): HostPoolSettings {
  return { ...base, api: calls.api, call: { ...base.call, deadlineMs: calls.deadlineMs, maxAnswerBytes: calls.maxAnswerBytes } };
}

export type HostEvent =
  | { type: 'set-aside'; host: string; reason: string; forMs: number }
  | { type: 'back'; host: string }
  | { type: 'model-missing'; host: string; model: string }
  | { type: 'unreachable'; host: string; reason: string };

export interface Attempt {
  host: string;
  startedAt: Date;
  durationMs: number;
  ok: boolean;
  error?: string | undefined;
}

interface PoolChatResult extends ChatResult {
  host: string;
  /** Duration of the successful attempt (ms). */
  durationMs: number;
  attempts: Attempt[];
  /** Time lost to failed attempts and waiting for a host (ms): not the submission's time. */
  excusedMs: number;
}

/** A call that could not be completed on any host. */
export class HostsUnavailable extends Error {
  constructor(
    message: string,
    readonly attempts: Attempt[],
    readonly excusedMs: number,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'HostsUnavailable';
  }
}

interface HostState {
  endpoint: ModelEndpoint;
  /** The endpoint's label: what logs and events call the host. */
  url: string;
  index: number;
  inFlight: number;
  calls: number;
  failures: number;
  consecutiveFailures: number;
  setAsideCount: number;
  availableAt: number;
  /** Models the host reported; undefined = unknown (not reachable at start), try it. */
  models: Set<string> | undefined;
  missing: Set<string>;
}

interface HostStatus {
  url: string;
  inFlight: number;
  calls: number;
  failures: number;
  setAside: boolean;
}

export interface PreflightReport {
  reachable: string[];
  unreachable: { host: string; reason: string }[];
  /** Models that no reachable host has. */
  missing: string[];
}

const sleep = (ms: number, cancel?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (cancel?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      cancel?.removeEventListener('abort', done);
      resolve();
    }
    cancel?.addEventListener('abort', done, { once: true });
  });

export class HostPool {
  private readonly hosts: HostState[];

  constructor(
    urls: readonly string[],
    readonly settings: HostPoolSettings,
    private readonly onEvent: (event: HostEvent) => void = () => {},
    private readonly call: typeof chatOnce = chatOnce,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    if (urls.length === 0) throw new SbevalError('config', 'no model hosts', 'name them with --hosts or `hosts:` in sbeval.config.yaml');
    this.hosts = urls
      .map((url, index) => ModelEndpoint.parse(url, settings.api, env, index))
      .map((endpoint, index) => ({
        endpoint,
        url: endpoint.label,
        index,
        inFlight: 0,
        calls: 0,
        failures: 0,
        consecutiveFailures: 0,
        setAsideCount: 0,
        availableAt: 0,
        models: undefined,
        missing: new Set(),
      }));
  }

  get size(): number {
    return this.hosts.length;
  }

  /** The hosts as logs show them (credentials hidden). */
  get labels(): string[] {
    return this.hosts.map((h) => h.url);
  }

  /** Asks every host for its models. Unreachable hosts are set aside (and tried again later). */
  async preflight(models: readonly string[]): Promise<PreflightReport> {
    const report: PreflightReport = { reachable: [], unreachable: [], missing: [] };
    await Promise.all(
      this.hosts.map(async (host) => {
        try {
          const names = (await listModels(host.endpoint, this.settings.tagsTimeoutMs)).map((m) => m.name);
          host.models = new Set(models.filter((m) => hostHasModel(names, m, this.settings.api)));
          report.reachable.push(host.url);
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          report.unreachable.push({ host: host.url, reason });
          host.consecutiveFailures = this.settings.hostFailures;
          this.setAside(host, `not reachable: ${reason}`);
          this.onEvent({ type: 'unreachable', host: host.url, reason });
        }
      }),
    );
    report.reachable.sort((a, b) => this.indexOf(a) - this.indexOf(b));
    report.missing = models.filter((m) => !this.hosts.some((h) => h.models?.has(m)));
    return report;
  }

  private indexOf(url: string): number {
    return this.hosts.findIndex((h) => h.url === url);
  }

  private isSetAside(host: HostState, now: number): boolean {
    return host.consecutiveFailures >= this.settings.hostFailures && host.availableAt > now;
  }

  /** True when every host is currently set aside (the run should stop rather than wait). */
  allSetAside(now = Date.now()): boolean {
    return this.hosts.every((h) => this.isSetAside(h, now));
  }

  status(): HostStatus[] {
    const now = Date.now();
    return this.hosts.map((h) => ({
      url: h.url,
      inFlight: h.inFlight,
      calls: h.calls,
      failures: h.failures,
      setAside: this.isSetAside(h, now),
    }));
  }

  private serves(host: HostState, model: string): boolean {
    if (host.missing.has(model)) return false;
    return host.models === undefined || host.models.has(model);
  }

  /** Waits for the least busy host that serves `model`. */
  private async acquire(model: string, cancel?: AbortSignal): Promise<HostState> {
    for (;;) {
      if (cancel?.aborted) throw new HostsUnavailable('cancelled', [], 0, true);
      const eligible = this.hosts.filter((h) => this.serves(h, model));
      if (eligible.length === 0) throw new HostsUnavailable(`model ${model} is not available on any host`, [], 0, false);
      const now = Date.now();
      const ready = eligible.filter((h) => h.availableAt <= now);
      if (ready.length > 0) {
        ready.sort((a, b) => a.inFlight - b.inFlight || a.calls - b.calls || a.index - b.index);
        const host = ready[0]!;
        host.inFlight += 1;
        host.calls += 1;
        return host;
      }
      if (eligible.every((h) => this.isSetAside(h, now)))
        throw new HostsUnavailable(`every host that has ${model} is set aside after repeated failures`, [], 0, true);
      const next = Math.min(...eligible.map((h) => h.availableAt));
      await sleep(Math.max(1, next - now), cancel);
    }
  }

  private setAside(host: HostState, reason: string): void {
    const forMs = this.settings.cooldownMs * 2 ** Math.min(host.setAsideCount, 3);
    host.setAsideCount += 1;
    host.availableAt = Date.now() + forMs;
    this.onEvent({ type: 'set-aside', host: host.url, reason, forMs });
  }

  private succeeded(host: HostState): void {
    host.inFlight -= 1;
    if (host.setAsideCount > 0) this.onEvent({ type: 'back', host: host.url });
    host.consecutiveFailures = 0;
    host.setAsideCount = 0;
    host.availableAt = 0;
  }

  private failed(host: HostState, error: CallError, model: string): void {
    host.inFlight -= 1;
    host.failures += 1;
    if (error.modelMissing) {
      host.missing.add(model);
      this.onEvent({ type: 'model-missing', host: host.url, model });
      return;
    }
    if (!error.retry) return;
    host.consecutiveFailures += 1;
    if (host.consecutiveFailures >= this.settings.hostFailures) {
      this.setAside(host, error.message);
    } else {
      const backoff = Math.min(this.settings.backoffMaxMs, this.settings.backoffMs * 2 ** (host.consecutiveFailures - 1));
      host.availableAt = Math.max(host.availableAt, Date.now() + backoff);
    }
  }

  /** One chat call, retried across hosts as described above. Throws `HostsUnavailable` or a non-retryable `CallError`. */
  async chat(request: ChatRequestSpec, cancel?: AbortSignal, onAttempt?: (attempt: Attempt) => void): Promise<PoolChatResult> {
    const started = performance.now();
    const attempts: Attempt[] = [];
    let failedAttempts = 0;
    let lastError = '';
    while (failedAttempts < this.settings.maxAttempts) {
      let host: HostState;
      try {
        host = await this.acquire(request.model, cancel);
      } catch (error) {
        if (error instanceof HostsUnavailable) {
          const reason = lastError && error.message !== 'cancelled' ? `${error.message} (last error: ${lastError})` : error.message;
          throw new HostsUnavailable(reason, attempts, performance.now() - started, error.retryable);
        }
        throw error;
      }
      const attemptStart = performance.now();
      const startedAt = new Date();
      try {
        const result = await this.call(host.endpoint, request, this.settings.call, cancel);
        const durationMs = performance.now() - attemptStart;
        this.succeeded(host);
        const attempt: Attempt = { host: host.url, startedAt, durationMs, ok: true };
        attempts.push(attempt);
        onAttempt?.(attempt);
        return { ...result, host: host.url, durationMs, attempts, excusedMs: performance.now() - started - durationMs };
      } catch (caught) {
        const error = caught instanceof CallError ? caught : new CallError(String(caught), true);
        this.failed(host, error, request.model);
        const attempt: Attempt = { host: host.url, startedAt, durationMs: performance.now() - attemptStart, ok: false, error: error.message };
        attempts.push(attempt);
        onAttempt?.(attempt);
        if (cancel?.aborted) throw new HostsUnavailable('cancelled', attempts, performance.now() - started, true);
        if (!error.retry && !error.modelMissing) {
          // A 4xx other than 404/429: the request itself is wrong; another host would say the same.
          throw error;
        }
        lastError = error.message;
        if (!error.modelMissing) failedAttempts += 1;
      }
    }
    throw new HostsUnavailable(`no host answered after ${failedAttempts} attempts (last error: ${lastError})`, attempts, performance.now() - started, true);
  }
}
