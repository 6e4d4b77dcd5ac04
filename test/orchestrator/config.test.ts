import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeError } from '../../core/errors.js';
import { resolveSettings as resolveWholeSettings } from '../../llm/config.js';
import { modelCallSettings } from '../../llm/model-calls/settings.js';
import { loadConfigFile, resolveSettings, settingsLine } from '../../orchestrator/config/index.js';

/** A competition root (one team with a raw folder) plus the given files. */
function competition(files: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'sbeval-config-'));
  mkdirSync(join(root, 'team', 'raw', 'A'), { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

const errorOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    return describeError(error); // what the CLI prints: message and hint
  }
  throw new Error('expected an error');
};

describe('run config', () => {
  it('works without a config file: official defaults, A–Z, 10 trials, 2025 rules', () => {
    const config = resolveSettings(competition(), { workers: 2 });
    expect(config.configFile).toBeUndefined();
    expect(config.rules).toBe('2025');
    expect(config.prefix).toBe('drop_block');
    expect(config.characters.join('')).toBe('ABCDEFGHIJKLMNOPQRSTUVWXYZ');
    expect(config.trials).toBe(10);
    expect(config.simulationTrials).toBe(3);
    expect(config.engine).toBe('headless');
    expect(config.sources.rules).toBe('default');
  });

  it('reads YAML and JSON config files, and CLI flags override them', () => {
    const yamlRoot = competition({
      'sbeval.config.yaml': 'rules: 2023\ncharacters: A-C\ntrials: 5\nworkers: 3\nlimits:\n  stallSeconds: 2\n  engineRetries: 1\n',
    });
    const fromYaml = resolveSettings(yamlRoot);
    expect(fromYaml.rules).toBe('2023');
    expect(fromYaml.prefix).toBe('ab_drop');
    expect(fromYaml.characters).toEqual(['A', 'B', 'C']);
    expect(fromYaml.trials).toBe(5);
    expect(fromYaml.workers).toBe(3);
    expect(fromYaml.limits.stallMs).toBe(2000);
    expect(fromYaml.limits.engineRetries).toBe(1);
    expect(fromYaml.sources.rules).toBe('config');

    const overridden = resolveSettings(yamlRoot, { rules: '2024', workers: 1, chars: 'A' });
    expect(overridden.rules).toBe('2024');
    expect(overridden.prefix).toBe('drop_block');
    expect(overridden.workers).toBe(1);
    expect(overridden.characters).toEqual(['A']);
    expect(overridden.sources.rules).toBe('flag');

    const jsonRoot = competition({
      'sbeval.config.json': JSON.stringify({ rules: '2024', engine: 'headless-ws', teams: ['a', 'b'] }),
      'a/raw/A/a_A_1.txt': '',
      'b/raw/A/b_A_1.txt': '',
    });
    const fromJson = resolveSettings(jsonRoot);
    expect(fromJson.engine).toBe('headless-ws');
    expect(fromJson.teams).toEqual(['a', 'b']);
  });

  it("asks the same Ollama hosts in every command: --hosts, else the config, else $OLLAMA_HOST, else Ollama's default", () => {
    const bare = competition();
    expect(resolveSettings(bare, {}, { env: {} }).hosts).toEqual(['http://127.0.0.1:11434']);
    expect(resolveSettings(bare, {}, { env: { OLLAMA_HOST: ' http://gpu9:11434 ' } }).hosts).toEqual(['http://gpu9:11434']);
    const configured = competition({ 'sbeval.config.yaml': 'hosts: [http://gpu1:11434, http://gpu2:11434]\n' });
    const env = { OLLAMA_HOST: 'http://gpu9:11434' };
    expect(resolveSettings(configured, {}, { env }).hosts).toEqual(['http://gpu1:11434', 'http://gpu2:11434']);
    expect(resolveSettings(configured, { hosts: ['http://gpu3:11434'] }, { env }).hosts).toEqual(['http://gpu3:11434']);
  });

  it('resolves the model-call API and bounds the same way for every command: flags, then the config, then the defaults', () => {
    // The CLI's resolution: the evaluator's with the whole config schema (llm/config.ts), the API's default applied by the tooling.
    const calls = (root: string, flags = {}) => modelCallSettings(resolveWholeSettings(root, flags, { env: {} }).modelCalls);
    // The call deadline follows the time limit (500 s officially), the answer cap is 1 MiB.
    expect(calls(competition())).toEqual({ api: 'ollama', deadlineMs: 500_000, maxAnswerBytes: 1_048_576 });
    expect(resolveSettings(competition(), {}, { env: {} }).modelCalls).toEqual({ api: undefined, deadlineMs: 500_000, maxAnswerBytes: 1_048_576 });
    expect(resolveSettings(competition(), { timeLimit: 0 }, { env: {} }).modelCalls.deadlineMs).toBe(600_000);
    expect(resolveSettings(competition(), { timeLimit: 5 }, { env: {} }).modelCalls.deadlineMs).toBe(5000);
    const root = competition({ 'sbeval.config.yaml': 'api: openai\nlimits:\n  timeSeconds: 120\n  answerBytes: 65536\n' });
    expect(calls(root)).toEqual({ api: 'openai', deadlineMs: 120_000, maxAnswerBytes: 65_536 });
    expect(calls(root, { api: 'ollama', callTimeout: 2.5, maxAnswerBytes: 4096 })).toEqual({ api: 'ollama', deadlineMs: 2500, maxAnswerBytes: 4096 });
    expect(resolveSettings(competition({ 'sbeval.config.yaml': 'limits:\n  callSeconds: 30\n' }), { timeLimit: 5 }, { env: {} }).modelCalls.deadlineMs).toBe(
      30_000,
    );
    expect(errorOf(() => resolveWholeSettings(competition(), { api: 'anthropic' }, { env: {} }))).toBe('--api "anthropic" is not one of ollama, openai');
    expect(errorOf(() => resolveWholeSettings(competition({ 'sbeval.config.yaml': 'api: olama\n' }), {}, { env: {} }))).toMatch(
      /key "api": "olama" is not one of ollama, openai — did you mean "ollama"\?/,
    );
    // The evaluator alone carries the name without knowing the APIs; the tooling refuses it in the same words before a call.
    const unknown = resolveSettings(competition(), { api: 'openia' }, { env: {} }).modelCalls;
    expect(unknown.api).toBe('openia');
    expect(errorOf(() => modelCallSettings(unknown))).toMatch(/^api "openia" is not one of ollama, openai — did you mean "openai"\?/);
    expect(errorOf(() => resolveSettings(competition(), { maxAnswerBytes: 10 }, { env: {} }))).toBe('--max-answer-bytes must be a whole number ≥ 1024, got 10');
    // A key has no place in the config: only the environment holds it.
    expect(errorOf(() => resolveSettings(competition({ 'sbeval.config.yaml': 'apiKey: sk-123\n' }), {}))).toMatch(/apiKey/);
  });

  it('names the bad key: unknown keys, nested keys, wrong values', () => {
    const unknown = competition({ 'sbeval.config.yaml': 'enigne: headless\n' });
    expect(errorOf(() => loadConfigFile(unknown))).toMatch(/unknown key "enigne" — did you mean "engine"\? \(known keys: rules, teams/);
    const nested = competition({ 'sbeval.config.yaml': 'limits:\n  stallSecs: 3\n' });
    expect(errorOf(() => loadConfigFile(nested))).toMatch(
      /unknown key "limits.stallSecs" — did you mean "limits.stallSeconds"\? \(known keys of limits: timeSeconds, /,
    );
    // The name of a CLI flag gets its config key; a name far from every key gets no guess.
    expect(errorOf(() => loadConfigFile(competition({ 'sbeval.config.yaml': 'chars: A-Z\n' })))).toMatch(/unknown key "chars" — did you mean "characters"\?/);
    expect(errorOf(() => loadConfigFile(competition({ 'sbeval.config.yaml': 'colour: blue\n' })))).toMatch(/unknown key "colour" \(known keys: /);
    const wrong = competition({ 'sbeval.config.yaml': 'rules: 2022\nlimits:\n  stallSeconds: -1\nworkers: two\n' });
    const message = errorOf(() => loadConfigFile(wrong));
    expect(message).toMatch(/3 invalid settings/);
    expect(message).toMatch(/key "rules": 2022 is not one of 2023, 2024, 2025\n/);
    expect(message).toMatch(/key "limits.stallSeconds"/);
    expect(message).toMatch(/key "workers"/);
    expect(message).toContain('sbeval.config.yaml');
  });

  it('checks a flag by the schema of its config key: the same bounds, allowed values and guesses', () => {
    const inFile = errorOf(() => loadConfigFile(competition({ 'sbeval.config.yaml': 'trials: 0\nlimits:\n  stallSeconds: 0\nengine: unit\n' })));
    expect(inFile).toContain('key "trials": must be a whole number from 1 to 1000, got 0');
    expect(inFile).toContain('key "limits.stallSeconds": must be a number > 0, got 0');
    expect(inFile).toContain('key "engine": "unit" is not one of headless, headless-ws, unity, bridge — did you mean "unity"?');
    expect(errorOf(() => resolveSettings(competition(), { trials: 0 }))).toBe('--trials must be a whole number from 1 to 1000, got 0');
    expect(errorOf(() => resolveSettings(competition(), { trials: 1001 }))).toBe('--trials must be a whole number from 1 to 1000, got 1001');
    expect(errorOf(() => resolveSettings(competition(), { callTimeout: 0 }, { env: {} }))).toBe('--call-timeout must be a number > 0, got 0');
    expect(errorOf(() => resolveSettings(competition(), { engine: 'unit' }))).toBe(
      '--engine "unit" is not one of headless, headless-ws, unity, bridge — did you mean "unity"?',
    );
    expect(errorOf(() => resolveSettings(competition(), { damage: 'bdoy' }))).toBe('--damage "bdoy" is not one of contact-point, body — did you mean "body"?');
  });

  it('reports syntax errors with the file name', () => {
    const root = competition({ 'sbeval.config.json': '{ "rules": 2024, }' });
    expect(errorOf(() => loadConfigFile(root))).toMatch(/sbeval\.config\.json: not valid JSON/);
  });

  it('refuses two config files at once', () => {
    const root = competition({ 'sbeval.config.json': '{}', 'sbeval.config.yaml': 'rules: 2024\n' });
    expect(errorOf(() => loadConfigFile(root))).toMatch(/more than one config file.*sbeval\.config\.json, sbeval\.config\.yaml/);
  });

  it('rejects team names that could leave the root, from the config and from flags', () => {
    for (const team of ['..', '../x', 'a/b', '.hidden', '']) {
      const root = competition({ 'sbeval.config.json': JSON.stringify({ teams: [team] }) });
      expect(errorOf(() => resolveSettings(root))).toMatch(/key "teams\.0"/);
    }
    expect(errorOf(() => resolveSettings(competition(), { teams: ['x/../../etc'] }))).toMatch(/team name "x\/\.\.\/\.\.\/etc" contains a path separator/);
    const submission = competition({ 'sbeval.config.json': JSON.stringify({ submissions: [{ team: 'x/..', file: 'p.txt' }], models: ['m'] }) });
    expect(errorOf(() => resolveSettings(submission))).toMatch(/key "submissions\.0\.team"/);
  });

  it('keeps submission files inside the root, also through symbolic links', () => {
    const outside = competition({ 'secret.txt': 'not a prompt' });
    const escaping = competition({ 'sbeval.config.json': JSON.stringify({ submissions: [{ team: 't', file: '../secret.txt' }], models: ['m'] }) });
    expect(errorOf(() => resolveSettings(escaping))).toMatch(/submissions\.0\.file "\.\.\/secret\.txt" points outside the competition root/);
    const linked = competition({ 'sbeval.config.json': JSON.stringify({ submissions: [{ team: 't', file: 'prompt.txt' }], models: ['m'] }) });
    symlinkSync(join(outside, 'secret.txt'), join(linked, 'prompt.txt'));
    expect(errorOf(() => resolveSettings(linked))).toMatch(/is a link that leads outside the competition root/);
    const fine = competition({
      'prompts/p.txt': 'Build <OBJECT>',
      'sbeval.config.json': JSON.stringify({ submissions: [{ team: 't', file: 'prompts/p.txt' }], models: ['qwen2.5:32b'] }),
    });
    const config = resolveSettings(fine);
    expect(config.submissions[0]!.file).toBe(join(fine, 'prompts', 'p.txt'));
    expect(config.models).toEqual([{ name: 'qwen2.5:32b', folder: 'qwen2.5_32b' }]);
  });

  it('needs models when submissions are configured, and distinct model folders', () => {
    const noModels = competition({ 'p.txt': 'x', 'sbeval.config.json': JSON.stringify({ submissions: [{ team: 't', file: 'p.txt' }] }) });
    expect(errorOf(() => resolveSettings(noModels))).toMatch(/submissions are configured but no models/);
    const clash = competition({ 'sbeval.config.json': JSON.stringify({ models: ['a:b', 'a/b'] }) });
    expect(errorOf(() => resolveSettings(clash))).toMatch(/"a:b" and "a\/b" map to the same folder "a_b"/);
  });

  it('says how to get a similarity model when the configured one is missing', () => {
    const root = competition({ 'sbeval.config.json': JSON.stringify({ model: 'models/vit.onnx' }) });
    expect(errorOf(() => resolveSettings(root))).toMatch(/vit\.onnx does not exist \(sbeval model fetch pittawat\/vit-base-uppercase-english-characters\)/);
  });

  it("finds the model: --model against the working folder, the config's against the root, else the cached one, named", () => {
    const root = competition({ 'models/vit.onnx': 'root copy', 'sbeval.config.json': JSON.stringify({ model: 'models/vit.onnx' }) });
    const elsewhere = mkdtempSync(join(tmpdir(), 'sbeval-cwd-'));
    writeFileSync(join(elsewhere, 'mine.onnx'), 'cwd copy');
    mkdirSync(join(elsewhere, 'models'));
    writeFileSync(join(elsewhere, 'models', 'vit.onnx'), 'cwd copy');
    // The same relative path: a flag means the working folder's file, the config the root's.
    const flagged = resolveSettings(root, { model: 'models/vit.onnx' }, { cwd: elsewhere });
    expect([flagged.model, flagged.modelSource]).toEqual([join(elsewhere, 'models', 'vit.onnx'), 'flag']);
    const configured = resolveSettings(root, {}, { cwd: elsewhere });
    expect([configured.model, configured.modelSource]).toEqual([join(root, 'models', 'vit.onnx'), 'config']);
    // No flag, no config: the model `sbeval model fetch` cached, named in the settings line.
    const cache = join(elsewhere, 'cached.onnx');
    writeFileSync(cache, 'cached');
    const cached = resolveSettings(competition(), {}, { cachedModel: cache });
    expect([cached.model, cached.modelSource]).toEqual([cache, 'cache']);
    expect(settingsLine(cached, 'run')).toMatch(/model .*cached\.onnx \(cached by sbeval model fetch\)$/);
    const none = resolveSettings(competition(), {}, { cachedModel: join(elsewhere, 'absent.onnx') });
    expect([none.model, none.modelSource]).toEqual([undefined, 'none']);
    expect(settingsLine(none, 'similarity')).toMatch(/^sbeval similarity: rules 2025 \(default\), .*model none \(get it: sbeval model fetch\)$/);
    // score does not use the model: its line does not name it.
    expect(settingsLine(none, 'score')).toBe('sbeval score: rules 2025 (default), T 10 (default), characters A (every letter folder)');
  });

  it('rejects bad flag values with the flag name', () => {
    expect(errorOf(() => resolveSettings(competition(), { rules: '2022' }))).toMatch(/--rules "2022" is not one of 2023, 2024, 2025/);
    expect(errorOf(() => resolveSettings(competition(), { engine: 'box2d' }))).toMatch(/--engine "box2d" is not one of headless, headless-ws, unity, bridge/);
    expect(errorOf(() => resolveSettings(competition(), { chars: 'A-5' }))).toMatch(/not in the alphabet/);
  });
});
