import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage } from '../../helpers/browser.js';
import { copyExampleSources, PROJECT_ROOT, runSbeval } from '../../helpers/cli.js';
import { sbevalArgv } from '../../helpers/sbeval-bin.js';

/**
 * The survey end to end: `sbeval survey build` on the example competition, `sbeval survey invite`,
 * `sbeval survey serve --port 0` as a real child process, a rater in headless Chromium who opens the
 * invite link, rates 10 of 20 items (with the rating controls in view without scrolling at 1280 × 800),
 * comments on one, reloads, resumes at item 11 with every answer kept, and finishes; then `sbeval survey
 * collect` on ratings constructed from Krippendorff's published example, whose alpha is known.
 */
const METRICS = ['looks-like', 'holds-up', 'creative'];

let base: string;
let root: string;
let browser: Browser;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'sbeval-survey-'));
  root = join(base, 'competition');
  copyExampleSources(root);
  for (const args of [
    ['extract', root],
    ['convert', root],
    ['simulate', root, '--char', 'I,L'],
  ]) {
    const r = await runSbeval(args);
    expect(r.exitCode, r.stderr).toBe(0);
  }
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

async function serve(args: string[]): Promise<{ child: ResultPromise; url: string }> {
  const child = execa(process.execPath, sbevalArgv(['survey', 'serve', ...args, '--port', '0']), {
    cwd: PROJECT_ROOT,
    reject: false,
    env: { FORCE_COLOR: '0' },
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no URL: ${out}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /sbeval survey: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void child.then((r) => reject(new Error(`survey serve exited ${r.exitCode}: ${String(r.stderr)}`)));
  });
  return { child, url };
}

/** The value the test rater gives an item on a metric (1–5, varied). */
function valueFor(itemId: string, metric: number): number {
  const n = Number(itemId.replace(/\D/g, ''));
  return 1 + ((n * 3 + metric * 2) % 5);
}

async function current(page: Page): Promise<{ item: string; index: number; answered: number; total: number }> {
  return page.evaluate(() => ({
    item: document.getElementById('item')!.dataset.item ?? '',
    index: Number(document.getElementById('item')!.dataset.index),
    answered: Number(document.getElementById('progress')!.dataset.answered),
    total: Number(document.getElementById('progress')!.dataset.total),
  }));
}

async function rateCurrent(page: Page): Promise<string> {
  const { item, answered } = await current(page);
  for (const [m, metric] of METRICS.entries()) {
    await page.click(`input[data-metric="${metric}"][data-value="${valueFor(item, m)}"]`);
  }
  await page.waitForFunction(
    (want) => document.body.dataset.saving === 'false' && Number(document.getElementById('progress')!.dataset.answered) === want,
    answered + 1,
    { timeout: 30_000 },
  );
  return item;
}

let commentedItem = '';

/**
 * Every rating control of the current item and the Next button inside the 1280 × 800 window with the
 * page not scrolled, and each the topmost element at its centre. Measured once the layout settled (the
 * images loaded and two measurements an animation frame apart agree), whatever the fonts.
 */
async function expectControlsInView(page: Page): Promise<void> {
  await page.waitForFunction(() => Array.from(document.images).every((img) => img.hidden || img.complete));
  await page.waitForFunction(
    () =>
      new Promise<boolean>((resolve) => {
        const measure = () => JSON.stringify(Array.from(document.querySelectorAll('#ratings input, #next')).map((e) => e.getBoundingClientRect()));
        const before = measure();
        requestAnimationFrame(() => requestAnimationFrame(() => resolve(measure() === before)));
      }),
  );
  const boxes = await page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>('#ratings input[type=radio], #next')).map((e) => {
      const r = e.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return {
        id: e.dataset.metric ? `${e.dataset.metric}=${e.dataset.value}` : e.id,
        top: r.top,
        bottom: r.bottom,
        left: r.left,
        right: r.right,
        onTop: hit === e || (hit !== null && e.parentElement!.contains(hit)),
      };
    }),
  );
  expect(await page.evaluate(() => [document.scrollingElement!.scrollTop, innerWidth, innerHeight])).toEqual([0, 1280, 800]);
  expect(boxes.length).toBe(METRICS.length * 5 + 1);
  for (const b of boxes) {
    expect(b.top >= 0 && b.left >= 0 && b.bottom <= 800 && b.right <= 1280, `${b.id} at ${JSON.stringify(b)}`).toBe(true);
    expect(b.onTop, b.id).toBe(true);
  }
}

describe('sbeval survey', () => {
  it('a rater completes a 20-item survey in Chromium, reloads midway and resumes with nothing lost', async () => {
    const built = await runSbeval(['survey', 'build', root, '--sample', '20', '--prompts', join(PROJECT_ROOT, 'examples', 'prompts')]);
    expect(built.exitCode, built.stderr).toBe(0);
    expect(built.stdout).toContain('20 of 37 levels');
    const survey = JSON.parse(readFileSync(join(root, 'result', 'survey', 'survey.json'), 'utf8'));
    expect(survey.items).toHaveLength(20);
    expect(survey.metrics.map((m: { id: string }) => m.id)).toEqual(METRICS);
    const withFinal = survey.items.filter((i: { final: string | null }) => i.final !== null);
    expect(withFinal.length).toBeGreaterThan(0);
    expect(withFinal.length).toBeLessThan(20);
    const first = survey.items[0];
    expect(first.history.map((h: { role: string }) => h.role)).toEqual(['user', 'assistant']);
    expect(first.history[0].content).toContain(first.letter);
    expect(first.history[1].content).toBe(readFileSync(join(root, first.team, 'raw', first.letter, `${first.name}.txt`), 'utf8'));

    const invited = await runSbeval(['survey', 'invite', root, '1']);
    expect(invited.exitCode, invited.stderr).toBe(0);
    const token = /#invite=(\S+)$/.exec(invited.stdout.trim())![1]!;
    const served = await serve([root]);
    const page = await openPage(browser, { viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      // Without the invitation: nothing but the note to open one's link.
      await page.goto(served.url);
      await page.waitForSelector('body[data-loaded]');
      expect(await page.isVisible('#invite-needed')).toBe(true);
      expect(await page.isHidden('#item')).toBe(true);
      await page.goto(`${served.url}#invite=${token}`);
      await page.reload();
      await page.waitForSelector('#item:not([hidden])');
      expect((await current(page)).total).toBe(20);
      expect(await page.evaluate(() => document.body.dataset.rater)).toBe('rater-01');
      // The token left the address bar.
      expect(page.url()).not.toContain(token);
      // Blind: nothing on the page names a team.
      const text = await page.textContent('body');
      for (const team of ['BlockSmith', 'GridThinkers', 'PromptPilots']) expect(text).not.toContain(team);
      await expectControlsInView(page);
      await page.fill('#comment', 'the left stroke leans');
      await page.dispatchEvent('#comment', 'change');
      const commented = (await current(page)).item;

      commentedItem = commented;
      const rated: string[] = [];
      for (let k = 0; k < 10; k += 1) {
        rated.push(await rateCurrent(page));
        await page.click('#next');
        await page.waitForFunction((i) => Number(document.getElementById('item')!.dataset.index) === i, k + 1);
      }
      // A replay of the current level in the viewer, started on demand.
      await page.click('#replay');
      const frame = page.frameLocator('#replay-frame');
      await frame.locator('body[data-loaded]').waitFor({ timeout: 60_000 });
      // The page's title names the item the replay is titled by.
      const replayed = (await current(page)).item;
      expect(await page.textContent('#item-title')).toMatch(new RegExp(`^Item 11 of 20 \\(${replayed}\\) `));
      expect(
        await page.evaluate(() =>
          Array.from(document.images)
            .filter((img) => !img.hidden)
            .every((img) => img.src.startsWith('blob:') && img.naturalWidth > 0),
        ),
      ).toBe(true);

      await page.reload();
      await page.waitForSelector('#item:not([hidden])');
      const resumed = await current(page);
      expect(resumed).toMatchObject({ index: 10, answered: 10, total: 20 });
      await page.click('#prev');
      await page.waitForFunction(() => Number(document.getElementById('item')!.dataset.index) === 9);
      const item10 = (await current(page)).item;
      expect(item10).toBe(rated[9]);
      for (const [m, metric] of METRICS.entries())
        expect(await page.isChecked(`input[data-metric="${metric}"][data-value="${valueFor(item10, m)}"]`)).toBe(true);
      await page.click('#next');
      for (let k = 10; k < 20; k += 1) {
        rated.push(await rateCurrent(page));
        await page.click('#next');
        if (k < 19) await page.waitForFunction((i) => Number(document.getElementById('item')!.dataset.index) === i, k + 1);
      }
      await page.waitForSelector('#done:not([hidden])');
      expect(new Set(rated).size).toBe(20);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      served.child.kill('SIGTERM');
      expect((await served.child).exitCode).toBe(0);
    }
    const raterDir = join(root, 'result', 'survey', 'answers', 'rater-01');
    expect(readdirSync(raterDir).filter((f) => !f.startsWith('.'))).toHaveLength(20);
    for (const file of readdirSync(raterDir)) {
      const answer = JSON.parse(readFileSync(join(raterDir, file), 'utf8')) as { values: Record<string, number> };
      const itemId = file.slice(0, -'.json'.length);
      expect(answer.values).toEqual(Object.fromEntries(METRICS.map((metric, m) => [metric, valueFor(itemId, m)])));
    }
    const collected = await runSbeval(['survey', 'collect', root]);
    expect(collected.exitCode, collected.stderr).toBe(0);
    expect(collected.stdout).toContain('1 rater(s), 60 ratings, 1 comment(s)');
    // Comments are exported, with the level they are about.
    const comments = readFileSync(join(root, 'result', 'survey', 'comments.csv'), 'utf8')
      .trim()
      .split('\n');
    const item = survey.items.find((i: { id: string }) => i.id === commentedItem)!;
    expect(comments).toEqual(['rater,item,team,letter,trial,comment', `rater-01,${item.id},${item.team},${item.letter},${item.trial},the left stroke leans`]);
  }, 300_000);

  it('collect gives the published alpha on ratings built from Krippendorff’s worked example, and per team × letter aggregates', async () => {
    const out = join(base, 'constructed');
    const built = await runSbeval(['survey', 'build', root, '--sample', '12', '--out', out, '--seed', '7']);
    expect(built.exitCode, built.stderr).toBe(0);
    const survey = JSON.parse(readFileSync(join(out, 'survey.json'), 'utf8'));
    const ids: string[] = survey.items.map((i: { id: string }) => i.id);
    expect(ids).toHaveLength(12);
    // Krippendorff (2011) §C: 4 observers × 12 units, null = not rated. Interval .849, ordinal .815.
    const N = null;
    const K2011 = [
      [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
      [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
      [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
      [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
    ];
    const answerFile = (rater: string, item: string, answer: unknown) => {
      mkdirSync(join(out, 'answers', rater), { recursive: true });
      writeFileSync(join(out, 'answers', rater, `${item}.json`), typeof answer === 'string' ? answer : JSON.stringify(answer));
    };
    K2011.forEach((row, r) => {
      row.forEach((value, u) => {
        if (value === null) return;
        // holds-up: everyone agrees (1 + unit mod 5); creative: everyone says 3 (no variation at all).
        answerFile(`rater${r + 1}`, ids[u]!, { values: { 'looks-like': value, 'holds-up': 1 + (u % 5), creative: 3 }, at: '2026-01-01T00:00:00.000Z' });
      });
    });
    // An answer given to another level under the same item id (a rebuilt survey) never counts.
    answerFile('rater5', ids[0]!, { values: { 'looks-like': 5 }, at: '', level: 'Other/I/Other_I_9' });
    // Files that are not a rater's answers: skipped, each named; everything else still counted.
    answerFile('rater1', 'item-99', '{"values": {');
    answerFile('rater2', 'item-98', { values: null, at: '' });
    // (A .json file beside the raters' folders is a rater's file of the one-file-per-rater layout, read
    // or refused by name: survey-old-answers.test.ts.)
    writeFileSync(join(out, 'answers', 'notes.txt'), 'not an answer');
    const plain = await runSbeval(['survey', 'collect', root, '--out', out]);
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stderr).toMatch(/warning: answers\/rater2\/item-98\.json: not an answer .*; skipped/);
    expect(plain.stderr).toMatch(/warning: answers\/rater1\/item-99\.json: not JSON .*; skipped/);
    expect(plain.stderr).toMatch(/warning: answers\/notes\.txt: not a rater's folder .*; skipped/);
    const collected = await runSbeval(['survey', 'collect', root, '--out', out, '--json']);
    expect(collected.exitCode, collected.stderr).toBe(0);
    const result = JSON.parse(collected.stdout);
    expect(result.skipped).toEqual([expect.stringMatching(/rater5 item-01: .*rebuilt/)]);
    expect(result.warnings).toHaveLength(3);
    const byMetric = Object.fromEntries(result.agreement.map((a: { metric: string }) => [a.metric, a]));
    expect(byMetric['looks-like'].interval.toFixed(3)).toBe('0.849');
    expect(byMetric['looks-like'].ordinal.toFixed(3)).toBe('0.815');
    expect(byMetric['looks-like'].units).toBe(11);
    expect(byMetric['holds-up'].interval).toBe(1);
    expect(byMetric.creative.interval).toBeNull();

    // Aggregates per team × letter × metric, computed here from the same constructed ratings.
    const rows = readFileSync(join(out, 'aggregates.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    const expected = new Map<string, number[]>();
    K2011.forEach((row) =>
      row.forEach((value, u) => {
        if (value === null) return;
        const item = survey.items[u];
        const key = `${item.team},${item.letter},looks-like`;
        expected.set(key, [...(expected.get(key) ?? []), value]);
      }),
    );
    for (const [key, values] of expected) {
      const row = rows.find((r) => `${r[0]},${r[1]},${r[2]}` === key);
      expect(row, key).toBeDefined();
      expect(Number(row![3])).toBe(values.length);
      expect(Number(row![5])).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 12);
    }
    // Correlations with the levels' stability: only the levels simulated here (I and L) have one.
    const corr = readFileSync(join(out, 'correlations.csv'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    expect(corr[0]).toEqual(['metric', 'against', 'items', 'spearman', 'pearson']);
    const stab = corr.find((r) => r[0] === 'looks-like' && r[1] === 'stability')!;
    expect(Number(stab[2])).toBe(survey.items.slice(0, 11).filter((i: { letter: string }) => i.letter === 'I' || i.letter === 'L').length);
  }, 120_000);
});
