/**
 * What a chat call is, whichever API carries it, and how it can fail. The request is in Ollama's
 * vocabulary (the one sbeval started with); openai-api.ts maps it to the OpenAI one.
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
  /** Images for vision models, base64-encoded (Ollama's `images`; an OpenAI `image_url` data URL). */
  images?: string[] | undefined;
}

interface ChatOptions {
  temperature: number;
  top_p: number;
  seed: number;
  /** Cap on completion tokens (Ollama `num_predict`, OpenAI `max_tokens`); omitted = the server's default. */
  num_predict?: number | undefined;
}

export interface ChatRequestSpec {
  model: string;
  messages: ChatMessage[];
  options: ChatOptions;
}

export interface ChatResult {
  content: string;
  /** Ollama `prompt_eval_count` (absent for a fully cached prompt: 0), OpenAI `usage.prompt_tokens`. */
  promptTokens: number;
  /** Ollama `eval_count`, OpenAI `usage.completion_tokens`. */
  completionTokens: number;
  /** False when the answer carried no completion token count (a server that sends no `usage`). */
  tokensReported: boolean;
  /** `stop` or `length` (Ollama `done_reason`, OpenAI `finish_reason`). */
  doneReason: string | undefined;
}

/**
 * The bounds of every call. Each one ends the attempt with a `CallError` the host pool retries
 * (llm/generate/host-pool.ts), so a host that breaks one costs an attempt, never the run.
 */
export interface CallSettings {
  /** Streamed answers (`true`, default: a silent host is noticed at once) or one JSON answer. */
  stream: boolean;
  /** No byte for this long (ms) ends the attempt; 0 = never. With whole answers it bounds the wait for all of it. */
  stallTimeoutMs: number;
  /** The whole attempt, from the request to the last byte (ms); 0 = no deadline. A host dripping a byte now and then cannot hold a call past it. */
  deadlineMs: number;
  /** Largest answer text (UTF-8 bytes); a longer one ends the attempt. Also bounds each streamed line (see client.ts). */
  maxAnswerBytes: number;
}

/** Why an attempt failed. `retry` failures are the host's (network, 5xx, a bound broken, a redirect). */
export class CallError extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
    readonly status?: number,
    readonly modelMissing = false,
  ) {
    super(message);
    this.name = 'CallError';
  }
}
