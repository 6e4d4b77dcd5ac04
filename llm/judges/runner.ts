import { sha256 } from '../../core/hash.js';
import type { ProgressSink } from '../../orchestrator/progress/types.js';
import { HostsUnavailable } from '../generate/host-pool.js';
import type { RunLog } from '../generate/run-log.js';
import type { ModelApi } from '../model-calls/index.js';
import { CallError, type ChatMessage } from '../model-calls/index.js';
import type { JudgeBackend } from './backend.js';
import type { Attempt, AttemptLine, Journal } from './journal.js';
import { keepRaw } from './scoring/answer-text.js';
import type { ChatPrompt } from './scoring/rubric-prompt.js';

/**
 * Asking a judge, shared by the rubric and the ordering judge: each task is one question to the
 * judge model; its answer is parsed by the task; an answer that does not parse is a recorded
 * failure (reason and raw answer in the journal) and is asked again, up to `retries` more times.
 * Temperature 0 would give the same answer to the same request, so attempt k uses seed + k: the
 * retries are reproducible and still differ. Host failures (network, 5xx, a model missing) are the
 * backend's business (backend.ts) and are never recorded as a judge failure: such a task stays
 * unfinished and a later run asks it.
 *
 * No answer longer than the answer byte cap (`--max-answer-bytes`, the model-call client's bound) is
 * ever read, let alone journaled: the client ends such a call and the host pool treats it as the
 * host's failure (retried, then the task is left unfinished with the reason in the call log), so no
 * answer can make the journal, a parser or a resume unbounded. Every attempt records what it cost:
 * prompt and answer tokens, time, host, the model's digest when the API gives it, and the digest of
 * its rendered prompt.
 */
export interface JudgeSettings {
  api: ModelApi;
  model: string;
  temperature: number;
  /** The first attempt's seed; attempt k uses seed + k. */
  seed: number;
  /** Further attempts after an answer that does not parse. */
  retries: number;
  /** Cap on the judge's answer in tokens (Ollama `num_predict`, OpenAI `max_tokens`), so a rambling judge ends. */
  maxTokens: number;
  concurrency: number;
  /** Ask again the tasks whose attempts all failed in earlier runs (with new seeds). */
  retryFailed: boolean;
}

type Parsed = { ok: true } | { ok: false; reason: string };

export interface JudgeTask {
  key: string;
  /** Digest of the whole request (requestFingerprint): the journal's key to reuse an answer. */
  fingerprint: string;
  /** Digest of the rendered prompt (promptDigest). */
  promptDigest: string;
  /** Shown in progress lines. */
  label: string;
  prompt: ChatPrompt;
  parse(content: string): Parsed;
}

type TaskStatus = 'ok' | 'failed' | 'unfinished';

export interface TaskResult {
  task: JudgeTask;
  status: TaskStatus;
  /** Every attempt so far (earlier runs included), in order; texts through the journal. */
  attempts: Attempt[];
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

/** The digest of a rendered prompt: its texts and the digests of its images. */
export function promptDigest(prompt: ChatPrompt): string {
  return sha256(JSON.stringify({ system: prompt.system, user: prompt.user, images: prompt.images.map((png) => sha256(png)) }));
}

/** The digest of everything a request is made of besides the seed of each attempt. */
export function requestFingerprint(settings: Pick<JudgeSettings, 'api' | 'model' | 'temperature' | 'seed' | 'maxTokens'>, prompt: ChatPrompt): string {
  const { api, model, temperature, seed, maxTokens } = settings;
  return sha256(JSON.stringify({ api, model, temperature, seed, maxTokens, prompt: promptDigest(prompt) })).slice(0, 32);
}

function toMessages(prompt: ChatPrompt): ChatMessage[] {
  const images = prompt.images.map((png) => Buffer.from(png).toString('base64'));
  return [
    ...(prompt.system === '' ? [] : [{ role: 'system' as const, content: prompt.system }]),
    { role: 'user', content: prompt.user, ...(images.length > 0 ? { images } : {}) },
  ];
}

/**
 * What a result file keeps of a call: its seed, tokens and the model's digest — what the answer
 * depends on. Its time and host vary from run to run and are in the journal and the call log
 * (`logs/judge-*.jsonl`), so a resumed run writes the same result files as an uninterrupted one.
 */
export function callRecord(a: Attempt): { seed: number; promptTokens?: number; completionTokens?: number; digest?: string } {
  return {
    seed: a.seed,
    ...(a.promptTokens !== undefined ? { promptTokens: a.promptTokens } : {}),
    ...(a.completionTokens !== undefined ? { completionTokens: a.completionTokens } : {}),
    ...(a.digest ? { digest: a.digest } : {}),
  };
}

function settled(attempts: readonly Attempt[], settings: Pick<JudgeSettings, 'retries' | 'retryFailed'>): boolean {
  return attempts.some((a) => a.ok) || (!settings.retryFailed && attempts.length >= settings.retries + 1);
}

/** Whether any task still needs a call (else the backend is not even checked). */
export function needsCalls(
  tasks: readonly JudgeTask[],
  previous: ReadonlyMap<string, Attempt[]>,
  settings: Pick<JudgeSettings, 'retries' | 'retryFailed'>,
): boolean {
  return tasks.some((t) => !settled(previous.get(t.key) ?? [], settings));
}

interface RunContext {
  settings: JudgeSettings;
  backend: JudgeBackend;
  journal: Journal;
  log: RunLog;
  progress: ProgressSink;
  stage: string;
  /** The model's digest from the preflight. */
  digest: string | undefined;
  cancel?: AbortSignal | undefined;
}

export async function runJudgeTasks(
  tasks: readonly JudgeTask[],
  context: RunContext,
  previous: Map<string, Attempt[]>,
  onResult: (result: TaskResult) => void | Promise<void>,
): Promise<{ counts: RunnerCounts; stopped: string | undefined }> {
  const { settings, progress, stage } = context;
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
  const state = { stopped: undefined as string | undefined };
  let next = 0;
  const worker = async () => {
    while (next < pending.length && !runCancel.signal.aborted) {
      const task = pending[next]!;
      next += 1;
      await runTask(task, context, previous, counts, runCancel, state, onResult);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(settings.concurrency, pending.length) }, worker));
  } finally {
    context.cancel?.removeEventListener('abort', onCancel);
  }
  counts.unfinished += pending.length - next;
  if (!state.stopped && context.cancel?.aborted) state.stopped = 'cancelled; run the same command again to resume';
  progress.end(stage);
  return { counts, stopped: state.stopped };
}

async function runTask(
  task: JudgeTask,
  context: RunContext,
  previous: Map<string, Attempt[]>,
  counts: RunnerCounts,
  runCancel: AbortController,
  state: { stopped: string | undefined },
  onResult: (result: TaskResult) => void | Promise<void>,
): Promise<void> {
  const { settings, progress, stage } = context;
  const attempts = [...(previous.get(task.key) ?? [])];
  // A fresh task gets 1 + retries attempts; --retry-failed gives a settled failure as many new ones.
  const last = attempts.length < settings.retries + 1 ? settings.retries + 1 : attempts.length + settings.retries + 1;
  counts.asked += 1;
  let status: TaskStatus = 'failed';
  try {
    const messages = toMessages(task.prompt);
    for (let attempt = attempts.length; attempt < last; attempt += 1) {
      const line = await askOnce(task, messages, attempt, context, runCancel.signal);
      counts.calls += 1;
      attempts.push(context.journal.append(line));
      if (line.ok) {
        status = 'ok';
        break;
      }
      progress.note(stage, `${task.label}: attempt ${attempt + 1} refused: ${line.reason}`);
    }
  } catch (error) {
    if (!(error instanceof HostsUnavailable || error instanceof CallError)) throw error;
    status = 'unfinished';
    if (!runCancel.signal.aborted) progress.note(stage, `${task.label}: ${(error as Error).message}`);
    if (context.backend.exhausted()) {
      state.stopped ??= 'every host is set aside after repeated failures; run the same command again to resume';
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
}

/** One attempt: the call, the byte cap, the parse; the journal line to append. */
async function askOnce(task: JudgeTask, messages: ChatMessage[], attempt: number, context: RunContext, signal: AbortSignal): Promise<AttemptLine> {
  const { settings, log } = context;
  const seed = settings.seed + attempt;
  let tries = 0;
  const result = await context.backend.chat(
    { model: settings.model, messages, temperature: settings.temperature, seed, maxTokens: settings.maxTokens },
    signal,
    (a) => {
      tries += 1;
      log.write({
        type: 'call',
        time: a.startedAt.toISOString(),
        key: task.key,
        model: settings.model,
        seed,
        attempt,
        try: tries,
        host: a.host,
        ok: a.ok,
        durationMs: Math.round(a.durationMs),
        ...(a.error ? { error: a.error } : {}),
      });
    },
  );
  const bytes = Buffer.byteLength(result.content, 'utf8');
  const parsed = task.parse(result.content);
  const cut = result.doneReason === 'length' ? ` (the answer was cut at ${settings.maxTokens} tokens)` : '';
  return {
    type: 'attempt',
    key: task.key,
    fingerprint: task.fingerprint,
    attempt,
    seed,
    model: settings.model,
    ok: parsed.ok,
    content: parsed.ok ? result.content : keepRaw(result.content),
    ...(parsed.ok ? {} : { reason: `${parsed.reason}${cut}` }),
    ...(result.doneReason ? { doneReason: result.doneReason } : {}),
    time: new Date().toISOString(),
    prompt: task.promptDigest,
    promptTokens: result.promptTokens,
    completionTokens: result.completionTokens,
    durationMs: Math.round(result.durationMs),
    bytes,
    host: result.host,
    ...(context.digest ? { digest: context.digest } : {}),
  };
}
