import type { ModelApiBackend } from './api-backend.js';
import { OLLAMA_API } from './ollama-api.js';
import { OPENAI_API } from './openai-api.js';

/**
 * Every model API sbeval speaks, by its name in `--api` and the config: one module each, one entry
 * here. The names, the `ModelApi` type, the config's and `--api`'s allowed values (llm/config.ts) and
 * the help are read from this record. The backends are plain data and pure functions (no socket, no
 * client), so reading the names costs no more than these modules.
 */
const MODEL_API_BACKENDS = {
  ollama: OLLAMA_API,
  openai: OPENAI_API,
} satisfies Record<string, ModelApiBackend>;

export type ModelApi = keyof typeof MODEL_API_BACKENDS;
export const MODEL_APIS = Object.keys(MODEL_API_BACKENDS) as [ModelApi, ...ModelApi[]];

/** The API of the hosts when neither `--api` nor the config names one: Ollama's native API (the competition's generation runs on Ollama, docs/model-calls.md). */
export const DEFAULT_MODEL_API: ModelApi = 'ollama';

export function backendOf(api: ModelApi): ModelApiBackend {
  return MODEL_API_BACKENDS[api];
}
