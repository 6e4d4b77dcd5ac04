/**
 * `npx tsx scripts/make-screenshots.ts`: the README's pictures, made with the real tools.
 *
 * 1. A small ViT with seeded random weights (scripts/make-random-vit.ts `--small`: the competition's
 *    weights cannot ship), then `sbeval run <copy of examples/competition> --model <it> --traces` with
 *    the built CLI — so the report is a real one, but its similarity numbers (and so the scores) mean
 *    nothing.
 * 2. `report.html` of that run in Debian's Chromium (playwright-core), the top of the page.
 * 3. `sbeval view` on the trace of one of that run's collapsing trials, paused at a step after the
 *    collapse began.
 * 4. `sbeval play` with that trial's LLM response in the URL fragment and the small ViT chosen as the
 *    model file, at the same step.
 *
 * All are written as palette PNGs (sharp) to docs/images/, small enough to commit.
 */

import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { type Browser, chromium } from 'playwright-core';
import sharp from 'sharp';
import { SMALL_VIT, writeRandomVit } from './make-random-vit.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SBEVAL = join(ROOT, 'bin', 'sbeval.js');
const OUT = join(ROOT, 'docs', 'images');
/** A trial of the example that collapses (stability 0.67 in result/trials.csv): its first mover is the point of the viewer. */
const VIEWER_TRACE = join('BlockSmith', 'traces', 'T', 'BlockSmith_T_1.trial1.sbtrace');
const VIEWER_STEP = 60;
/** The same trial's LLM response, which the playground extracts, converts and simulates itself. */
const PLAY_RESPONSE = join('BlockSmith', 'raw', 'T', 'BlockSmith_T_1.txt');

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'sbeval-screenshots-'));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  try {
    const { onnx } = writeRandomVit(join(work, 'vit'), SMALL_VIT);
    const root = join(work, 'competition');
    cpSync(join(ROOT, 'examples', 'competition'), root, { recursive: true });
    await execa(process.execPath, [SBEVAL, 'run', root, '--model', onnx, '--traces'], { stdio: 'inherit' });
    mkdirSync(OUT, { recursive: true });
    await shoot(browser, `file://${join(root, 'result', 'report.html')}`, join(OUT, 'report.png'), { width: 1100, height: 900 });
    await shootViewer(browser, root, join(OUT, 'viewer.png'));
    await shootPlayground(browser, readFileSync(join(root, PLAY_RESPONSE), 'utf8'), onnx, join(OUT, 'playground.png'));
  } finally {
    await browser.close();
    rmSync(work, { recursive: true, force: true });
  }
}

async function shoot(browser: Browser, url: string, out: string, viewport: { width: number; height: number }): Promise<void> {
  const page = await browser.newPage({ viewport });
  await page.goto(url);
  await save(await page.screenshot(), out);
  await page.close();
}

/** From the competition folder, so that the page's header names the trace as a user would type it. */
/** The URL a running `sbeval <args>` prints. */
function printedUrl(child: ReturnType<typeof execa>, what: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(text);
      if (m) resolve(m[1]!);
    });
    void child.then((r) => reject(new Error(`${what} ended (${r.exitCode}): ${String(r.stderr)}`)));
  });
}

/** The playground on a pasted response (in the fragment, as a shared link opens it) with the model chosen, paused at VIEWER_STEP. */
async function shootPlayground(browser: Browser, response: string, model: string, out: string): Promise<void> {
  const child = execa(process.execPath, [SBEVAL, 'play', '--port', '0'], { reject: false });
  try {
    const url = await printedUrl(child, 'sbeval play');
    const page = await browser.newPage({ viewport: { width: 1400, height: 940 } });
    await page.goto(`${url}#${new URLSearchParams({ kind: 'response', text: response }).toString()}`);
    await page.waitForFunction(() => /^stability /.test(document.getElementById('verdict')?.textContent ?? ''));
    await page.selectOption('#letter', 'T');
    await page.setInputFiles('#model', model);
    await page.waitForFunction(() => !(document.getElementById('probabilities') as HTMLTableElement | null)?.hidden);
    await page.evaluate((step) => {
      const scrubber = document.getElementById('scrubber') as HTMLInputElement;
      scrubber.value = String(step);
      scrubber.dispatchEvent(new Event('input'));
    }, VIEWER_STEP);
    await page.waitForFunction((step) => document.querySelector('#clock')?.textContent?.startsWith(`step ${step} `), VIEWER_STEP);
    await save(await page.screenshot(), out);
    await page.close();
  } finally {
    child.kill('SIGTERM');
    await child;
  }
}

async function shootViewer(browser: Browser, root: string, out: string): Promise<void> {
  const child = execa(process.execPath, [SBEVAL, 'view', VIEWER_TRACE, '--port', '0'], { cwd: root, reject: false });
  try {
    const url = await printedUrl(child, 'sbeval view');
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(url);
    await page.waitForSelector('body[data-loaded]');
    await page.fill('#seek-step', String(VIEWER_STEP));
    await page.click('#seek-go');
    await page.waitForFunction((step) => document.querySelector('#clock')?.textContent?.startsWith(`step ${step} `), VIEWER_STEP);
    await save(await page.screenshot(), out);
    await page.close();
  } finally {
    child.kill('SIGTERM');
    await child;
  }
}

async function save(png: Buffer, out: string): Promise<void> {
  const info = await sharp(png).png({ palette: true, colours: 64, compressionLevel: 9, effort: 10 }).toFile(out);
  console.log(`${out}: ${info.width}×${info.height}, ${(info.size / 1024).toFixed(0)} KB`);
}

await main();
