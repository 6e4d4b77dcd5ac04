/**
 * What the settings hold about model calls (generation and the judges, llm/model-calls/): the APIs a
 * host may speak and the bounds of one call. They are settings like any other, resolved once with the
 * rest (settings.ts); the client that makes the calls reads them from here.
 */
export const MODEL_APIS = ['ollama', 'openai'] as const;
export type ModelApi = (typeof MODEL_APIS)[number];

/**
 * 1 MiB of answer text. A trial's answer is capped at the official 25,000 tokens (llms4pcg
 * `token_limit`), about 100 KB at a few bytes per token (an estimate, not a measurement): the cap is
 * some ten times that, so only a runaway or hostile host reaches it.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * The call deadline when no time limit gives one: 600 s, the default request timeout of the `openai`
 * Python client llms4pcg 2.0.1 calls through (openai-python `_constants.py` `DEFAULT_TIMEOUT`; there
 * it bounds each read, here the whole call).
 */
export const DEFAULT_CALL_DEADLINE_S = 600;

/** The model-call settings every command resolves the same way (settings.ts). */
export interface ModelCallSettings {
  api: ModelApi;
  /** The deadline of one call attempt (ms). */
  deadlineMs: number;
  maxAnswerBytes: number;
}
