import { execa } from 'execa';
import type { ChatProxy } from './chat-proxy.js';
import { LimitExceeded } from './limits.js';
import type { TrialSession } from './session.js';
import type { ProgramSubmission } from './submission.js';

/**
 * The external-program contract (one process per trial):
 * - started with execa, no shell, in the spec's `cwd`, stdin closed; arguments may contain
 *   `{char}`, `{trial}`, `{seed}`, `{model}`, `{team}`, replaced per trial;
 * - environment: `SBEVAL_CHAR` (A–Z), `SBEVAL_TRIAL` (1…N), `SBEVAL_SEED`, `SBEVAL_MODEL`,
 *   `SBEVAL_TEAM`, `SBEVAL_TIME_LIMIT` (s, 0 = none), `SBEVAL_TOKEN_LIMIT` (0 = none),
 *   `SBEVAL_TEMPERATURE`, `SBEVAL_CHAT_URL` (an Ollama API base: `POST $SBEVAL_CHAT_URL/api/chat`,
 *   e.g. `new Ollama({ host: process.env.SBEVAL_CHAT_URL })`), `SBEVAL_OPENAI_BASE_URL`
 *   (`$SBEVAL_CHAT_URL/v1`, for an OpenAI client — what llms4pcg's `local_model_base_url` takes), and
 *   `OLLAMA_HOST` = `SBEVAL_CHAT_URL` (the Python `ollama` package reads it); the rest of sbeval's
 *   environment without its secrets (`childEnvironment`: the bridge token, Hugging Face and API keys
 *   never reach a team's program, which needs none of them: its model calls go through the proxy);
 * - all LLM calls go to that endpoint (see chat-proxy.ts: model, seed, temperature forced; limits
 *   enforced); the program prints the final response on stdout (UTF-8) and exits 0. One final
 *   newline (LF or CRLF) is removed, so `print(response)` writes exactly `response`;
 * - the trial fails, and no file is written, when a limit was exceeded during any call (whatever the
 *   program does afterwards: llms4pcg raises from `chat_with_llm`), when the program exits non-zero
 *   or by a signal, or when it is still running `PROGRAM_GRACE_S` after the time limit without a call
 *   in flight (any further call would fail anyway; it is stopped rather than waited for forever).
 */
const PROGRAM_GRACE_S = 60;
const STDERR_TAIL = 2000;

export class ProgramFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProgramFailed';
  }
}

/**
 * Names of variables that hold secrets: sbeval's own (`SBEVAL_TOKEN`, the bridge token), Hugging Face's
 * (`HF_TOKEN`, `HUGGING_FACE_HUB_TOKEN`, read by `sbeval model fetch`) and the usual spellings of keys,
 * tokens, secrets and passwords (`OPENAI_API_KEY`, `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY` …).
 */
const SECRET_NAME = /(^|_)(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?|AUTH)(_|$)/i;

/** sbeval's environment as a child program gets it: everything but the secrets (see SECRET_NAME). */
function childEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && !SECRET_NAME.test(name)) out[name] = value;
  return out;
}

export function programArgs(args: readonly string[], values: Record<'char' | 'trial' | 'seed' | 'model' | 'team', string>): string[] {
  return args.map((arg) => arg.replace(/\{(char|trial|seed|model|team)\}/g, (_, key: keyof typeof values) => values[key]));
}

export async function runProgram(
  submission: ProgramSubmission,
  session: TrialSession,
  proxy: ChatProxy,
  cancel: AbortSignal | undefined,
  graceS = PROGRAM_GRACE_S,
): Promise<string> {
  const { model, team, character, trial, seed } = session.identity;
  const endpoint = proxy.open(session);
  const limits = session.budget.limits;
  const values = { char: character, trial: String(trial), seed: String(seed), model, team };
  const controller = new AbortController();
  const onCancel = () => controller.abort();
  cancel?.addEventListener('abort', onCancel, { once: true });
  let overtime: LimitExceeded | undefined;
  const watchdog =
    limits.timeLimitS > 0
      ? setInterval(() => {
          if (session.busy) return;
          const elapsed = session.budget.elapsedS();
          if (elapsed > limits.timeLimitS + graceS) {
            overtime = new LimitExceeded('time', `Time limit exceeded. ${elapsed} > ${limits.timeLimitS}`);
            controller.abort();
          }
        }, 250)
      : undefined;
  try {
    const result = await execa(submission.command, programArgs(submission.args, values), {
      cwd: submission.cwd,
      extendEnv: false,
      env: {
        ...childEnvironment(),
        ...submission.env,
        SBEVAL_CHAR: character,
        SBEVAL_TRIAL: String(trial),
        SBEVAL_SEED: String(seed),
        SBEVAL_MODEL: model,
        SBEVAL_TEAM: team,
        SBEVAL_TIME_LIMIT: String(limits.timeLimitS),
        SBEVAL_TOKEN_LIMIT: String(limits.tokenLimit),
        SBEVAL_TEMPERATURE: String(session.samplingTemperature),
        SBEVAL_CHAT_URL: endpoint.url,
        SBEVAL_OPENAI_BASE_URL: `${endpoint.url}/v1`,
        OLLAMA_HOST: endpoint.url,
      },
      stdin: 'ignore',
      encoding: 'utf8',
      stripFinalNewline: true,
      maxBuffer: 64 * 1024 * 1024,
      reject: false,
      cancelSignal: controller.signal,
      forceKillAfterDelay: 2000,
    });
    // A broken limit decides the trial, whatever the program printed or how it exited.
    if (session.budget.failure) throw session.budget.failure;
    if (overtime) throw overtime;
    if (session.infrastructureFailure) throw session.infrastructureFailure;
    if (result.isCanceled) throw new ProgramFailed('cancelled');
    if (result.failed) {
      const how = result.signal
        ? `was killed by ${result.signal}`
        : result.exitCode !== undefined
          ? `exited with code ${result.exitCode}`
          : `could not start (${result.shortMessage})`;
      const stderr = String(result.stderr ?? '').trim();
      const tail = stderr.length > STDERR_TAIL ? `…${stderr.slice(-STDERR_TAIL)}` : stderr;
      throw new ProgramFailed(`Program ${how}${tail ? `: ${tail}` : ''}`);
    }
    return String(result.stdout);
  } finally {
    if (watchdog) clearInterval(watchdog);
    cancel?.removeEventListener('abort', onCancel);
    endpoint.close();
  }
}
