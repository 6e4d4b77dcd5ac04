/**
 * The pages of the README's pictures, opened as `scripts/make-screenshots.ts` shoots them, and what each
 * shows as text — the record beside the pictures (docs/images/screenshots.json) that
 * test/docs/screenshots.test.ts recomputes from the current code. Text read from the page's DOM does not
 * depend on fonts; pixels do.
 *
 * The run the pictures come from is the test suite's scored example (test/orchestrator/helpers/result-folder.ts):
 * a copy of examples/competition (3 trials per letter) after `sbeval run --model` with the seeded TINY_VIT.
 */
import { join } from 'node:path';
import { execa } from 'execa';
import type { Browser, Page } from 'playwright-core';
import { SbevalError } from '../core/errors.js';

/** A trial of the example that collapses (stability 0.67 in result/trials.csv): its first mover is the point of the viewer. */
export const VIEWER_LEVEL = join('BlockSmith', 'levels', 'T', 'BlockSmith_T_1.xml');
/** Where the picture's trace is recorded, inside the competition folder (the viewer's header names it as typed). */
export const VIEWER_TRACE = 'BlockSmith_T_1.sbtrace';
export const VIEWER_STEP = 60;
/** The same trial's LLM response, which the playground extracts, converts and simulates itself. */
export const PLAY_RESPONSE = join('BlockSmith', 'raw', 'T', 'BlockSmith_T_1.txt');

export const REPORT_VIEWPORT = { width: 1100, height: 900 };
export const VIEWER_VIEWPORT = { width: 1280, height: 800 };
export const PLAYGROUND_VIEWPORT = { width: 1400, height: 940 };

/** An open page and how to close it with the server behind it. */
export interface OpenPage {
  page: Page;
  close(): Promise<void>;
}

/** What a picture shows, as text. */
export type PageFacts = Record<string, string | string[]>;

/** Generous: a loaded machine (the test suite's) can miss Playwright's 30 s default; a wait that never succeeds still fails. */
const PAGE_TIMEOUT_MS = 120_000;

async function newPage(browser: Browser, viewport: { width: number; height: number }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  page.setDefaultTimeout(PAGE_TIMEOUT_MS);
  return page;
}

const text = (page: Page, selector: string) => page.$$eval(selector, (nodes) => nodes.map((n) => (n.textContent ?? '').replace(/\s+/g, ' ').trim()));

/** A table's rows, each as its cells' text joined by ` | `. */
const rows = (page: Page, selector: string) =>
  page.$$eval(selector, (trs) =>
    trs.map((tr) =>
      Array.from((tr as HTMLTableRowElement).cells)
        .map((c) => (c.textContent ?? '').replace(/\s+/g, ' ').trim())
        .join(' | '),
    ),
  );

export async function openReport(browser: Browser, reportHtml: string): Promise<OpenPage> {
  const page = await newPage(browser, REPORT_VIEWPORT);
  await page.goto(`file://${reportHtml}`);
  return { page, close: () => page.close() };
}

/** The report: its title, settings, winner, each ranking bar (rank, team, score, 95 % interval), the headings and the overview's cells. */
export async function reportFacts(page: Page): Promise<PageFacts> {
  return {
    title: await text(page, 'h1'),
    facts: await text(page, 'ul.facts li'),
    winner: await text(page, 'ul.winner li'),
    ranking: await page.$$eval('svg.ranking-bars g.bar', (bars) =>
      bars.map((bar) =>
        [bar.querySelector('.bar-label'), bar.querySelector('.bar-value'), bar.querySelector('.interval title')]
          .map((n) => n?.textContent?.trim() ?? '(none)')
          .join(' | '),
      ),
    ),
    headings: await text(page, 'h2'),
    overview: await page.$$eval('table.gallery-overview td', (cells) => cells.map((c) => `${c.getAttribute('title') ?? ''} ${c.textContent ?? ''}`.trim())),
  };
}

/** `sbeval view <trace>` in the competition folder, paused at `step`. */
export async function openViewer(browser: Browser, sbeval: string, root: string, step: number): Promise<OpenPage> {
  const child = execa(process.execPath, [sbeval, 'view', VIEWER_TRACE, '--port', '0'], { cwd: root, reject: false });
  const url = await printedUrl(child, 'sbeval view');
  const page = await newPage(browser, VIEWER_VIEWPORT);
  await page.goto(url);
  await page.waitForSelector('body[data-loaded]');
  await page.fill('#seek-step', String(step));
  await page.click('#seek-go');
  await atStep(page, step);
  return { page, close: () => closeBoth(page, child) };
}

/**
 * The viewer: the trace it names, the step, the explanation, each block's row and the timeline. The
 * header's full path of the trace is given from the competition folder (`root`), which is a temporary one.
 */
export async function viewerFacts(page: Page, root: string): Promise<PageFacts> {
  return {
    title: await text(page, '#title'),
    status: (await text(page, '#status')).map((t) => t.split(root).join('<competition>')),
    clock: await text(page, '#clock'),
    summary: await text(page, '#summary'),
    blocks: await rows(page, '#blocks tbody tr'),
    timeline: await text(page, '#timeline li'),
  };
}

/** `sbeval play` on a pasted response (in the fragment, as a shared link opens it) with `model` chosen as the model file, paused at `step`. */
export async function openPlayground(browser: Browser, sbeval: string, response: string, model: string, step: number): Promise<OpenPage> {
  const child = execa(process.execPath, [sbeval, 'play', '--port', '0'], { reject: false });
  const url = await printedUrl(child, 'sbeval play');
  const page = await newPage(browser, PLAYGROUND_VIEWPORT);
  await page.goto(`${url}#${new URLSearchParams({ kind: 'response', text: response }).toString()}`);
  await page.waitForFunction(() => /^stability /.test(document.getElementById('verdict')?.textContent ?? ''));
  await page.selectOption('#letter', 'T');
  await page.setInputFiles('#model', model);
  await page.waitForFunction(() => !(document.getElementById('probabilities') as HTMLTableElement | null)?.hidden);
  await page.evaluate((s) => {
    const scrubber = document.getElementById('scrubber') as HTMLInputElement;
    scrubber.value = String(s);
    scrubber.dispatchEvent(new Event('input'));
  }, step);
  await atStep(page, step);
  return { page, close: () => closeBoth(page, child) };
}

/** The playground: the stages, the verdict, the similarity, the letter probabilities, the step and the panel's explanation and blocks. */
export async function playgroundFacts(page: Page): Promise<PageFacts> {
  return {
    stages: await text(page, '#stages li'),
    verdict: await text(page, '#verdict'),
    similarity: await text(page, '#similarity'),
    probabilities: await rows(page, '#probabilities tr'),
    clock: await text(page, '#clock'),
    summary: await text(page, '#summary'),
    blocks: await rows(page, '#blocks tbody tr'),
  };
}

function atStep(page: Page, step: number): Promise<unknown> {
  return page.waitForFunction((s) => document.querySelector('#clock')?.textContent?.startsWith(`step ${s} `), step);
}

async function closeBoth(page: Page, child: ReturnType<typeof execa>): Promise<void> {
  await page.close();
  child.kill('SIGTERM');
  await child;
}

/** The URL a running `sbeval <args>` prints. */
function printedUrl(child: ReturnType<typeof execa>, what: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void child.then((r) =>
      reject(new SbevalError('launch', `${what} ended (exit ${r.exitCode}) before printing its URL: ${String(r.stderr)}`, 'see its output above')),
    );
  });
}
