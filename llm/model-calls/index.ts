/**
 * The model-call client (docs/model-calls.md): one client for Ollama's native API and the
 * OpenAI-style API, every call under hard bounds (deadline, stall timer, answer byte cap, no
 * redirects) with credentials kept out of every message.
 */

export { DEFAULT_CALL_DEADLINE_S, DEFAULT_MAX_ANSWER_BYTES } from '../../orchestrator/config/model-calls.js';
export type { ModelDetails, ModelListing } from './api-backend.js';
export { backendOf, DEFAULT_MODEL_API, MODEL_APIS, type ModelApi } from './apis.js';
export { chatOnce, describeModel, hostHasModel, listModels } from './client.js';
export { API_KEY_VARIABLES, apiName, ModelEndpoint } from './endpoint.js';
export { hostLabel } from './host.js';
export type { ModelCallSettings } from './settings.js';
export { CallError, type CallSettings, type ChatMessage, type ChatRequestSpec, type ChatResult } from './types.js';
