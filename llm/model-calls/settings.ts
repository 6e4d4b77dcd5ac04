import { SbevalError } from '../../core/errors.js';
import { valueProblem } from '../../orchestrator/config/load.js';
import type { ResolvedModelCalls } from '../../orchestrator/config/model-calls.js';
import { CONFIG_SCHEMA } from '../config.js';
import { DEFAULT_MODEL_API, type ModelApi } from './apis.js';

/** The model-call settings as the client uses them: the settings' (orchestrator/config/model-calls.ts) with the API one of apis.ts. */
export interface ModelCallSettings extends ResolvedModelCalls {
  api: ModelApi;
}

/**
 * The resolved model-call settings with their API known: the one `--api` or the config named, else
 * `DEFAULT_MODEL_API`. The CLI's settings were checked by the whole config schema already
 * (llm/config.ts); a library caller's resolved with the evaluator's alone are checked here, by the
 * same schema and in the same words.
 */
export function modelCallSettings(resolved: ResolvedModelCalls): ModelCallSettings {
  const api = resolved.api ?? DEFAULT_MODEL_API;
  const schema = CONFIG_SCHEMA.shape.api;
  const checked = schema.safeParse(api);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new SbevalError('config', `api ${valueProblem(issue, schema, api) ?? issue.message}`, 'name one of the model APIs in --api or the config');
  }
  return { ...resolved, api: checked.data ?? DEFAULT_MODEL_API };
}
