import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSbeval, spawnSbeval, until } from '../helpers/cli.js';
import { copyOf, ok, scoredExample, type Workspace, workspace } from './helpers/result-folder.js';

/**
 * A rater's save landing while `sbeval score` runs, through the commands a user types: the example
 * scored, a survey built, one rater's answer saved over HTTP by `survey serve`. Then `score` runs with
 * a preload that writes a second save (looks-like 1 → 5) right after its N-th read of the answers, for
 * every N the score reads them: wherever the save lands, the score either stops naming the file, or
 * what it writes holds together — when `check` then says result/ describes the folder, the report shows
 * the rating the file holds.
 */
let ws: Workspace;
let prepared: string;
let hook: string;

/** The save in the gap: after the HOOK_NTH-th read of a file under result/survey/answers/, the rating changes. */
const PRELOAD = `const fs = require('node:fs');
const { syncBuiltinESMExports } = require('node:module');
const read = fs.readFileSync;
const nth = Number(process.env.HOOK_NTH);
let n = 0;
fs.readFileSync = function (path, ...rest) {
  const out = read.call(this, path, ...rest);
  if (typeof path === 'string' && /result[\\\\/]survey[\\\\/]answers[\\\\/]/.test(path) && ++n === nth) {
    fs.writeFileSync(path, read.call(this, path, 'utf8').replace(/"looks-like":\\s*1\\b/, '"looks-like": 5'));
    process.stderr.write('saved in the gap\\n');
  }
  return out;
};
syncBuiltinESMExports();
`;

function put(port: number, token: string, item: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { host: `127.0.0.1:${port}`, 'x-survey-token': token, 'content-type': 'application/json' };
    const req = request({ host: '127.0.0.1', port, path: `/api/me/${item}`, method: 'PUT', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** The report's survey:looks-like mean for `team` ('–' when none). */
function reportedRating(root: string, team: string): string | undefined {
  const lines = readFileSync(join(root, 'result', 'report.md'), 'utf8').split('\n');
  const header = lines.find((l) => l.includes('| survey:looks-like |'));
  if (!header) return undefined;
  const column = header.split('|').findIndex((c) => c.trim() === 'survey:looks-like');
  const row = lines.slice(lines.indexOf(header)).find((l) => l.split('|')[1]?.trim() === team);
  return row?.split('|')[column]?.trim();
}

/** looks-like as the rater's answers files hold it now. */
function savedRating(root: string): number {
  const answers = join(root, 'result', 'survey', 'answers');
  const texts = readdirSync(answers, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'));
  return Number(/"looks-like":\s*(\d)/.exec(texts.join('\n'))?.[1]);
}

beforeAll(async () => {
  ws = workspace('sbeval-score-answers-');
  prepared = await scoredExample(ws);
  await ok(['survey', 'build', prepared]);
  const invited = await runSbeval(['survey', 'invite', prepared, '1']);
  const token = /#invite=(\S+)/.exec(invited.stdout)?.[1] as string;
  const serve = spawnSbeval(['survey', 'serve', prepared, '--port', '0']);
  let port = 0;
  serve.stdout?.on('data', (chunk: Buffer) => {
    port ||= Number(/http:\/\/127\.0\.0\.1:(\d+)\//.exec(chunk.toString())?.[1] ?? 0);
  });
  await until(() => port > 0, 'the survey server listening', serve);
  expect(await put(port, token, 'item-01', { values: { 'looks-like': 1, 'holds-up': 2, creative: 3 } })).toBe(200);
  serve.kill('SIGINT');
  await serve;
  hook = join(ws.dir, 'save-in-gap.cjs');
  writeFileSync(hook, PRELOAD);
}, 300_000);
afterAll(() => {
  ws.restore();
  rmSync(ws.dir, { recursive: true, force: true });
});

describe('a survey save landing while score reads the answers', () => {
  it('stops the score, or leaves a report that shows what check vouches for', async () => {
    const team = (JSON.parse(readFileSync(join(prepared, 'result', 'survey', 'survey.json'), 'utf8')).items[0] as { team: string }).team;
    let landed = 0;
    for (let nth = 1; nth <= 8; nth += 1) {
      const root = copyOf(prepared, join(ws.dir, `gap-${nth}`));
      const score = await runSbeval(['score', root], { env: { NODE_OPTIONS: `--require "${hook}"`, HOOK_NTH: String(nth) } });
      if (!score.stderr.includes('saved in the gap')) break;
      landed += 1;
      expect(savedRating(root)).toBe(5);
      if (score.exitCode !== 0) {
        expect(score.stderr).toMatch(/the folder changed while it was scored: result\/survey\/answers\//);
        continue;
      }
      const check = await runSbeval(['check', root]);
      if (check.exitCode === 0) expect(reportedRating(root, team), `save after read ${nth}`).toBe('5.00');
      else expect(check.exitCode, check.stdout).toBe(1);
    }
    expect(landed).toBeGreaterThan(0);
  }, 600_000);
});
