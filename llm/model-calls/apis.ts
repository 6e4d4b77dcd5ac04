import type { ModelApi } from '../../orchestrator/config/model-calls.js';
import type { ModelApiBackend } from './api-backend.js';
import { OLLAMA_API } from './ollama-api.js';
import { OPENAI_API } from './openai-api.js';

/**
 * Every model API sbeval speaks, by its name in `--api` and the config: one module each. The names are
 * `MODEL_APIS` (orchestrator/config/model-calls.ts), which the config floor reads without loading any
 * client; the compiler refuses a name without its module here and a module without its name there.
 */
const MODEL_API_BACKENDS: Record<ModelApi, ModelApiBackend> = { ollama: OLLAMA_API, openai: OPENAI_API };

export function backendOf(api: ModelApi): ModelApiBackend {
  return MODEL_API_BACKENDS[api];
}
