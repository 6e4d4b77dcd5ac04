/**
 * The per-trial limits of the 2024/2025 competitions, with the semantics of llms4pcg 2.0.1
 * `chat_with_llm` (chatgpt4pcg/llms4pcg-python, src/llms4pcg/competition.py):
 * - time: measured from the start of the trial; checked BEFORE each chat call; if the elapsed time is
 *   greater than the limit the call is not made and the trial fails with
 *   `Time limit exceeded. <elapsed seconds> > <limit>` (a call already running is not interrupted);
 * - tokens: prompt + completion tokens summed over all calls of the trial; checked AFTER each call; if
 *   the total is greater than the limit the trial fails with
 *   `Prompt token limit exceeded. <total> > <limit>` (the answer of that call is discarded).
 * A failed trial writes no file (`__run_trial` returns before opening the output).
 *
 * Defaults (2025): 500 s (`max_time = 500`, raised from 120 in 2.0.1, 2025-06-09), 25,000 tokens
 * (`token_limit = 25000`), temperature 1 (`temperature = 1`). A limit of 0 means "no limit" (the 2023
 * response-gathering script had none).
 */
export const OFFICIAL_TIME_LIMIT_S = 500;
export const OFFICIAL_TOKEN_LIMIT = 25_000;
export const OFFICIAL_TEMPERATURE = 1;
/**
 * The 2025 runs went through Ollama's OpenAI-compatible endpoint (`/v1/chat/completions` via the
 * `openai` client), which sets `top_p = 1.0` when the request has none (ollama `openai/openai.go`
 * `FromChatRequest`). The native `/api/chat` would use the model's own default (often 0.9), so
 * sbeval sends 1 explicitly to sample like the official runs.
 */
export const OFFICIAL_TOP_P = 1;

type LimitKind = 'time' | 'tokens';

export class LimitExceeded extends Error {
  constructor(
    readonly kind: LimitKind,
    message: string,
  ) {
    super(message);
    this.name = 'LimitExceeded';
  }
}

export interface TrialLimits {
  /** Seconds; 0 = none. */
  timeLimitS: number;
  /** Prompt + completion tokens; 0 = none. */
  tokenLimit: number;
}

/**
 * The running account of one trial. Time that sbeval spends on infrastructure failures (a dropped
 * connection, a 5xx, a host in back-off) is not the submission's time: it is subtracted via
 * `excuse()`, so a flaky network cannot push a trial over the official limit. Tokens of a failed
 * attempt are never reported by Ollama and so never counted.
 */
export class TrialBudget {
  private readonly startedAt: number;
  private excusedMs = 0;
  private promptTokens = 0;
  private completionTokens = 0;
  private exceeded: LimitExceeded | undefined;

  constructor(
    readonly limits: TrialLimits,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.startedAt = clock();
  }

  /** Seconds the submission has used so far. */
  elapsedS(): number {
    return (this.clock() - this.startedAt - this.excusedMs) / 1000;
  }

  excuse(ms: number): void {
    if (ms > 0) this.excusedMs += ms;
  }

  get tokens(): { prompt: number; completion: number; total: number } {
    return { prompt: this.promptTokens, completion: this.completionTokens, total: this.promptTokens + this.completionTokens };
  }

  /** The limit this trial broke, if any (it stays broken: later calls fail the same way). */
  get failure(): LimitExceeded | undefined {
    return this.exceeded;
  }

  /** Before a call: throws when the time limit is already exceeded. */
  beforeCall(): void {
    if (this.exceeded) throw this.exceeded;
    const { timeLimitS } = this.limits;
    if (timeLimitS <= 0) return;
    const elapsed = this.elapsedS();
    // Python prints the float with repr(); JavaScript's Number#toString is also the shortest
    // round-trip form, so the numbers read the same (e.g. 512.25 > 500, 0.2 limits print as 0.2).
    if (elapsed > timeLimitS) this.fail(new LimitExceeded('time', `Time limit exceeded. ${elapsed} > ${timeLimitS}`));
  }

  /** After a call: adds its tokens and throws when the total is over the token limit. */
  afterCall(promptTokens: number, completionTokens: number): void {
    this.promptTokens += promptTokens;
    this.completionTokens += completionTokens;
    const { tokenLimit } = this.limits;
    const total = this.promptTokens + this.completionTokens;
    if (tokenLimit > 0 && total > tokenLimit) {
      this.fail(new LimitExceeded('tokens', `Prompt token limit exceeded. ${total} > ${tokenLimit}`));
    }
  }

  /**
   * `num_predict` for the next call: the remaining budget + 1. An answer longer than that makes the
   * total exceed the limit whatever the prompt size, so the trial fails exactly as it would have with
   * the full answer — but Ollama stops generating as soon as the outcome is certain. Answers within
   * the budget are unchanged (sampling does not depend on `num_predict`). `undefined` = no cap.
   */
  completionCap(): number | undefined {
    const { tokenLimit } = this.limits;
    if (tokenLimit <= 0) return undefined;
    return Math.max(1, tokenLimit - this.tokens.total + 1);
  }

  private fail(error: LimitExceeded): never {
    this.exceeded = error;
    throw error;
  }
}
