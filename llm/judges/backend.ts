import { SbevalError } from '../../core/errors.js';
import type { ProgressSink } from '../../orchestrator/progress/types.js';
import { type Attempt, HostPool, type HostPoolSettings } from '../generate/host-pool.js';
import type { RunLog } from '../generate/run-log.js';
import { backendOf, type ChatMessage, hostHasModel, listModels, type ModelApi, ModelEndpoint } from '../model-calls/index.js';

/**
 * Where a judge's questions go: the model hosts of `--hosts`, speaking Ollama's API or an
 * OpenAI-style one (`--api`), through sbeval's one model-call client and host pool
 * (llm/model-calls/, llm/generate/host-pool.ts: every call under its deadline,
 * stall timer and answer byte cap, no redirects, credentials out of every message). Infrastructure
 * failures (network, 5xx, a bound broken, a host set aside) surface as `HostsUnavailable` /
 * `CallError` (the task stays unfinished, never a judge failure); an answer that arrives is returned
 * with what the call cost.
 */
interface JudgeCall {
  model: string;
  messages: ChatMessage[];
  temperature: number;
  seed: number;
  /** Cap on the answer's tokens. */
  maxTokens: number;
}

interface JudgeAnswer {
  content: string;
  promptTokens: number;
  completionTokens: number;
  doneReason: string | undefined;
  durationMs: number;
  host: string;
}

export interface JudgeBackend {
  readonly api: ModelApi;
  /** Checks the model is served before anything is asked; returns the model's digest when the API gives one. */
  preflight(model: string): Promise<{ digest: string | undefined }>;
  chat(call: JudgeCall, cancel: AbortSignal, onAttempt: (attempt: Attempt) => void): Promise<JudgeAnswer>;
  /** True when no host is left to ask (the run should stop and resume later). */
  exhausted(): boolean;
}

/** Host events of a backend, into the run log and the progress display. */
export function hostEvents(log: RunLog, progress: ProgressSink, stage: string) {
  return (event: { type: string; host: string; reason?: string }) => {
    log.write({ ...event, type: 'host', state: event.type, time: new Date().toISOString() });
    if (event.type !== 'back') progress.note(stage, `host ${event.host}: ${event.type}${event.reason ? ` (${event.reason})` : ''}`);
  };
}

export class PoolBackend implements JudgeBackend {
  readonly api: ModelApi;
  private readonly pool: HostPool;
  private readonly endpoints: ModelEndpoint[];

  constructor(
    hosts: readonly string[],
    private readonly settings: HostPoolSettings,
    onEvent: (event: { type: string; host: string; reason?: string }) => void,
  ) {
    this.api = settings.api;
    this.pool = new HostPool(hosts, settings, onEvent);
    this.endpoints = hosts.map((url, i) => ModelEndpoint.parse(url, settings.api, process.env, i));
  }

  async preflight(model: string): Promise<{ digest: string | undefined }> {
    const report = await this.pool.preflight([model]);
    const { problems } = backendOf(this.api);
    if (report.reachable.length === 0) {
      throw new SbevalError(
        'judge',
        `${problems.unreachable} (${report.unreachable.map((u) => `${u.host}: ${u.reason}`).join('; ')})`,
        `${problems.unreachableHint} (tried ${this.endpoints.map((e) => e.label).join(', ')})`,
      );
    }
    if (report.missing.length > 0 && report.unreachable.length === 0)
      throw new SbevalError('judge', `no host has the judge model ${model}`, problems.missingHint(model));
    return { digest: await this.digest(report.reachable[0]!, model) };
  }

  /** The model's digest as the first reachable host lists it (Ollama's /api/tags; OpenAI-style lists give none). */
  private async digest(label: string, model: string): Promise<string | undefined> {
    const endpoint = this.endpoints.find((e) => e.label === label);
    if (!endpoint) return undefined;
    try {
      const listing = await listModels(endpoint, this.settings.tagsTimeoutMs);
      const digest = listing.find((m) => hostHasModel([m.name], model, this.api))?.digest;
      return digest === undefined || digest === '' ? undefined : digest;
    } catch {
      return undefined;
    }
  }

  async chat(call: JudgeCall, cancel: AbortSignal, onAttempt: (attempt: Attempt) => void): Promise<JudgeAnswer> {
    const result = await this.pool.chat(
      { model: call.model, messages: call.messages, options: { temperature: call.temperature, top_p: 1, seed: call.seed, num_predict: call.maxTokens } },
      cancel,
      onAttempt,
    );
    return {
      content: result.content,
      promptTokens: result.promptTokens,
      completionTokens: result.completionTokens,
      doneReason: result.doneReason,
      durationMs: result.durationMs,
      host: result.host,
    };
  }

  exhausted(): boolean {
    return this.pool.allSetAside();
  }
}
