/**
 * `npx tsx scripts/make-screenshots.ts`: the README's pictures, made with the real tools, and the record
 * of what they show (docs/images/screenshots.json, which test/docs/screenshots.test.ts recomputes).
 *
 * 1. The test suite's tiny ViT with seeded random weights (scripts/make-random-vit.ts TINY_VIT: the
 *    competition's weights cannot ship), then `sbeval run <copy of examples/competition> --model <it>`
 *    with the built CLI — so the report is a real one, but its similarity numbers (and so the scores)
 *    mean nothing.
 * 2. `report.html` of that run in Debian's Chromium (playwright-core), the top of the page.
 * 3. `sbeval level --trace` on one of that run's collapsing trials, then `sbeval view` on the trace,
 *    paused at a step after the collapse began.
 * 4. `sbeval play` with that trial's LLM response in the URL fragment and the tiny ViT chosen as the
 *    model file, at the same step.
 *
 * The pictures are palette PNGs (sharp), small enough to commit; the record holds each page's facts as
 * text (scripts/screenshot-pages.ts) and each picture's sha256.
 */

import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { chromium } from 'playwright-core';
import sharp from 'sharp';
import { TINY_VIT, writeRandomVit } from './make-random-vit.js';
import {
  type OpenPage,
  openPlayground,
  openReport,
  openViewer,
  type PageFacts,
  PLAY_RESPONSE,
  playgroundFacts,
  reportFacts,
  VIEWER_LEVEL,
  VIEWER_STEP,
  VIEWER_TRACE,
  viewerFacts,
} from './screenshot-pages.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SBEVAL = join(ROOT, 'bin', 'sbeval.js');
const OUT = join(ROOT, 'docs', 'images');

/** A picture's record: its file's sha256 and what it shows. */
interface Shot {
  png: string;
  sha256: string;
  facts: PageFacts;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'sbeval-screenshots-'));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  try {
    const { onnx } = writeRandomVit(join(work, 'vit'), TINY_VIT);
    const root = join(work, 'competition');
    cpSync(join(ROOT, 'examples', 'competition'), root, { recursive: true });
    await execa(process.execPath, [SBEVAL, 'run', root, '--model', onnx], { stdio: 'inherit' });
    await execa(process.execPath, [SBEVAL, 'level', VIEWER_LEVEL, '--trace', VIEWER_TRACE], { cwd: root, stdio: 'inherit' });
    mkdirSync(OUT, { recursive: true });
    const record = {
      report: await shoot(await openReport(browser, join(root, 'result', 'report.html')), reportFacts, 'report.png'),
      viewer: await shoot(await openViewer(browser, SBEVAL, root, VIEWER_STEP), (page) => viewerFacts(page, root), 'viewer.png'),
      playground: await shoot(
        await openPlayground(browser, SBEVAL, readFileSync(join(root, PLAY_RESPONSE), 'utf8'), onnx, VIEWER_STEP),
        playgroundFacts,
        'playground.png',
      ),
    };
    writeFileSync(join(OUT, 'screenshots.json'), `${JSON.stringify(record, null, 2)}\n`);
    console.log(`${join(OUT, 'screenshots.json')}: what the pictures show`);
  } finally {
    await browser.close();
    rmSync(work, { recursive: true, force: true });
  }
}

async function shoot(open: OpenPage, factsOf: (page: OpenPage['page']) => Promise<PageFacts>, name: string): Promise<Shot> {
  try {
    const facts = await factsOf(open.page);
    const out = join(OUT, name);
    const info = await sharp(await open.page.screenshot())
      .png({ palette: true, colours: 64, compressionLevel: 9, effort: 10 })
      .toFile(out);
    console.log(`${out}: ${info.width}×${info.height}, ${(info.size / 1024).toFixed(0)} KB`);
    return { png: name, sha256: createHash('sha256').update(readFileSync(out)).digest('hex'), facts };
  } finally {
    await open.close();
  }
}

await main();
