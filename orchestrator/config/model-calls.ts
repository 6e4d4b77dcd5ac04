/**
 * What the settings hold about model calls (generation and the judges, llm/model-calls/): the API the
 * hosts speak and the bounds of one call. They are settings like any other, resolved once with the
 * rest (settings.ts). Which APIs exist is the LLM tooling's to say (llm/model-calls/apis.ts): the
 * evaluator carries the name as the flag or the config gave it, checked by the config schema that
 * knows them (llm/config.ts), and the client reads it from there.
 */

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
export interface ResolvedModelCalls {
  /** The API `--api` or the config names; undefined: neither does (the tooling's default, llm/model-calls/apis.ts). */
  api: string | undefined;
  /** The deadline of one call attempt (ms). */
  deadlineMs: number;
  maxAnswerBytes: number;
}
