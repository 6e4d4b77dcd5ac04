import type { ChatProtocol } from './answer.js';

/**
 * What one model API is to sbeval: its chat protocol, its model listing and details, its name and key
 * variables in messages, and what to tell the user when no host answers. One module per API
 * (ollama-api.ts, openai-api.ts) exports one of these; llm/model-calls/apis.ts lists them, and every
 * caller reads the API's part from there instead of branching on its name.
 */
export interface ModelApiBackend {
  /** What the API is called in messages ("Ollama unavailable: …"). */
  title: string;
  /** What `--api <name>` speaks, for its help text. */
  help: string;
  /** The variables a key is read from, first set wins. */
  keyVariables: readonly string[];
  /** The path a host URL without one gets (an OpenAI client's `base_url` ends in `/v1`); undefined: none. */
  defaultPath: string | undefined;
  chat: ChatProtocol;
  /** The model listing: its path under the host's base, and the models it names. */
  listing: { path: string; models(value: unknown): ModelListing[] };
  /** Whether a listing's names hold `model` as the command line names it. */
  hasModel(names: readonly string[], model: string): boolean;
  /** What the host says about one model, for provenance; `get` fetches a path's JSON (POST with a body). */
  describe(model: string, get: (path: string, body?: unknown) => Promise<unknown>, listing: () => Promise<ModelListing[]>): Promise<ModelDetails>;
  /** What to say when no host answers its model list, or none has the model. */
  problems: { unreachable: string; unreachableHint: string; missingHint: (model: string) => string };
}

export interface ModelListing {
  name: string;
  /** Ollama's digest of the model (`/api/tags`); OpenAI lists none. */
  digest: string | undefined;
}

export interface ModelDetails {
  name: string;
  digest: string | undefined;
  /** Ollama `/api/show` `capabilities` (e.g. `completion`, `vision`), when the host reports them. */
  capabilities: string[] | undefined;
  /** Ollama `/api/show` `details` (family, parameter size, quantization); OpenAI `…/models/<id>` (owner, created). */
  details: Record<string, unknown>;
}
