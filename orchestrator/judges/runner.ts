import type { ChatPrompt } from '../../scoring/judges/rubric-prompt.js';
import { keepRaw } from '../../scoring/judges/answer-text.js';
import type { ProgressSink } from '../progress/types.js';
import { HostsUnavailable, type HostPool } from '../generate/host-pool.js';
import { CallError, type ChatMessage } from '../model-calls/index.js';
import type { RunLog } from '../generate/run-log.js';
import type { AttemptLine, Journal } from './journal.js';

/**
 * Asking a judge, shared by the rubric and the ordering judge: each task is one question to the
 * judge model; its answer is parsed by the task; an answer that does not parse is a recorded
 * failure (reason and raw answer in the journal) and is asked again, up to `retries` more times.
 * Temperature 0 would give the same answer to the same request, so attempt k uses seed + k: the
 * retries are reproducible and still differ. Host failures (network, 5xx, a model missing) are the
 * host pool's business (orchestrator/generate/host-pool.ts: another host, back-off, set-aside) and
 * are never recorded as a judge failure: such a task stays unfinished and a later run asks it.
 */
export interface JudgeSettings {
  model: string;
  temperature: number;
  /** The first attempt's seed; attempt k uses seed + k. */
  seed: number;
  /** Further attempts after an answer that does not parse. */
  retries: number;
  /** Cap on the judge's answer (Ollama `num_predict`), so a rambling judge ends. */
  maxTokens: number;
  concurrency: number;
  /** Ask again the tasks whose attempts all failed in earlier runs (with new seeds). */
  retryFailed: boolean;
}

export type Parsed = { ok: true } | { ok: false; reason: string };

export interface JudgeTask {
  key: string;
  fingerprint: string;
  /** Shown in progress lines. */
  label: string;
  prompt(): Promise<ChatPrompt>;
  parse(content: string): Parsed;
}

export type TaskStatus = 'ok' | 'failed' | 'unfinished';

export interface TaskResult {
  task: JudgeTask;
  status: TaskStatus;
  /** Every attempt so far (earlier runs included), in order. */
  attempts: AttemptLine[];
  /** Already settled before this run. */
  cached: boolean;
}

export interface RunnerCounts {
  asked: number;
  ok: number;
  failed: number;
  cached: number;
  unfinished: number;
  calls: number;
}

export function toMessages(prompt: ChatPrompt): ChatMessage[] {
  const images = prompt.images.map((png) => Buffer.from(png).toString('base64'));
  return [
    { role: 'system', content: prompt.system },
    { role: 'user', content: prompt.user, ...(images.length > 0 ? { images } : {}) },
  ];
}

function settled(attempts: readonly AttemptLine[], settings: JudgeSettings): boolean {
  return attempts.some((a) => a.ok) || (!settings.retryFailed && attempts.length >= settings.retries + 1);
}

export async function runJudgeTasks(
  tasks: readonly JudgeTask[],
  context: { settings: JudgeSettings; pool: HostPool; journal: Journal; log: RunLog; progress: ProgressSink; stage: string; cancel?: AbortSignal | undefined },
  previous: Map<string, AttemptLine[]>,
  onResult: (result: TaskResult) => void | Promise<void>,
): Promise<{ counts: RunnerCounts; stopped: string | undefined }> {
  const { settings, pool, journal, log, progress, stage } = context;
  const counts: RunnerCounts = { asked: 0, ok: 0, failed: 0, cached: 0, unfinished: 0, calls: 0 };
  progress.start(stage, tasks.length);
  const pending: JudgeTask[] = [];
  for (const task of tasks) {
    const attempts = previous.get(task.key) ?? [];
    if (settled(attempts, settings)) {
      counts.cached += 1;
      progress.tick(stage, 'skipped', task.label);
      await onResult({ task, status: attempts.some((a) => a.ok) ? 'ok' : 'failed', attempts, cached: true });
    } else {
      pending.push(task);
    }
  }
  const runCancel = new AbortController();
  const onCancel = () => runCancel.abort();
  context.cancel?.addEventListener('abort', onCancel, { once: true });
  let stopped: string | undefined;

  const runTask = async (task: JudgeTask): Promise<void> => {
    const attempts = [...(previous.get(task.key) ?? [])];
    // A fresh task gets 1 + retries attempts; --retry-failed gives a settled failure as many new ones.
    const last = attempts.length < settings.retries + 1 ? settings.retries + 1 : attempts.length + settings.retries + 1;
    counts.asked += 1;
    let status: TaskStatus = 'failed';
    try {
      const messages = toMessages(await task.prompt());
      for (let attempt = attempts.length; attempt < last; attempt += 1) {
        const seed = settings.seed + attempt;
        let tries = 0;
        const result = await pool.chat(
          { model: settings.model, messages, options: { temperature: settings.temperature, top_p: 1, seed, num_predict: settings.maxTokens } },
          runCancel.signal,
          (a) => {
            tries += 1;
            log.write({ type: 'call', time: a.startedAt.toISOString(), key: task.key, model: settings.model, seed, attempt, try: tries, host: a.host, ok: a.ok, durationMs: Math.round(a.durationMs), ...(a.error ? { error: a.error } : {}) });
          },
        );
        counts.calls += 1;
        const parsed = task.parse(result.content);
        const line: AttemptLine = {
          type: 'attempt',
          key: task.key,
          fingerprint: task.fingerprint,
          attempt,
          seed,
          model: settings.model,
          ok: parsed.ok,
          content: parsed.ok ? result.content : keepRaw(result.content),
          ...(parsed.ok ? {} : { reason: result.doneReason === 'length' ? `${parsed.reason} (the answer was cut at ${settings.maxTokens} tokens)` : parsed.reason }),
          ...(result.doneReason ? { doneReason: result.doneReason } : {}),
          time: new Date().toISOString(),
        };
        journal.append(line);
        attempts.push(line);
        if (parsed.ok) {
          status = 'ok';
          break;
        }
        progress.note(stage, `${task.label}: attempt ${attempt + 1} refused: ${line.reason}`);
      }
    } catch (error) {
      if (!(error instanceof HostsUnavailable || error instanceof CallError)) throw error;
      status = 'unfinished';
      if (!runCancel.signal.aborted) progress.note(stage, `${task.label}: ${error.message}`);
      if (pool.allSetAside()) {
        stopped ??= 'every Ollama host is set aside after repeated failures; run the same command again to resume';
        runCancel.abort();
      }
    }
    if (status === 'unfinished') {
      counts.unfinished += 1;
      if (!runCancel.signal.aborted) progress.tick(stage, 'failed', task.label, 'unfinished');
    } else {
      if (status === 'ok') counts.ok += 1;
      else counts.failed += 1;
      progress.tick(stage, status === 'ok' ? 'ok' : 'failed', task.label, status === 'ok' ? undefined : attempts.at(-1)?.reason);
    }
    await onResult({ task, status, attempts, cached: false });
  };

  let next = 0;
  const worker = async () => {
    while (next < pending.length && !runCancel.signal.aborted) {
      const task = pending[next]!;
      next += 1;
      await runTask(task);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(settings.concurrency, pending.length) }, worker));
  } finally {
    context.cancel?.removeEventListener('abort', onCancel);
  }
  counts.unfinished += pending.length - next;
  if (!stopped && context.cancel?.aborted) stopped = 'cancelled; run the same command again to resume';
  progress.end(stage);
  return { counts, stopped };
}
