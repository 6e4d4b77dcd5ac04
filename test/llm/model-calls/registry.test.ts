import { describe, expect, it } from 'vitest';
import { ENGINE_KINDS } from '../../../bridge/engine-kinds.js';
import { buildProgram } from '../../../cli/main.js';
import { describeError } from '../../../core/errors.js';
import { CONFIG_SCHEMA, parseConfigText } from '../../../llm/config.js';
import { backendOf, DEFAULT_MODEL_API, MODEL_APIS } from '../../../llm/model-calls/apis.js';
import { keyChoices } from '../../../orchestrator/config/index.js';

/**
 * Each registry is the one source of its names: the model APIs are the entries of
 * llm/model-calls/apis.ts, the engine kinds those of bridge/engine-kinds.ts, and the config's allowed
 * values, `--api`'s and `--engine`'s choices, their help and "did you mean" are read from them.
 */
const errorOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    return describeError(error);
  }
  throw new Error('expected an error');
};

describe('the model APIs: llm/model-calls/apis.ts is their one source', () => {
  it("the config's allowed values of api are the registry's names, its default one of them", () => {
    expect(MODEL_APIS.length).toBeGreaterThan(1);
    expect(keyChoices('api', CONFIG_SCHEMA)).toEqual([...MODEL_APIS]);
    expect(MODEL_APIS).toContain(DEFAULT_MODEL_API);
    // The evaluator's own schema names no API: it carries the name for the tooling above it.
    expect(keyChoices('api')).toEqual([]);
    for (const api of MODEL_APIS) expect(parseConfigText(`api: ${api}\n`, 'sbeval.config.yaml')).toEqual({ api });
    const last = MODEL_APIS.at(-1)!;
    expect(errorOf(() => parseConfigText(`api: ${last}x\n`, 'sbeval.config.yaml'))).toContain(
      `key "api": "${last}x" is not one of ${MODEL_APIS.join(', ')} — did you mean "${last}"?`,
    );
  });

  it("--api offers the registry's names, each with its backend's help, on every command that takes it", async () => {
    const program = await buildProgram();
    const withApi = [program.commands.find((c) => c.name() === 'generate')!, ...program.commands.find((c) => c.name() === 'judge')!.commands];
    expect(withApi.map((c) => c.name())).toEqual(['generate', 'rubric', 'order']);
    for (const command of withApi) {
      const option = command.options.find((o) => o.long === '--api')!;
      expect(option.argChoices, command.name()).toEqual([...MODEL_APIS]);
      const help = command.createHelp().optionDescription(option);
      for (const api of MODEL_APIS) expect(help).toContain(`${api} (${backendOf(api).help})`);
      expect(help).toContain(`else ${DEFAULT_MODEL_API}`);
    }
  });
});

describe('the engine kinds: bridge/engine-kinds.ts is their one source', () => {
  it("the config's and --engine's allowed values are the registry's kinds", async () => {
    expect(keyChoices('engine', CONFIG_SCHEMA)).toEqual([...ENGINE_KINDS]);
    const run = (await buildProgram()).commands.find((c) => c.name() === 'run')!;
    expect(run.options.find((o) => o.long === '--engine')!.argChoices).toEqual([...ENGINE_KINDS]);
  });
});
