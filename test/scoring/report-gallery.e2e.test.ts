import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRandomVit } from '../../scripts/make-random-vit.js';
import { launchChromium, openPage } from '../helpers/browser.js';
import { PROJECT_ROOT, runSbeval } from '../helpers/cli.js';
import { exampleCopy } from '../orchestrator/helpers/competition.js';
import { parseCsv } from './golden-competition.js';

/**
 * The report of the shipped example, as a person opens it: `sbeval run --model` (a tiny random ViT:
 * the real weights are not available here) on a copy of examples/competition, then `result/report.html`
 * in headless Chromium. Checked: the gallery holds every trial of `result/trials.csv` — levels as
 * thumbnails that are their image files made small, failures as blanks with the accounting's reason —
 * the overview, the heat maps' own scales and missing marks, the bar chart; screenshots go to the suites' git-ignored output folder (OUT).
 */
const OUT = join(PROJECT_ROOT, 'test', '.out');

interface Figure {
  team: string;
  letter: string;
  trial: string;
  failed: boolean;
  image: string | null;
  reason: string | null;
  src: string | null;
  caption: string;
}

let root: string;
let browser: Browser;
let page: Page;
let rows: string[][];
let modelSha256: string;

async function figures(p: Page): Promise<Figure[]> {
  return p.locator('.gallery-letter figure.trial').evaluateAll((els) =>
    els.map((el) => ({
      team: el.getAttribute('data-team')!,
      letter: el.getAttribute('data-letter')!,
      trial: el.getAttribute('data-trial')!,
      failed: el.classList.contains('failed'),
      image: el.getAttribute('data-image'),
      reason: el.getAttribute('data-reason'),
      src: el.querySelector('img')?.getAttribute('src') ?? null,
      caption: el.querySelector('figcaption')?.textContent ?? '',
    })),
  );
}

function decodeDataUri(uri: string): Buffer {
  const m = /^data:image\/png;base64,(.+)$/.exec(uri);
  if (!m) throw new Error(`not a PNG data URI: ${uri.slice(0, 40)}`);
  return Buffer.from(m[1]!, 'base64');
}

async function grey80(png: Uint8Array, kernel: 'lanczos3' | 'nearest' = 'lanczos3'): Promise<Buffer> {
  return sharp(png).greyscale().resize(80, 80, { kernel }).raw().toBuffer();
}

function meanAbsDiff(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

beforeAll(async () => {
  mkdirSync(OUT, { recursive: true });
  root = exampleCopy({ config: 'trials: 3\n' });
  const modelDir = mkdtempSync(join(tmpdir(), 'sbeval-report-vit-'));
  const model = writeRandomVit(modelDir, { layers: 1, hidden: 32, heads: 2, intermediate: 64, image: 32, patch: 16, labels: 26, seed: 5 }).onnx;
  modelSha256 = createHash('sha256').update(readFileSync(model)).digest('hex');
  const run = await runSbeval(['run', root, '--model', model, '--workers', '2']);
  expect(run.exitCode, run.stderr).toBe(0);
  rows = parseCsv(readFileSync(join(root, 'result', 'trials.csv'), 'utf8')).slice(1);
  browser = await launchChromium();
  page = await openPage(browser, { viewport: { width: 1280, height: 800 } });
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  const url = pathToFileURL(join(root, 'result', 'report.html')).href;
  await page.goto(url);
  // Self-contained: the page is the only thing loaded (thumbnails are data: URIs, which are not requests).
  expect(requests).toEqual([url]);
  rmSync(modelDir, { recursive: true, force: true });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

// Each step waits for the page or the command, not for a time; the cap is generous for a loaded 2-core CI machine.
describe('report.html of the example competition', { timeout: 240_000 }, () => {
  it('shows every trial of result/trials.csv: levels as pictures, failures as blanks with their reason', async () => {
    expect(rows).toHaveLength(45);
    const shown = await figures(page);
    const key = (team: string, letter: string, trial: string) => `${team}/${letter}/${trial}`;
    expect(shown.map((f) => key(f.team, f.letter, f.trial)).sort()).toEqual(rows.map((r) => key(r[0]!, r[2]!, r[3]!)).sort());
    for (const row of rows) {
      const f = shown.find((x) => key(x.team, x.letter, x.trial) === key(row[0]!, row[2]!, row[3]!))!;
      const complete = row[4] === 'image';
      expect(f.failed, key(row[0]!, row[2]!, row[3]!)).toBe(!complete);
      if (complete) {
        expect(f.image).toBe(`${row[0]}_${row[2]}_${row[3]}.png`);
        // Under each: the target letter, the stability as in trials.csv, the similarity.
        expect(f.caption).toContain(`${row[2]} #${row[3]}`);
        expect(f.caption).toContain(`sta ${Number(row[6]).toFixed(2)}`);
        expect(f.caption).toContain(`sim ${Number(row[7]).toFixed(2)}`);
      } else {
        expect(row[5]).not.toBe('');
        expect(f.reason).toBe(row[5]);
        expect(f.caption).toContain(row[5]);
      }
    }
    // The example's failures: 5 × Code not found., one each of three converter reasons.
    expect(
      shown
        .filter((f) => f.failed)
        .map((f) => f.reason)
        .sort(),
    ).toEqual([
      'BlockType does not exist.',
      'Code not found.',
      'Code not found.',
      'Code not found.',
      'Code not found.',
      'Code not found.',
      'Height boundary is intruded.',
      'Width boundary is intruded.',
    ]);
    // Every picture was decoded by the browser at the thumbnail size.
    const sizes = await page
      .locator('.gallery-letter figure.trial img')
      .evaluateAll((imgs) => imgs.map((i) => [(i as HTMLImageElement).complete, (i as HTMLImageElement).naturalWidth, (i as HTMLImageElement).naturalHeight]));
    expect(sizes).toHaveLength(37);
    for (const s of sizes) expect(s).toEqual([true, 80, 80]);
  });

  it('embeds thumbnails that are the image files made small (and not some other trial’s)', async () => {
    const shown = (await figures(page)).filter((f) => !f.failed);
    const files = shown.map((f) => join(root, f.team, 'images', f.letter, f.image!));
    const downscaled = await Promise.all(files.map(async (file) => grey80(readFileSync(file))));
    let compared = 0;
    for (const [i, f] of shown.entries()) {
      const thumb = await sharp(decodeDataUri(f.src!)).greyscale().raw().toBuffer();
      expect(meanAbsDiff(thumb, downscaled[i]!), files[i]).toBeLessThan(6);
      // A trial of another letter looks different: the check can tell images apart.
      const other = shown.findIndex((g) => g.letter !== f.letter && g.team === f.team);
      expect(meanAbsDiff(thumb, downscaled[other]!), `${files[i]} vs ${files[other]}`).toBeGreaterThan(8);
      compared += 1;
    }
    expect(compared).toBe(37);
  });

  it('shows each team’s best trial per letter at a glance', async () => {
    const cells = await page
      .locator('table.gallery-overview td.best')
      .evaluateAll((tds) => tds.map((td) => `${td.getAttribute('data-team')}/${td.getAttribute('data-letter')}`));
    // Every team × letter of the example has at least one level.
    expect(cells).toHaveLength(15);
    await expect(page.locator('table.gallery-overview tbody th').allTextContents()).resolves.toEqual(['BlockSmith', 'GridThinkers', 'PromptPilots']);
    // The best trial is the one with the highest similarity of its cell.
    const best = await page
      .locator('table.gallery-overview td.best')
      .evaluateAll((tds) =>
        tds.map((td) => [td.getAttribute('data-team'), td.getAttribute('data-letter'), Number(td.getAttribute('data-similarity'))] as const),
      );
    for (const [team, letter, sim] of best) {
      const max = Math.max(...rows.filter((r) => r[0] === team && r[2] === letter && r[4] === 'image').map((r) => Number(r[7])));
      expect(sim, `${team} ${letter}`).toBe(max);
    }
  });

  it('draws heat maps over the competition’s letters on each metric’s own scale, and a ranking bar chart', async () => {
    const [, ...characterRows] = parseCsv(readFileSync(join(root, 'result', 'character_scores.csv'), 'utf8'));
    // character_scores.csv: teamName, character, characterScore, stability, similarity, diversity.
    for (const [metric, column] of [
      ['similarity', 4],
      ['diversity', 5],
    ] as const) {
      const svg = page.locator(`svg.heatmap[data-metric="${metric}"]`);
      // The example has letters I, L, O, T, U: the map draws those, not all 26 letters.
      const present = characterRows.filter((r) => 'ILOTU'.includes(r[1]!)).map((r) => Number(r[column]));
      await expect(svg.getAttribute('data-scale-max')).resolves.toBe(String(Math.max(...present)));
      await expect(svg.getAttribute('data-scale-min')).resolves.toBe(String(Math.min(...present)));
      await expect(svg.locator('text.col-label').allTextContents()).resolves.toEqual(['I', 'L', 'O', 'T', 'U']);
      await expect(svg.locator('rect[data-team]').count()).resolves.toBe(3 * 5);
      await expect(svg.locator('rect[data-missing="true"]').count()).resolves.toBe(0);
    }
    const bars = await page.locator('svg.ranking-bars g.bar').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-team')));
    const ranks = parseCsv(readFileSync(join(root, 'result', 'prompt_scores_ranks.csv'), 'utf8')).slice(1);
    expect(bars).toEqual(ranks.sort((a, b) => Number(a[3]) - Number(b[3])).map((r) => r[0]));
    await expect(page.locator('table.facts.versions').textContent()).resolves.toContain(process.version);
    // The model the similarity files came from, by its content (their records), whatever file this run named.
    await expect(page.locator('table.facts.settings').textContent()).resolves.toContain(`sha256 ${modelSha256.slice(0, 16)}…`);
  });

  it('writes screenshots (test/.out/): the top at 1280×800 and the whole page', async () => {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(OUT, 'report-example-top.png') });
    const overview = join(OUT, 'report-example-overview.png');
    await page.locator('table.gallery-overview').screenshot({ path: overview });
    // The overview shows black letters on white: a real picture, not an empty table.
    const { data, info } = await sharp(overview).greyscale().raw().toBuffer({ resolveWithObject: true });
    const dark = data.filter((v) => v < 64).length;
    expect(dark / (info.width * info.height)).toBeGreaterThan(0.03);
    await page.screenshot({ path: join(OUT, 'report-example-full.png'), fullPage: true });
    const full = await sharp(join(OUT, 'report-example-full.png')).metadata();
    expect(full.width).toBe(1280);
    expect(full.height).toBeGreaterThan(3000);
  });

  it('shows the same trials and reasons when `sbeval score` builds it from the files alone', async () => {
    const fromRun = await figures(page);
    const scored = await runSbeval(['score', root, '--rules', '2025', '--trials', '3']);
    expect(scored.exitCode, scored.stderr).toBe(0);
    const again = await openPage(browser);
    await again.goto(pathToFileURL(join(root, 'result', 'report.html')).href);
    const fromFiles = await figures(again);
    await again.close();
    const strip = (f: Figure) => ({ team: f.team, letter: f.letter, trial: f.trial, failed: f.failed, reason: f.reason, src: f.src });
    expect(fromFiles.map(strip)).toEqual(fromRun.map(strip));
  });
});
