import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInvites } from '../../../llm/survey/invites.js';
import { loadMetrics } from '../../../llm/survey/metrics.js';
import { type SurveyServer, startSurveyServer } from '../../../llm/survey/server.js';
import { runSbeval } from '../../helpers/cli.js';

/**
 * Answers saved in the one-file-per-rater layout (`answers/<rater>.json`) are a rater's answers still:
 * `survey collect` counts them, the server shows them to their rater, and an item's own file (newer)
 * wins over the old file's entry; a save moves the answer into its own file. An old file that cannot
 * be read is refused with its name and what to do, never skipped.
 */
const metrics = loadMetrics(undefined).metrics;
const ITEMS = 3;
const level = (k: number) => `Team0/I/Team0_I_${k}`;
const values = (n: number) => Object.fromEntries(metrics.map((m) => [m.id, Math.min(m.scale.max, m.scale.min + n)]));

let base: string;
let root: string;
let out: string;
let server: SurveyServer;
let tokens: string[];

function call(path: string, token: string, options: { method?: string; body?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path,
        method: options.method ?? 'GET',
        headers: { host: `127.0.0.1:${server.port}`, 'x-survey-token': token, 'content-type': 'application/json' },
      },
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

function writeJson(path: string, data: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `${JSON.stringify(data, null, 2)}\n`);
}

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'sbeval-survey-old-'));
  root = join(base, 'competition');
  out = join(root, 'result', 'survey');
  mkdirSync(join(out, 'assets'), { recursive: true });
  mkdirSync(join(root, 'Team0', 'raw', 'I'), { recursive: true });
  writeFileSync(join(root, 'Team0', 'raw', 'I', 'Team0_I_1.txt'), 'no code');
  const items = Array.from({ length: ITEMS }, (_, i) => ({
    id: `item-0${i + 1}`,
    team: 'Team0',
    letter: 'I',
    trial: i + 1,
    name: `Team0_I_${i + 1}`,
    start: `assets/item-0${i + 1}-start.png`,
    final: null,
    grid: null,
    history: [],
    historyNote: null,
    level: `Team0/levels/I/Team0_I_${i + 1}.xml`,
    stability: null,
    similarity: null,
  }));
  writeFileSync(join(out, 'survey.json'), JSON.stringify({ version: 1, title: 't', instructions: '', seed: 1, root: '../..', metrics, items }));
  tokens = (await createInvites(out, 2)).map((i) => i.token);
  // rater-01 rated item-01 and item-02 in the old layout; later their item-02 was saved in its own file.
  writeJson(join(out, 'answers', 'rater-01.json'), {
    rater: 'rater-01',
    updated: '2026-01-01T00:00:00.000Z',
    answers: {
      'item-01': { values: values(0), comment: 'old one', at: '2026-01-01T00:00:00.000Z', level: level(1) },
      'item-02': { values: values(0), at: '2026-01-01T00:00:00.000Z', level: level(2) },
    },
  });
  writeJson(join(out, 'answers', 'rater-01', 'item-02.json'), { values: values(1), at: '2026-02-01T00:00:00.000Z', level: level(2) });
  // rater-02 only in the old layout.
  writeJson(join(out, 'answers', 'rater-02.json'), {
    rater: 'rater-02',
    updated: '2026-01-01T00:00:00.000Z',
    answers: { 'item-03': { values: values(2), at: '2026-01-01T00:00:00.000Z', level: level(3) } },
  });
  server = await startSurveyServer({ out });
});

afterAll(async () => {
  await server?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

describe('answers of the one-file-per-rater layout', () => {
  it('are counted by collect, an item file winning over the old entry', async () => {
    const collected = await runSbeval(['survey', 'collect', root, '--json']);
    expect(collected.exitCode, collected.stderr).toBe(0);
    const result = JSON.parse(collected.stdout);
    expect(result).toMatchObject({ raters: 2, ratings: 3 * metrics.length, comments: 1, warnings: [], skipped: [] });
  });

  it('are shown to their rater, and a save moves one into its own file', async () => {
    const me = await call('/api/me', tokens[0]!);
    expect(me.status, me.body).toBe(200);
    const answers = JSON.parse(me.body).answers as Record<string, { values: Record<string, number>; comment?: string }>;
    expect(answers['item-01']).toEqual({ values: values(0), comment: 'old one' });
    expect(answers['item-02']).toEqual({ values: values(1) });

    const metric = metrics[0]!;
    const saved = await call('/api/me/item-01', tokens[0]!, { method: 'PUT', body: JSON.stringify({ values: { [metric.id]: metric.scale.max } }) });
    expect(saved.status, saved.body).toBe(200);
    const own = JSON.parse(readFileSync(join(out, 'answers', 'rater-01', 'item-01.json'), 'utf8'));
    expect(own).toMatchObject({ values: { ...values(0), [metric.id]: metric.scale.max }, comment: 'old one', level: level(1) });
  });

  it('that cannot be read are refused with the file and what to do, not skipped', async () => {
    const broken = join(base, 'broken');
    mkdirSync(join(broken, 'answers'), { recursive: true });
    writeFileSync(join(broken, 'survey.json'), readFileSync(join(out, 'survey.json')));
    writeFileSync(join(broken, 'answers', 'rater-03.json'), '{"rater": "rater-03", "answers": {');
    const collected = await runSbeval(['survey', 'collect', root, '--out', broken]);
    expect(collected.exitCode).not.toBe(0);
    expect(collected.stderr).toMatch(/answers\/rater-03\.json: rater rater-03's answers in the one-file-per-rater layout are not JSON/);
    expect(collected.stderr).toMatch(/move its answers to answers\/rater-03\/<item>\.json/);
    expect(collected.stdout).not.toContain('rater(s)');
    expect(existsSync(join(broken, 'answers', 'rater-03.json'))).toBe(true);
  });
});
