/**
 * The model-call client (docs/model-calls.md): one client for Ollama's native API and the
 * OpenAI-style API, every call under hard bounds (deadline, stall timer, answer byte cap, no
 * redirects) with credentials kept out of every message.
 */

export { DEFAULT_CALL_DEADLINE_S, DEFAULT_MAX_ANSWER_BYTES, MODEL_APIS, type ModelApi, type ModelCallSettings } from '../../orchestrator/config/model-calls.js';
export type { ModelDetails, ModelListing } from './api-backend.js';
export { backendOf } from './apis.js';
export { chatOnce, describeModel, hostHasModel, listModels } from './client.js';
export { API_KEY_VARIABLES, apiName, ModelEndpoint } from './endpoint.js';
export { hostLabel } from './host.js';
export { CallError, type CallSettings, type ChatMessage, type ChatRequestSpec, type ChatResult } from './types.js';
