import { CallError, type ChatMessage } from '../model-calls/index.js';
import { type Attempt, type HostPool, HostsUnavailable } from './host-pool.js';
import { LimitExceeded, TrialBudget, type TrialLimits } from './limits.js';
import type { CallLine, TrialIdentity } from './run-log.js';

/** Sampling options every call of a run uses (the submission cannot change them). */
export interface Sampling {
  temperature: number;
  topP: number;
}

interface SessionAnswer {
  content: string;
  promptTokens: number;
  completionTokens: number;
  doneReason: string | undefined;
}

/**
 * One trial's access to the LLM: the official limits around every call (llms4pcg `chat_with_llm`:
 * time checked before, tokens after), the trial seed and the run's sampling forced on every call,
 * every attempt logged. Conversations (conversation.ts) and the chat proxy for external programs
 * (chat-proxy.ts) both call through this, so both get the same rules.
 */
export class TrialSession {
  readonly budget: TrialBudget;
  private turn = 0;
  private callsInFlight = 0;
  /** An infrastructure or request failure that ended the trial (not a limit). */
  infrastructureFailure: HostsUnavailable | CallError | undefined;

  constructor(
    readonly identity: TrialIdentity,
    limits: TrialLimits,
    private readonly sampling: Sampling,
    private readonly pool: HostPool,
    private readonly logCall: (line: CallLine) => void,
    private readonly cancel: AbortSignal | undefined,
  ) {
    this.budget = new TrialBudget(limits);
  }

  get samplingTemperature(): number {
    return this.sampling.temperature;
  }

  get calls(): number {
    return this.turn;
  }

  get busy(): boolean {
    return this.callsInFlight > 0;
  }

  /**
   * One chat call. Throws `LimitExceeded` (the trial failed officially), `HostsUnavailable` or
   * `CallError` (the infrastructure or the request failed).
   */
  async chat(messages: ChatMessage[], requestedMaxTokens?: number): Promise<SessionAnswer> {
    this.budget.beforeCall();
    this.turn += 1;
    const turn = this.turn;
    const cap = this.budget.completionCap();
    const numPredict = cap === undefined ? requestedMaxTokens : requestedMaxTokens === undefined ? cap : Math.min(cap, requestedMaxTokens);
    let attemptNo = 0;
    const onAttempt = (attempt: Attempt, tokens?: { prompt: number; completion: number; doneReason: string | undefined }) => {
      attemptNo += 1;
      this.logCall({
        type: 'call',
        time: attempt.startedAt.toISOString(),
        ...this.identity,
        host: attempt.host,
        turn,
        attempt: attemptNo,
        ok: attempt.ok,
        ...(tokens ? { promptTokens: tokens.prompt, completionTokens: tokens.completion, doneReason: tokens.doneReason } : {}),
        durationMs: Math.round(attempt.durationMs),
        ...(attempt.error ? { error: attempt.error } : {}),
      });
    };
    this.callsInFlight += 1;
    try {
      // Failed attempts are logged as they happen; the successful one after, with its token counts.
      const result = await this.pool.chat(
        {
          model: this.identity.model,
          messages,
          options: { temperature: this.sampling.temperature, top_p: this.sampling.topP, seed: this.identity.seed, num_predict: numPredict },
        },
        this.cancel,
        (attempt) => {
          if (!attempt.ok) onAttempt(attempt);
        },
      );
      const success = result.attempts.at(-1)!;
      onAttempt(success, { prompt: result.promptTokens, completion: result.completionTokens, doneReason: result.doneReason });
      this.budget.excuse(result.excusedMs);
      if (!result.tokensReported && this.budget.limits.tokenLimit > 0) {
        // Counting 0 would let every answer pass the official token limit unchecked.
        throw new CallError(
          `${result.host} sent no token counts, so the token limit cannot be checked (an OpenAI-style server streams them only if it supports stream_options.include_usage; try --no-stream, or --token-limit 0)`,
          false,
        );
      }
      this.budget.afterCall(result.promptTokens, result.completionTokens);
      return { content: result.content, promptTokens: result.promptTokens, completionTokens: result.completionTokens, doneReason: result.doneReason };
    } catch (error) {
      if (error instanceof HostsUnavailable) {
        this.budget.excuse(error.excusedMs);
        this.infrastructureFailure ??= error;
      } else if (error instanceof CallError) {
        this.infrastructureFailure ??= error;
      } else if (!(error instanceof LimitExceeded)) {
        throw error;
      }
      throw error;
    } finally {
      this.callsInFlight -= 1;
    }
  }
}
