import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvFields } from '../../orchestrator/layout/trial-listing.js';
import { parseStabilityJson } from '../../scoring/formats/stability.js';
import { launchChromium, openPage } from '../helpers/browser.js';
import { sbevalInProcess } from '../orchestrator/helpers/in-process-cli.js';
import { scoredExample, trialRows, type Workspace, workspace } from '../orchestrator/helpers/result-folder.js';

/**
 * `sbeval publish` after a scored run of the example, opened from file:// in real Chromium, in one
 * page session: no request leaves the site's folder (every request counted), the ranking shown is
 * result/prompt_scores_ranks.csv, and every trial's page shows the stability file's verdict, the
 * failure reason for a trial without a level, and a recomputation in the page that agrees (no mark).
 */

interface ShownTrial {
  recorded: { score: number; startingObjects?: number; movingObjects?: number } | null;
  reason: string;
  page: { score: number; startingObjects: number; movingObjects: number } | null;
  agree: boolean;
  shownRecorded: string;
  mismatchVisible: boolean;
}

let ws: Workspace;
let scored: string;
let site: string;
let browser: Browser;
let page: Page;
let publishOut = '';
const requests: string[] = [];

beforeAll(async () => {
  ws = workspace('sbeval-publish-');
  scored = await scoredExample(ws);
  site = join(ws.dir, 'site');
  const result = await sbevalInProcess(['publish', scored, '--out', site]);
  expect(result.code, result.stderr).toBe(0);
  publishOut = result.stdout;
  browser = await launchChromium();
  page = await openPage(browser);
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${pathToFileURL(`${site}/`).href}index.html`);
}, 900_000);

afterAll(async () => {
  await browser?.close();
  ws?.restore();
});

/** The recorded verdict of every trial with one: `<team>/stability/<C>.json`, by the trial number of its tag. */
function stabilityEntries(): Map<string, { score: number; startingObjects?: number; movingObjects?: number }> {
  const out = new Map();
  for (const team of readdirSync(scored).filter((t) => !['logs', 'result'].includes(t) && !t.includes('.')))
    for (const file of readdirSync(join(scored, team, 'stability'))) {
      const letter = file.replace(/\.json$/, '');
      for (const r of parseStabilityJson(readFileSync(join(scored, team, 'stability', file), 'utf8')).raws) {
        const trial = r.tag
          .split('_')
          .at(-1)!
          .replace(/\.xml$/, '');
        out.set(`${team} ${letter} ${trial}`, { score: r.score, startingObjects: r.startingObjects, movingObjects: r.movingObjects });
      }
    }
  return out;
}

describe('sbeval publish, opened from file:// in Chromium', () => {
  it('states its size, and its ranking is result/prompt_scores_ranks.csv', async () => {
    expect(publishOut).toMatch(/45 trials, \d+ files, [\d.]+ KiB/);
    const csv = readFileSync(join(scored, 'result', 'prompt_scores_ranks.csv'), 'utf8')
      .trim()
      .split('\n')
      .map(csvFields);
    const shown = await page.$$eval('#ranking tr', (rows) => rows.map((r) => Array.from(r.children, (c) => c.textContent ?? '')));
    // The ranking's own columns, then the interval score_intervals.csv gives each team.
    expect(shown.map((r) => r.slice(0, csv[0]!.length))).toEqual(csv);
    expect(shown[0]!.at(-1)).toBe('normalized score interval');
    for (const row of shown.slice(1)) expect(row.at(-1)).toMatch(/^-?[\d.]+ – -?[\d.]+$/);
    // Every trial of trials.csv has its thumbnail or failure mark, linking to its page.
    expect(await page.$$eval('#glance a[href^="trial.html#"]', (a) => a.length)).toBe(trialRows(scored).length);
    expect(await page.$$eval('#glance img', (imgs) => imgs.every((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0))).toBe(
      true,
    );
  });

  it("every trial's page shows the stability file's verdict (or the failure reason) and its recomputation agrees", async () => {
    const rows = trialRows(scored);
    const links = await page.$$eval('#glance a', (as) => as.map((a) => (a as HTMLAnchorElement).href));
    await page.goto(links[0]!);
    await page.waitForFunction(() => document.body.dataset.ready === 'true');
    const shown = await page.evaluate(
      async (all) => {
        const out: ShownTrial[] = [];
        const show = (
          window as unknown as {
            sbevalTrial: { show(team: string, letter: string, trial: string): Promise<Omit<ShownTrial, 'shownRecorded' | 'mismatchVisible'>> };
          }
        ).sbevalTrial.show;
        for (const [team, letter, trial] of all) {
          const v = await show(team!, letter!, trial!);
          out.push({
            ...v,
            shownRecorded: document.getElementById('recorded')!.textContent ?? '',
            mismatchVisible: !document.getElementById('mismatch')!.hidden,
          });
        }
        return out;
      },
      rows.map((r) => [r[0], r[2], r[3]]),
    );
    const recorded = stabilityEntries();
    // The reasons the official stages logged for the trials they refused (`<name>.txt - Failed - <reason>`).
    const logged = new Map<string, string>();
    for (const log of readdirSync(join(scored, 'logs')))
      for (const m of readFileSync(join(scored, 'logs', log), 'utf8').matchAll(/trial: (\S+)\.txt - Failed - (.+)$/gm)) logged.set(m[1]!, m[2]!);
    let failed = 0;
    rows.forEach((r, i) => {
      const [team, , letter, trial, , reason] = r;
      const v = shown[i]!;
      const key = `${team} ${letter} ${trial}`;
      const entry = recorded.get(key);
      expect(v.recorded, key).toEqual(entry ?? null);
      expect(v.mismatchVisible, key).toBe(false);
      expect(v.agree, key).toBe(true);
      if (!entry) {
        failed++;
        expect(v.reason, key).toBe(reason);
        expect(v.reason, key).toBe(logged.get(`${team}_${letter}_${trial}`));
        expect(v.page, key).toBeNull();
        return;
      }
      expect(v.shownRecorded, key).toBe(`stability ${entry.score} — ${entry.movingObjects} of ${entry.startingObjects} objects moving`);
      expect(v.page, key).toEqual({ score: expect.any(Number), startingObjects: entry.startingObjects, movingObjects: entry.movingObjects });
      expect(Math.fround(v.page!.score), key).toBe(Math.fround(entry.score));
    });
    // The example holds the 8 trials the official stages refused, and collapsing levels beside standing ones.
    expect(failed).toBe(8);
    expect(new Set([...recorded.values()].map((e) => e.score)).size).toBeGreaterThan(1);
  });

  it("marks a trial whose recorded verdict the page's recomputation contradicts", async () => {
    const [team, , letter, trial] = trialRows(scored).find((r) => r[4] === 'image')!;
    const xml = readFileSync(join(scored, team!, 'levels', letter!, `${team}_${letter}_${trial}.xml`), 'utf8');
    const shown = await page.evaluate(
      async ({ team, letter, trial, xml }) => {
        const w = window as unknown as {
          sbevalSiteData(group: unknown): void;
          sbevalTrial: { show(team: string, letter: string, trial: string): Promise<{ agree: boolean }> };
        };
        // What a data script altered after publishing would hold: a score no simulation of the level gives.
        w.sbevalSiteData({ team, letter, trials: [{ trial, recorded: { score: 0.125, startingObjects: 99, movingObjects: 98 }, reason: '', xml }] });
        const v = await w.sbevalTrial.show(team, letter, trial);
        return { agree: v.agree, mark: !document.getElementById('mismatch')!.hidden };
      },
      { team: team!, letter: letter!, trial: trial!, xml },
    );
    expect(shown).toEqual({ agree: false, mark: true });
  });

  it('asked for nothing outside its folder', () => {
    const folder = pathToFileURL(`${site}/`).href;
    expect(requests.filter((r) => r.startsWith(`${folder}data/`)).length).toBeGreaterThan(1);
    expect(requests.filter((r) => !r.startsWith(folder) && !r.startsWith('data:'))).toEqual([]);
  });

  it('works from a plain static host the same way', async () => {
    // Any static file server: the site's files by path, nothing else.
    const types: Record<string, string> = { html: 'text/html', js: 'text/javascript', css: 'text/css' };
    const server = createServer((req, res) => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      try {
        const body = readFileSync(join(site, path.includes('..') ? '-' : path));
        res.writeHead(200, { 'content-type': types[path.split('.').at(-1)!] ?? 'application/octet-stream' });
        res.end(body);
      } catch {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const hosted = await openPage(browser);
    const seen: string[] = [];
    hosted.on('request', (r) => seen.push(r.url()));
    try {
      const [team, , letter, trial] = trialRows(scored).find((r) => r[4] === 'image')!;
      await hosted.goto(`${origin}trial.html#${new URLSearchParams({ team: team!, letter: letter!, trial: trial! })}`);
      await hosted.waitForFunction(() => document.body.dataset.shown !== undefined);
      expect(await hosted.evaluate(() => document.body.dataset.agree)).toBe('true');
      expect(await hosted.textContent('#recorded')).toMatch(/^stability /);
      expect(seen.filter((r) => !r.startsWith(origin) && !r.startsWith('data:'))).toEqual([]);
    } finally {
      await hosted.close();
      server.close();
    }
  });
});
