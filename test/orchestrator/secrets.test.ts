import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeError } from '../../core/errors.js';
import { resolveSettings } from '../../orchestrator/config/index.js';
import { type BridgeChild, portFromHint, sbeval } from '../helpers/bridge-run.js';
import { exampleCopy } from './helpers/competition.js';

/**
 * The bridge token is a secret. A config's `tokenFile` stays inside the root (a
 * received folder named `../../../../../etc/os-release`, and that file's predictable first line became
 * the token of a 0.0.0.0 listener); a token file other users can read is refused for any listener
 * other machines reach; the loopback token sbeval generates is made private again when someone
 * loosened it. (Child programs without sbeval's secrets: program-consent.test.ts.)
 */
const children: BridgeChild[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** `sbeval <args>`; killed at the end of the test if it is still waiting for engines. */
function start(args: string[], env: Record<string, string> = {}): BridgeChild {
  const child = sbeval(args, { SBEVAL_TOKEN: '', ...env });
  children.push(child);
  return child;
}

/** The command ends by itself within a minute (before the fix these runs listened and waited for engines). */
async function ended(child: BridgeChild) {
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  try {
    return await child;
  } finally {
    clearTimeout(timer);
  }
}

const errorOf = (action: () => unknown): string => {
  try {
    action();
  } catch (error) {
    return describeError(error);
  }
  return 'no error';
};

describe("a config's tokenFile stays inside the competition root", () => {
  it('refuses a path out of the root, an absolute path, and a link that leads out; a file inside is used', () => {
    const root = exampleCopy({ teams: ['BlockSmith'], letters: ['I'] });
    const withToken = (tokenFile: string) => {
      writeFileSync(join(root, 'sbeval.config.yaml'), `trials: 3\nengine: bridge\nlisten: 0.0.0.0:0\ntokenFile: ${JSON.stringify(tokenFile)}\n`);
      return () => resolveSettings(root, {});
    };
    expect(errorOf(withToken('../../../../../etc/os-release'))).toBe(
      `tokenFile "../../../../../etc/os-release" points outside the competition root ${root} (put the file inside the competition folder)`,
    );
    expect(errorOf(withToken('/etc/os-release'))).toMatch(/^tokenFile "\/etc\/os-release" points outside the competition root/);
    mkdirSync(join(root, '.secrets'));
    symlinkSync('/etc/os-release', join(root, '.secrets', 'token'));
    expect(errorOf(withToken('.secrets/token'))).toMatch(/^tokenFile "\.secrets\/token" is a link that leads outside the competition root/);
    writeFileSync(join(root, 'token'), `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    expect(withToken('token')().tokenFile).toBe(join(root, 'token'));
    // The command line may name any file: the user chose it.
    writeFileSync(join(root, 'sbeval.config.yaml'), 'trials: 3\n');
    expect(resolveSettings(root, { tokenFile: '/etc/os-release' }, { cwd: root }).tokenFile).toBe('/etc/os-release');
  });

  it("sbeval run with the red team's config ends at once with exit 2 (no listener with /etc/os-release as its token)", async () => {
    const root = exampleCopy({
      teams: ['BlockSmith'],
      letters: ['I'],
      config: 'trials: 3\nengine: bridge\nlisten: 0.0.0.0:0\ntokenFile: ../../../../../etc/os-release\n',
    });
    const result = await ended(start(['run', root]));
    expect(result.exitCode, result.all).toBe(2);
    expect(result.all).toMatch(/tokenFile "\.\.\/\.\.\/\.\.\/\.\.\/\.\.\/etc\/os-release" points outside the competition root/);
    expect(result.all).not.toMatch(/waiting for engines/);
  });
});

describe('a token file other users can read', () => {
  it('is refused for a listener other machines can reach (exit 2, the fix named)', async () => {
    const root = exampleCopy({ teams: ['BlockSmith'], letters: ['I'] });
    const file = join(mkdtempSync(join(tmpdir(), 'sbeval-token-')), 'token');
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`);
    chmodSync(file, 0o644);
    const result = await ended(start(['run', root, '--engine', 'bridge', '--listen', '0.0.0.0:0', '--token-file', file]));
    expect(result.exitCode, result.all).toBe(2);
    expect(result.all).toContain(
      `sbeval: [config] the token file ${file} can be read by other users, and listening on 0.0.0.0 lets other machines connect with it (chmod 600 ${file}, then run the same command again)`,
    );
    expect(result.all).not.toMatch(/waiting for engines/);
  });

  it('the loopback token sbeval generated, loosened by someone, gets mode 600 again with a line saying so', async () => {
    const root = exampleCopy({ teams: ['BlockSmith'], letters: ['I'] });
    const file = join(root, '.sbeval', 'bridge-token');
    mkdirSync(join(root, '.sbeval'));
    const token = randomBytes(32).toString('hex');
    writeFileSync(file, `${token}\n`);
    chmodSync(file, 0o644);
    const run = start(['run', root, '--engine', 'bridge']);
    await portFromHint(run);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(`${token}\n`);
    run.kill('SIGINT');
    const result = await ended(run);
    expect(result.all).toContain(`the token file ${file} could be read by other users: its mode is now 600`);
    expect(result.all).not.toContain(token);
  });
});
