import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSbeval } from '../../helpers/cli.js';
import { FakeOllama } from '../../helpers/fake-ollama.js';

/**
 * Programs only by consent (llm/generate/consent.ts): a competition folder received from someone else may
 * list a program submission in its config. `sbeval run` and `sbeval generate` run it only when the
 * command line says so (`--allow-programs`); without it they stop before generating (exit 2) and name
 * every program they would run. With consent, the program gets an environment without sbeval's
 * secrets (SBEVAL_TOKEN, HF_TOKEN, API keys).
 */
let fake: FakeOllama;
beforeAll(async () => {
  fake = await new FakeOllama({ models: ['m1'] }).start();
});
afterAll(async () => {
  await fake?.stop();
});

const SECRETS = {
  SBEVAL_TOKEN: 'sbeval-secret-token-0123456789abcdef0123',
  HF_TOKEN: 'hf_secretsecretsecret',
  OPENAI_API_KEY: 'sk-secret-openai-key',
  GITHUB_TOKEN: 'ghp_secretgithub',
};

/** A received folder whose config lists a program: it leaves a mark and a copy of its environment, then answers a level. */
function receivedFolder(submission: 'exec' | 'spec'): { root: string; program: string } {
  const root = mkdtempSync(join(tmpdir(), 'sbeval-consent-'));
  const program = join(root, 'prog.sh');
  writeFileSync(
    program,
    '#!/bin/sh\nhere=$(dirname "$0")\necho ran > "$here/ran-$SBEVAL_CHAR"\nenv > "$here/env-$SBEVAL_CHAR.txt"\nprintf "%s\\n" "\\`\\`\\`python" "drop_block(\'b11\', 10)" "\\`\\`\\`"\n',
    { mode: 0o755 },
  );
  const entry = submission === 'exec' ? `{ team: visitor, file: prog.sh, kind: program }` : `{ team: visitor, file: spec.yaml }`;
  if (submission === 'spec') writeFileSync(join(root, 'spec.yaml'), 'program: [./prog.sh, --letter, "{char}"]\n');
  writeFileSync(join(root, 'sbeval.config.yaml'), `models: [m1]\nhosts: [${fake.url}]\ntrials: 1\ncharacters: [A]\nsubmissions:\n  - ${entry}\n`);
  return { root, program };
}

const sbevalLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('sbeval: ['));

describe('a program listed in a received config', () => {
  it('sbeval run stops before generation (exit 2), names the program, and runs nothing', async () => {
    const { root, program } = receivedFolder('exec');
    const result = await runSbeval(['run', root]);
    expect(result.exitCode, result.stderr).toBe(2);
    expect(sbevalLines(result.stderr)).toEqual([
      `sbeval: [config] the config would run a program on this machine: visitor: ${program} (read them first; to run them, pass --allow-programs)`,
    ]);
    expect(existsSync(join(root, 'ran-A'))).toBe(false);
    expect(existsSync(join(root, 'visitor'))).toBe(false);
    expect(existsSync(join(root, 'logs'))).toBe(false);
    expect(fake.calls).toHaveLength(0);
  });

  it("sbeval generate without --submission (the config's submissions) stops the same way; a program spec is named with its file", async () => {
    const { root, program } = receivedFolder('spec');
    const result = await runSbeval(['generate', root]);
    expect(result.exitCode, result.stderr).toBe(2);
    expect(sbevalLines(result.stderr)).toEqual([
      `sbeval: [config] the config would run a program on this machine: visitor: ${program} --letter {char} (from ${join(root, 'spec.yaml')}) (read them first; to run them, pass --allow-programs)`,
    ]);
    expect(readdirSync(root).filter((f) => f.startsWith('ran-'))).toEqual([]);
  });

  it('a program the user names on the command line (generate --submission exec:…) needs no flag, and gets no secrets either', async () => {
    const { root, program } = receivedFolder('exec');
    const result = await runSbeval(['generate', root, '--submission', `exec:${program}`, '--team', 'mine'], { env: { FORCE_COLOR: '0', ...SECRETS } });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(readFileSync(join(root, 'mine', 'raw', 'A', 'mine_A_1.txt'), 'utf8')).toContain("drop_block('b11', 10)");
    const env = readFileSync(join(root, 'env-A.txt'), 'utf8');
    expect(env).toMatch(/^SBEVAL_TEAM=mine$/m);
    for (const [name, value] of Object.entries(SECRETS)) expect(env, name).not.toContain(value);
  });

  it("runs with --allow-programs, in an environment without sbeval's secrets", async () => {
    const { root } = receivedFolder('exec');
    const result = await runSbeval(['run', root, '--allow-programs', '--workers', '1'], { env: { FORCE_COLOR: '0', ...SECRETS } });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(readFileSync(join(root, 'ran-A'), 'utf8')).toBe('ran\n');
    expect(readFileSync(join(root, 'visitor', 'raw', 'A', 'visitor_A_1.txt'), 'utf8')).toContain("drop_block('b11', 10)");
    const env = readFileSync(join(root, 'env-A.txt'), 'utf8');
    // The program's own variables and the ordinary environment are there…
    expect(env).toMatch(/^SBEVAL_CHAR=A$/m);
    expect(env).toMatch(/^PATH=/m);
    // …the secrets are not, under any name.
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(env, name).not.toContain(value);
      expect(env, name).not.toMatch(new RegExp(`^${name}=`, 'm'));
    }
  }, 120_000);
});
