import { Ollama } from 'ollama';
import { SbevalError } from '../../core/errors.js';
import { HostPool, type Attempt, type HostPoolSettings } from '../generate/host-pool.js';
import type { ChatMessage } from '../generate/ollama-call.js';
import type { RunLog } from '../generate/run-log.js';
import type { ProgressSink } from '../progress/types.js';

/**
 * Where a judge's questions go (`--api`): one interface for the stages and the runner, whatever
 * serves the model. Infrastructure failures (network, 5xx, a host set aside) are the backend's
 * business and surface as `HostsUnavailable` / `CallError` (the task stays unfinished, never a judge
 * failure); an answer that arrives is returned with what the call cost.
 */
export interface JudgeCall {
  model: string;
  messages: ChatMessage[];
  temperature: number;
  seed: number;
  /** Cap on the answer's tokens. */
  maxTokens: number;
}

export interface JudgeAnswer {
  content: string;
  promptTokens: number;
  completionTokens: number;
  doneReason: string | undefined;
  durationMs: number;
  host: string;
}

export interface JudgeBackend {
  readonly api: JudgeApi;
  /** Checks the model is served before anything is asked; returns the model's digest when the API gives one. */
  preflight(model: string): Promise<{ digest: string | undefined }>;
  chat(call: JudgeCall, cancel: AbortSignal, onAttempt: (attempt: Attempt) => void): Promise<JudgeAnswer>;
  /** True when no host is left to ask (the run should stop and resume later). */
  exhausted(): boolean;
}

export const JUDGE_APIS = ['ollama', 'openai'] as const;
export type JudgeApi = (typeof JUDGE_APIS)[number];

/** Host events of a backend, into the run log and the progress display. */
export function hostEvents(log: RunLog, progress: ProgressSink, stage: string) {
  return (event: { type: string; host: string; reason?: string }) => {
    log.write({ ...event, type: 'host', state: event.type, time: new Date().toISOString() });
    if (event.type !== 'back') progress.note(stage, `host ${event.host}: ${event.type}${event.reason ? ` (${event.reason})` : ''}`);
  };
}

/** Ollama's own API through the generation stage's host pool (orchestrator/generate/host-pool.ts). */
export class OllamaBackend implements JudgeBackend {
  readonly api = 'ollama' as const;
  private readonly pool: HostPool;

  constructor(
    private readonly hosts: readonly string[],
    settings: HostPoolSettings,
    onEvent: (event: { type: string; host: string; reason?: string }) => void,
  ) {
    this.pool = new HostPool(hosts, settings, onEvent);
  }

  async preflight(model: string): Promise<{ digest: string | undefined }> {
    const report = await this.pool.preflight([model]);
    if (report.reachable.length === 0) {
      throw new SbevalError('judge', `no Ollama host answered /api/tags (${report.unreachable.map((u) => `${u.host}: ${u.reason}`).join('; ')})`, `start \`ollama serve\`, or pass the right --hosts (tried ${this.hosts.join(', ')})`);
    }
    if (report.missing.length > 0 && report.unreachable.length === 0) {
      throw new SbevalError('judge', `no host has the judge model ${model}`, `run \`ollama pull ${model}\` on the hosts`);
    }
    return { digest: await ollamaDigest(report.reachable[0]!, model) };
  }

  async chat(call: JudgeCall, cancel: AbortSignal, onAttempt: (attempt: Attempt) => void): Promise<JudgeAnswer> {
    const result = await this.pool.chat({ model: call.model, messages: call.messages, options: { temperature: call.temperature, top_p: 1, seed: call.seed, num_predict: call.maxTokens } }, cancel, onAttempt);
    return { content: result.content, promptTokens: result.promptTokens, completionTokens: result.completionTokens, doneReason: result.doneReason, durationMs: result.durationMs, host: result.host };
  }

  exhausted(): boolean {
    return this.pool.allSetAside();
  }
}

/** The model's digest from `/api/tags` (undefined when the host does not say). */
async function ollamaDigest(host: string, model: string): Promise<string | undefined> {
  try {
    const client = new Ollama({ host, fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(10_000) }) });
    const wanted = model.includes(':') ? [model] : [model, `${model}:latest`];
    const entry = (await client.list()).models.find((m) => wanted.includes(m.name) || wanted.includes(m.model));
    return typeof entry?.digest === 'string' && entry.digest !== '' ? entry.digest : undefined;
  } catch {
    return undefined;
  }
}
