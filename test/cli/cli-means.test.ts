import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuilt, spawnBuilt } from '../helpers/built-cli.js';
import { copyExampleSources, PROJECT_ROOT, until } from '../helpers/cli.js';

/**
 * The CLI says what it means, through the built `sbeval` as a user types it: the settings
 * line names only what the command uses; errors land in the terminal with the allowed values and a
 * "did you mean"; `model fetch` without network names the offline routes; only a real competition
 * root is suggested; every count a summary prints is explained.
 */
let base: string;
let comp: string;
/** A model cache of this test's own: nothing cached, so no command finds a similarity model. */
let cache: string;
const env = () => ({ SBEVAL_CACHE: cache });

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'sbeval-means-'));
  cache = join(base, 'cache');
  comp = join(base, 'comp');
  copyExampleSources(comp, { teams: ['BlockSmith', 'GridThinkers'], letters: ['I'] });
  writeFileSync(join(comp, 'sbeval.config.yaml'), 'trials: 3\n');
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const firstLine = (text: string) => text.split('\n')[0]!;

describe('the settings line', () => {
  it('names the similarity model only where it is used: not for extract, convert, diversity, judge rubric', async () => {
    const lines: Record<string, string> = {};
    for (const args of [
      ['extract', comp],
      ['convert', comp],
      ['diversity', comp],
      ['similarity', comp],
      ['judge', 'rubric', comp, '--judge', 'llava:13b', '--hosts', 'http://127.0.0.1:9'],
    ]) {
      const result = await runBuilt(args, { env: env() });
      lines[args[0] === 'judge' ? 'judge rubric' : args[0]!] = firstLine(result.stderr);
    }
    expect(lines.extract).toBe('sbeval extract: rules 2025 (default), calls drop_block() (by the rules), characters I (every letter folder)');
    expect(lines.convert).toBe('sbeval convert: rules 2025 (default), calls drop_block() (by the rules), characters I (every letter folder)');
    expect(lines.diversity).toBe('sbeval diversity: rules 2025 (default), T 3 (sbeval.config.yaml), characters I (every letter folder)');
    // A judge filters on the config's trials; it has no use for the classifier.
    expect(lines['judge rubric']).toBe('sbeval judge rubric: trials 1…3 (sbeval.config.yaml), characters I (every letter folder)');
    expect(lines.similarity).toBe('sbeval similarity: rules 2025 (default), characters I (every letter folder), model none (get it: sbeval model fetch)');
  }, 180_000);
});

describe('errors in the terminal, with the allowed values and a "did you mean"', () => {
  function withConfig(name: string, config: string): string {
    const root = join(base, name);
    copyExampleSources(root, { teams: ['BlockSmith'], letters: ['I'] });
    writeFileSync(join(root, 'sbeval.config.yaml'), config);
    return root;
  }

  it('a config value outside an enum lists the allowed values; a misspelt key gets the key meant', async () => {
    const [rules, key, nested] = await Promise.all([
      runBuilt(['score', withConfig('rules-2022', 'rules: 2022\n')]),
      runBuilt(['score', withConfig('character', 'character: A\n')]),
      runBuilt(['score', withConfig('stall', 'engine: unit\nlimits:\n  stalSeconds: 3\n')]),
    ]);
    for (const r of [rules, key, nested]) expect(r.exitCode).toBe(2);
    expect(rules.stderr).toContain('  key "rules": 2022 is not one of 2023, 2024, 2025');
    expect(key.stderr).toContain('  unknown key "character" — did you mean "characters"? (known keys: rules, teams, characters,');
    expect(nested.stderr).toContain('  key "engine": "unit" is not one of headless, headless-ws, unity, bridge — did you mean "unity"?');
    expect(nested.stderr).toContain('  unknown key "limits.stalSeconds" — did you mean "limits.stallSeconds"?');
  }, 120_000);

  it("a flag the command does not take names the commands that take it; a misspelt one gets commander's suggestion", async () => {
    const [elsewhere, misspelt, nested] = await Promise.all([
      runBuilt(['run', comp, '--sim-trials', '2']),
      runBuilt(['run', comp, '--wrokers', '2']),
      runBuilt(['judge', 'order', comp, '--judge', 'j', '--perspectiv', 'general']),
    ]);
    expect(elsewhere.exitCode).toBe(2);
    expect(elsewhere.stderr.split('\n')).toEqual([
      "error: unknown option '--sim-trials'",
      '(--sim-trials is an option of: sbeval simulate, sbeval level, sbeval score)',
      '(see: sbeval run --help)',
    ]);
    expect(misspelt.stderr.split('\n')).toEqual(["error: unknown option '--wrokers'", '(Did you mean --workers?)', '(see: sbeval run --help)']);
    expect(nested.stderr.split('\n')).toEqual(["error: unknown option '--perspectiv'", '(Did you mean --perspective?)', '(see: sbeval judge order --help)']);
  }, 120_000);

  it('sbeval view on a file it cannot show fails at once in the terminal, before any server starts', async () => {
    const text = join(base, 'notes.txt');
    writeFileSync(text, 'hello\n');
    const xml = join(base, 'odd.xml');
    writeFileSync(xml, '<x/>\n');
    // A generous bound: these end in well under a second; an `sbeval view` that started a server would wait for Ctrl-C.
    const [notTrace, notLevel] = await Promise.all([runBuilt(['view', text], { timeoutMs: 120_000 }), runBuilt(['view', xml], { timeoutMs: 120_000 })]);
    for (const r of [notTrace, notLevel]) {
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')).toHaveLength(1);
    }
    expect(notTrace.stderr).toMatch(
      /^sbeval: \[input\] .*notes\.txt is not a trace sbeval view can show: not an sbeval trace .*\(give a trace file .*a level \.xml or a competition folder; a \.txt drop program or LLM response: sbeval level <file> --trace <out\.sbtrace>, then sbeval view <out\.sbtrace>\)$/,
    );
    expect(notLevel.stderr).toMatch(/^sbeval: \[input\] .*odd\.xml is not a Science Birds level: line 1, column 1: the root element is <x>/);
  }, 240_000);
});

describe('a response given where a level or a trace is expected', () => {
  it('level says the official "Code not found."; explain says what the .txt is and what it takes', async () => {
    const response = join(base, 'resp.txt');
    writeFileSync(response, 'I would build the letter with three tall blocks.\n');
    const [level, explain] = await Promise.all([
      runBuilt(['level', response], { timeoutMs: 120_000 }),
      runBuilt(['explain', response], { timeoutMs: 120_000 }),
    ]);
    expect(level.exitCode).not.toBe(0);
    expect(level.stderr).toMatch(/resp\.txt: Code not found\. \(no drop_block\(\.\.\.\) call\)/);
    expect(explain.exitCode).not.toBe(0);
    expect(explain.stderr).toMatch(
      /resp\.txt is not a trace explain can read \(a \.txt is a drop program or an LLM response, not a trace\): .*\(explain takes a trace file .* or a level \.xml; from a \.txt: sbeval level <file> --trace <out\.sbtrace>, then sbeval explain <out\.sbtrace>\)/,
    );
  }, 240_000);
});

describe('sbeval model fetch without network', () => {
  it('is a network error (not [config]) that names the offline routes', async () => {
    // A port nothing listens on: the connection is refused at once, as on a machine without network.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const result = await runBuilt(['model', 'fetch', '--base-url', `http://127.0.0.1:${port}`, '--retries', '0'], { env: env() });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).not.toContain('[config]');
    expect(result.stderr).toMatch(
      new RegExp(
        `sbeval: \\[network\\] cannot reach http://127\\.0\\.0\\.1:${port}/pittawat/vit-base-uppercase-english-characters/resolve/main/config\\.json: `,
      ),
    );
    expect(result.stderr).toContain('without network, put the model in place by hand (docs/similarity.md#no-network-offline-routes-to-a-model):');
    expect(result.stderr).toContain('--cache <dir>`, copy <dir> here and set SBEVAL_CACHE=<dir>');
    expect(result.stderr).toContain(
      'run `sbeval model convert <folder> --out vit.onnx`, then pass --model vit.onnx (or set model: vit.onnx in sbeval.config.yaml)',
    );
    expect(result.stderr).toContain('--base-url <url>');
    // The routes it names exist: the doc section, and the flags.
    expect(existsSync(join(PROJECT_ROOT, 'docs', 'similarity.md'))).toBe(true);
    const help = await runBuilt(['similarity', '--help']);
    expect(help.stdout).toContain('--model <file.onnx>');
  }, 120_000);
});

describe('the root a wrong folder points to', () => {
  it('is suggested only when it is a competition root: not the parent of a source checkout', async () => {
    const [readme, docs, inside] = await Promise.all([
      runBuilt(['run', 'README.md']),
      runBuilt(['run', 'docs']),
      runBuilt(['run', join(comp, 'BlockSmith', 'raw', 'I', 'BlockSmith_I_1.txt')]),
    ]);
    for (const r of [readme, docs, inside]) expect(r.exitCode).toBe(2);
    expect(readme.stderr).toBe(
      'sbeval: [input] README.md is a file, not a competition folder (a competition root holds one folder per team: <root>/<team>/raw/<C>/<team>_<C>_<n>.txt (or levels/, images/, stability/ …), or one such folder per model (2025))',
    );
    expect(docs.stderr).not.toContain('probably');
    expect(docs.stderr).not.toContain(dirname(PROJECT_ROOT.replace(/\/$/, '')));
    // A file inside a real competition still points to it.
    expect(inside.stderr).toContain(`(the competition root is probably ${comp}: sbeval run ${comp})`);
  }, 120_000);
});

describe('summaries explain every count they print', () => {
  it('diversity with nothing to do says what it looked for and which command writes it', async () => {
    const result = await runBuilt(['diversity', comp], { env: env() });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('diversity: 0 succeeded, 0 failed, 0 already done\n');
    expect(result.stdout).toContain(
      `  diversity: nothing to do in ${comp}: no similarity files <team>/similarity/<C>.json in its 2 team folder(s) (BlockSmith, GridThinkers) (none has similarity/); sbeval similarity writes them`,
    );
  }, 60_000);

  it('after Ctrl-C, run counts the levels it did not start as not run, and the counts add up to the trials', async () => {
    const root = join(base, 'interrupted');
    copyExampleSources(root);
    writeFileSync(join(root, 'sbeval.config.yaml'), 'trials: 3\n');
    const child = spawnBuilt(['run', root, '--workers', '1'], { env: env() });
    // Interrupt once the first level is finished (its cache entry exists).
    const cacheDir = join(root, '.sbeval', 'simulate');
    const oneDone = () => existsSync(cacheDir) && readdirSync(cacheDir, { recursive: true }).some((f) => String(f).endsWith('.json'));
    await until(oneDone, 'a first level', child);
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode).toBe(130);
    const line = String(result.stdout)
      .split('\n')
      .find((l) => l.startsWith('levels: '));
    const counts =
      /^levels: (\d+) trials: (\d+) done now, (\d+) already done by an earlier run, (\d+) failed[^,]*, (\d+) not run: interrupted before they started \(run the same command to do them\); (\d+) simulated now, \d+ engine retries$/.exec(
        line ?? '',
      );
    expect(counts, line).not.toBeNull();
    const [total, done, cached, failed, notRun] = counts!.slice(1, 6).map(Number) as [number, number, number, number, number];
    expect(total).toBe(3 * 5 * 3); // 3 teams × 5 letters × T 3
    expect(done + cached + failed + notRun).toBe(total);
    expect(notRun).toBeGreaterThan(0);
    expect(done).toBeGreaterThan(0);
  }, 240_000);

  it('on a 2025 root, every stage row names the model folder it belongs to', async () => {
    const root = join(base, 'models');
    for (const model of ['m1', 'm2']) copyExampleSources(join(root, model), { teams: ['BlockSmith'], letters: ['I'] });
    writeFileSync(join(root, 'sbeval.config.yaml'), 'trials: 3\n');
    const result = await runBuilt(['run', root, '--workers', '1'], { env: env() });
    const rows = String(result.stdout)
      .split('\n')
      .filter((l) => /^(\[\w+\] )?(extract|convert|stability)\s/.test(l));
    expect(rows.length).toBeGreaterThanOrEqual(6);
    for (const row of rows) expect(row).toMatch(/^\[m[12]\] /);
    for (const model of ['m1', 'm2'])
      for (const stage of ['extract', 'convert'])
        expect(
          rows.some((r) => r.startsWith(`[${model}] ${stage} `)),
          `${model} ${stage}`,
        ).toBe(true);
  }, 240_000);
});
