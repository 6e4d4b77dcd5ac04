import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInvites } from '../../../llm/survey/invites.js';
import { type SurveyServer, startSurveyServer } from '../../../llm/survey/server.js';
import { copyExampleSources, runSbeval, spawnSbeval } from '../../helpers/cli.js';
import { otherSide } from '../../helpers/netns.js';

/**
 * The survey server for raters on other machines, over real sockets: invitations
 * (no request without one is served, no rater writes as another), nothing that names a team or a
 * level in what a rater receives, no framing by other pages, no state change by a simple request,
 * replays on the survey's own port, a public URL behind a proxy, and a rater on another network
 * namespace reaching `sbeval survey serve --host` with an invite link.
 */
const TEAMS = ['BlockSmith', 'GridThinkers', 'PromptPilots'];

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with the exact path, Host and headers given (fetch would normalise them). */
function call(port: number, path: string, options: { method?: string; host?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { host: options.host ?? `127.0.0.1:${port}`, ...options.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

let base: string;
let root: string;
let out: string;
let survey: SurveyServer;
let alice: string;
let bob: string;
const json = { 'content-type': 'application/json' };

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'sbeval-survey-server-'));
  root = join(base, 'competition');
  copyExampleSources(root, { letters: ['I', 'L'] });
  for (const stage of ['extract', 'convert']) {
    const r = await runSbeval([stage, root]);
    expect(r.exitCode, r.stderr).toBe(0);
  }
  const built = await runSbeval(['survey', 'build', root, '--sample', '6']);
  expect(built.exitCode, built.stderr).toBe(0);
  out = join(root, 'result', 'survey');
  const invited = await runSbeval(['survey', 'invite', root, '2']);
  expect(invited.exitCode, invited.stderr).toBe(0);
  const links = invited.stdout
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));
  expect(links.map((l) => l[0])).toEqual(['rater-01', 'rater-02']);
  [alice, bob] = links.map((l) => /#invite=([A-Za-z0-9_-]{43})$/.exec(l[1]!)![1]!) as [string, string];
  // Only digests are kept.
  expect(readFileSync(join(out, 'invites.json'), 'utf8')).not.toContain(alice);
  survey = await startSurveyServer({ out });
}, 240_000);

afterAll(async () => {
  await survey?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

const names = () => {
  const s = JSON.parse(readFileSync(join(out, 'survey.json'), 'utf8'));
  return [...TEAMS, ...s.items.map((i: { name: string }) => i.name), ...s.items.map((i: { level: string }) => i.level)];
};

describe('survey server: raters by invitation', () => {
  it('refuses every API request without a valid invitation, and writes only as the invited rater', async () => {
    const port = survey.port;
    for (const headers of [
      {} as Record<string, string>,
      { 'x-survey-token': 'guess' },
      { 'x-survey-token': alice.slice(0, -1) + (alice.endsWith('A') ? 'B' : 'A') },
    ]) {
      expect((await call(port, '/api/survey', { headers })).status).toBe(401);
      expect((await call(port, '/api/me', { headers })).status).toBe(401);
      expect((await call(port, '/api/me/item-1', { method: 'PUT', headers: { ...headers, ...json }, body: '{"values":{"looks-like":3}}' })).status).toBe(401);
    }
    // The old route that took any rater id from the URL does not exist.
    expect((await call(port, '/api/rater/rater-01/item-1', { method: 'PUT', headers: json, body: '{"values":{"looks-like":3}}' })).status).not.toBe(200);
    const put = await call(port, '/api/me/item-1', {
      method: 'PUT',
      headers: { 'x-survey-token': bob, ...json },
      body: '{"values":{"looks-like":4},"comment":"nice"}',
    });
    expect(put.status, put.body).toBe(200);
    const saved = JSON.parse(readFileSync(join(out, 'answers', 'rater-02', 'item-1.json'), 'utf8'));
    expect(saved).toMatchObject({ values: { 'looks-like': 4 }, comment: 'nice' });
    const me = JSON.parse((await call(port, '/api/me', { headers: { 'x-survey-token': alice } })).body);
    expect(me).toMatchObject({ rater: 'rater-01', answers: {} });
    // An invitation created while the survey is served is accepted at once.
    const [carol] = await createInvites(out, 1);
    expect((await call(port, '/api/me', { headers: { 'x-survey-token': carol!.token } })).status).toBe(200);
  });

  it('sends a rater nothing that names a team, a level or a file of the competition', async () => {
    const port = survey.port;
    const replies = [
      await call(port, '/api/survey', { headers: { 'x-survey-token': alice } }),
      await call(port, '/api/me/item-2', { method: 'PUT', headers: { 'x-survey-token': alice, ...json }, body: '{"values":{"looks-like":2}}' }),
      await call(port, '/api/me', { headers: { 'x-survey-token': alice } }),
      await call(port, '/api/me/item-99', { method: 'PUT', headers: { 'x-survey-token': alice, ...json }, body: '{"values":{"looks-like":2}}' }),
    ];
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 400]);
    for (const r of replies) for (const name of names()) expect(r.body, name).not.toContain(name);
    expect(JSON.parse(replies[2]!.body).answers['item-2']).toEqual({ values: { 'looks-like': 2 } });
  });

  it("serves the pictures to invited raters only: they show the competition's levels", async () => {
    const port = survey.port;
    const pictures = readdirSync(join(out, 'assets')).filter((f) => f.endsWith('.png'));
    expect(pictures.length).toBeGreaterThanOrEqual(6);
    for (const picture of pictures) {
      for (const headers of [{} as Record<string, string>, { 'x-survey-token': 'guess' }])
        expect((await call(port, `/assets/${picture}`, { headers })).status, picture).toBe(401);
      const invited = await call(port, `/assets/${picture}`, { headers: { 'x-survey-token': bob } });
      expect(invited.status, picture).toBe(200);
      expect(invited.headers['content-type']).toBe('image/png');
    }
  });

  it("answers a rater with a generic line when a level file is gone, the detail going to the organizer's log", async () => {
    const s = JSON.parse(readFileSync(join(out, 'survey.json'), 'utf8'));
    const item = s.items.find((i: { id: string }) => i.id === 'item-4');
    const level = join(root, item.level);
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    renameSync(level, `${level}.gone`);
    try {
      const started = await call(survey.port, '/api/replay/item-4', { method: 'POST', headers: { 'x-survey-token': alice, ...json }, body: '{}' });
      expect(started.status, started.body).toBe(200);
      const meta = await call(survey.port, `/${JSON.parse(started.body).url}api/trial/main/meta`);
      expect(meta.status).toBe(500);
      const { error } = JSON.parse(meta.body);
      expect(error).toMatch(/^the survey could not do this \(reference [0-9a-f]{8}\); the organizer has the detail$/);
      for (const name of [...names(), 'ENOENT', root]) expect(meta.body, name).not.toContain(name);
      const reference = /reference ([0-9a-f]{8})/.exec(error)![1]!;
      expect(written.join('')).toMatch(new RegExp(`survey: GET \\S+ \\[${reference}\\]: ENOENT.*${item.name}\\.xml`));
    } finally {
      process.stderr.write = write;
      renameSync(`${level}.gone`, level);
    }
  }, 60_000);

  it('forbids framing by other pages on every response, the replay viewer framed only by the survey', async () => {
    const port = survey.port;
    const replies = [
      await call(port, '/'),
      await call(port, '/static/survey.js'),
      await call(port, '/assets/item-1-start.png', { headers: { 'x-survey-token': alice } }),
      await call(port, '/api/survey'),
      await call(port, '/nothing'),
    ];
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 401, 404]);
    for (const r of replies) {
      expect(r.headers['content-security-policy']).toBe("frame-ancestors 'none'");
      expect(r.headers['x-frame-options']).toBe('DENY');
    }
  });

  it('changes nothing on a simple request: PUT and POST need JSON and the token header; no preflight is granted', async () => {
    const port = survey.port;
    const plain = { 'x-survey-token': alice, 'content-type': 'text/plain' };
    expect((await call(port, '/api/me/item-3', { method: 'PUT', headers: plain, body: '{"values":{"looks-like":1}}' })).status).toBe(415);
    expect((await call(port, '/api/replay/item-3', { method: 'POST', headers: plain, body: '{}' })).status).toBe(415);
    expect((await call(port, '/api/replay/item-3', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' })).status).toBe(401);
    const preflight = await call(port, '/api/me/item-3', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'x-survey-token,content-type' },
    });
    expect(preflight.status).toBe(405);
    expect(Object.keys(preflight.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    expect(existsSync(join(out, 'answers', 'rater-01', 'item-3.json'))).toBe(false);
  });

  it('serves replays through the same server and port, under an unguessable path, titled by item only', async () => {
    const port = survey.port;
    const started = await call(port, '/api/replay/item-1', { method: 'POST', headers: { 'x-survey-token': alice, ...json }, body: '{}' });
    expect(started.status, started.body).toBe(200);
    const { url } = JSON.parse(started.body);
    expect(url).toMatch(/^replay\/[0-9a-f]{32}\/$/);
    const page = await call(port, `/${url}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('src="static/app.js"');
    expect(page.headers['content-security-policy']).toBe("frame-ancestors 'self'");
    const session = await call(port, `/${url}api/session`);
    expect(JSON.parse(session.body)).toMatchObject({ mode: 'trial', title: expect.stringMatching(/^item-1 \(letter [A-Z]\)$/) });
    const meta = await call(port, `/${url}api/trial/main/meta`);
    expect(meta.status, meta.body.slice(0, 200)).toBe(200);
    for (const name of names()) expect(meta.body, name).not.toContain(name);
    expect((await call(port, `/replay/${randomBytes(16).toString('hex')}/api/session`)).status).toBe(404);
  }, 120_000);

  it("accepts the public URL's Host behind a proxy, and no other", async () => {
    const proxied = await startSurveyServer({ out, publicUrl: 'https://survey.example.org/' });
    try {
      expect((await call(proxied.port, '/api/me', { host: 'survey.example.org', headers: { 'x-survey-token': alice } })).status).toBe(200);
      expect((await call(proxied.port, '/api/me', { host: 'evil.example', headers: { 'x-survey-token': alice } })).status).toBe(403);
      expect(proxied.url).toBe('https://survey.example.org/');
    } finally {
      await proxied.close();
    }
    await expect(startSurveyServer({ out, host: '0.0.0.0' })).rejects.toThrow(/listens on every interface/);
  });
});

/**
 * A rater on another machine: `sbeval survey serve --host <address>` as the organizer types it, and a
 * client in another network namespace joined by a veth pair (as test/bridge/listen.test.ts does).
 * Where namespaces cannot be made (no CAP_NET_ADMIN), the client uses this machine's own non-loopback
 * address instead; the variant that ran is printed.
 */
describe('survey server: a rater on another machine', () => {
  // The server first, then the namespace (whose cleanup is best effort itself).
  const cleanups: Array<() => void> = [];
  afterAll(() =>
    cleanups
      .splice(0)
      .reverse()
      .forEach((cleanup) => cleanup()),
  );

  it('reaches the survey through a non-loopback address with an invite link, and without one is refused', async () => {
    const side = otherSide(232);
    cleanups.push(side.cleanup);
    if (side.variant === 'loopback') throw new Error('neither a network namespace nor a non-loopback address: a remote rater cannot be tested here');
    const { variant, prefix } = side;
    const serveIp = side.hostIp;
    console.log(`remote rater test variant: ${variant} (survey on ${serveIp})`);
    const serve = spawnSbeval(['survey', 'serve', root, '--host', serveIp, '--port', '0']);
    cleanups.push(() => serve.kill('SIGKILL'));
    const url = await new Promise<string>((resolve, reject) => {
      let text = '';
      serve.stdout!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        const m = /sbeval survey: (http:\/\/\S+\/)/.exec(text);
        if (m) resolve(m[1]!);
      });
      void serve.then((r) => reject(new Error(`survey serve exited ${r.exitCode}: ${String(r.stderr)}`)));
    });
    expect(url).toMatch(new RegExp(`^http://${serveIp.replace(/\./g, '\\.')}:\\d+/$`));
    // The rater's client, from the other side: the page, then the API with and without the invitation.
    const client = `const [url, token] = process.argv.slice(1); const get = async (p, h) => (await fetch(url + p, { headers: h })).status;
      console.log(JSON.stringify([await get(''), await get('api/me', { 'x-survey-token': token }), await get('api/me'), await get('api/survey', { 'x-survey-token': 'nope' })]));`;
    const [file, ...args] = [...prefix, process.execPath, '-e', client, url, alice];
    const result = await execa(file!, args, { reject: false });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([200, 200, 401, 401]);
    serve.kill('SIGTERM');
    expect((await serve).exitCode).toBe(0);
  }, 120_000);
});
