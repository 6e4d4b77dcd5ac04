import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_COMMENT } from '../../../llm/survey/answers.js';
import { createInvites } from '../../../llm/survey/invites.js';
import { loadMetrics } from '../../../llm/survey/metrics.js';
import { type SurveyServer, startSurveyServer } from '../../../llm/survey/server.js';
import { runSbeval } from '../../helpers/cli.js';

/**
 * A rater who fills the survey's answers to the limit, over a real socket: 700 items, each with every
 * metric and the longest comment the survey takes, of characters JSON writes as six-character `\u` sequences (30,000
 * bytes each, 21 MB in all, past the 16 MiB a single answers file was read up to). Every answer comes
 * back from `GET /api/me` and is counted by `survey collect`; what passes the limit after is refused
 * at save time with a 413 that says why, and nothing saved before is touched.
 */
const ITEMS = 700;
const PNG_NAME = (i: number, side: string) => `assets/item-${String(i).padStart(3, '0')}-${side}.png`;

let base: string;
let out: string;
let server: SurveyServer;
let token: string;
const metrics = loadMetrics(undefined).metrics;

function call(path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, path, method: options.method ?? 'GET', headers: { host: `127.0.0.1:${server.port}`, ...options.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const put = (item: string, answer: unknown) =>
  call(`/api/me/${item}`, { method: 'PUT', headers: { 'x-survey-token': token, 'content-type': 'application/json' }, body: JSON.stringify(answer) });
const longest = (k: number) => String.fromCharCode(1 + (k % 8)).repeat(MAX_COMMENT);
const valuesFor = (k: number) => Object.fromEntries(metrics.map((m, j) => [m.id, m.scale.min + ((k + j) % (m.scale.max - m.scale.min + 1))]));

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'sbeval-survey-limits-'));
  const root = join(base, 'competition');
  out = join(root, 'result', 'survey');
  mkdirSync(join(out, 'assets'), { recursive: true });
  mkdirSync(join(root, 'Team0', 'raw', 'I'), { recursive: true });
  writeFileSync(join(root, 'Team0', 'raw', 'I', 'Team0_I_1.txt'), 'no code');
  const items = Array.from({ length: ITEMS }, (_, k) => ({
    id: `item-${String(k + 1).padStart(3, '0')}`,
    team: `Team${k % 3}`,
    letter: 'I',
    trial: k + 1,
    name: `Team${k % 3}_I_${k + 1}`,
    start: PNG_NAME(k + 1, 'start'),
    final: null,
    grid: null,
    history: [],
    historyNote: null,
    level: `Team${k % 3}/levels/I/Team${k % 3}_I_${k + 1}.xml`,
    stability: null,
    similarity: null,
  }));
  writeFileSync(join(out, 'survey.json'), JSON.stringify({ version: 1, title: 't', instructions: '', seed: 1, root: '../..', metrics, items }));
  token = (await createInvites(out, 1))[0]!.token;
  server = await startSurveyServer({ out });
});

afterAll(async () => {
  await server?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

describe('survey answers at the limit', () => {
  it('keeps every one of 700 longest answers, and refuses what passes the limit with a 413', async () => {
    for (let k = 0; k < ITEMS; k += 8) {
      const batch = Array.from({ length: Math.min(8, ITEMS - k) }, (_, j) =>
        put(`item-${String(k + j + 1).padStart(3, '0')}`, { values: valuesFor(k + j), comment: longest(k + j) }),
      );
      for (const r of await Promise.all(batch)) expect(r.status, r.body.slice(0, 200)).toBe(200);
    }
    const dir = join(out, 'answers', 'rater-01');
    const bytes = readdirSync(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
    expect(bytes).toBeGreaterThan(16 * 1024 * 1024);

    const me = await call('/api/me', { headers: { 'x-survey-token': token } });
    expect(me.status, me.body.slice(0, 200)).toBe(200);
    const answers = JSON.parse(me.body).answers as Record<string, { values: Record<string, number>; comment: string }>;
    expect(Object.keys(answers)).toHaveLength(ITEMS);
    expect(answers['item-700']).toEqual({ values: valuesFor(699), comment: longest(699) });

    // Past the limit: refused before anything is written, with the reason; the answer saved stays.
    const over = await put('item-001', { values: valuesFor(7), comment: `${longest(0)}x` });
    expect(over.status).toBe(413);
    expect(JSON.parse(over.body).error).toMatch(/^a comment holds at most 5000 characters, this one has 5001: not saved$/);
    const after = JSON.parse((await call('/api/me', { headers: { 'x-survey-token': token } })).body).answers;
    expect(after['item-001']).toEqual({ values: valuesFor(0), comment: longest(0) });

    const collected = await runSbeval(['survey', 'collect', join(base, 'competition'), '--json']);
    expect(collected.exitCode, collected.stderr).toBe(0);
    const result = JSON.parse(collected.stdout);
    expect(result).toMatchObject({ raters: 1, ratings: ITEMS * metrics.length, comments: ITEMS, warnings: [], skipped: [] });
  }, 240_000);

  it('refuses to count 0 raters when answers are there but none can be read', async () => {
    const lost = join(base, 'lost');
    mkdirSync(join(lost, 'answers', 'rater-01'), { recursive: true });
    writeFileSync(join(lost, 'survey.json'), JSON.stringify({ version: 1, title: 't', instructions: '', seed: 1, root: '.', metrics, items: [] }));
    writeFileSync(join(lost, 'answers', 'rater-01', 'item-001.json'), '{"values": {');
    const collected = await runSbeval(['survey', 'collect', join(base, 'competition'), '--out', lost]);
    expect(collected.exitCode).not.toBe(0);
    expect(collected.stderr).toMatch(/no rating could be read from .*answers: 1 entry skipped, the first: answers\/rater-01\/item-001\.json: not JSON/);
    expect(collected.stdout).not.toContain('0 rater(s)');
  });
});
