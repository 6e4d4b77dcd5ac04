import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELD_COUNT } from '../../bridge/frames.js';
import { type LoadedTrace, readTrace } from '../../bridge/trace.js';
import { similarityFile, writeSimilarityJson } from '../../scoring/formats/similarity.js';
import { launchChromium, openPage } from '../helpers/browser.js';
import { PROJECT_ROOT, REFERENCE_LEVELS, runSbeval } from '../helpers/cli.js';
import { sbevalArgv } from '../helpers/sbeval-bin.js';

/**
 * The viewer end to end: `sbeval view <trace> --port 0` started as a real child process, its printed
 * URL opened in headless Chromium, the page driven through its controls, and the block positions it
 * shows checked against the trace read with the shared loader (bridge/trace.ts).
 */
const OUT = join(PROJECT_ROOT, 'test', '.out');
const LEVEL = join(REFERENCE_LEVELS, 'v1/levels/L/V1_L_1.xml');
const REFERENCE = join(REFERENCE_LEVELS, 'v1/images/L/V1_L_1.png');

interface Served {
  child: ResultPromise;
  url: string;
}

/** Starts `sbeval view ... --port 0` and waits for the URL it prints. */
async function serve(args: string[]): Promise<Served> {
  const child = execa(process.execPath, sbevalArgv(['view', ...args, '--port', '0']), { cwd: PROJECT_ROOT, reject: false, env: { FORCE_COLOR: '0' } });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`sbeval view printed no URL: ${out} ${err}`)), 180_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /sbeval viewer: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    void child.then((r) => reject(new Error(`sbeval view exited ${r.exitCode}: ${err}`)));
  });
  return { child, url };
}

async function stop(served: Served | undefined): Promise<void> {
  if (!served) return;
  served.child.kill('SIGTERM');
  const result = await served.child;
  expect(result.exitCode).toBe(0);
}

type Positions = Array<[number, number, number, number]>;

async function frameState(page: Page): Promise<{ step: number; playing: boolean; positions: Positions }> {
  return page.locator('#frame-state').evaluate((el: HTMLElement) => ({
    step: Number(el.dataset.step),
    playing: el.dataset.playing === 'true',
    positions: JSON.parse(el.dataset.positions ?? '[]'),
  }));
}

/** The trace's own values at a step: [x, y, angle, alive] per body. */
function traceAt(trace: LoadedTrace, step: number): Positions {
  const n = trace.bodies.length;
  return trace.bodies.map((_, b) => {
    const o = (step * n + b) * FIELD_COUNT;
    return [trace.frames.states[o]!, trace.frames.states[o + 1]!, trace.frames.states[o + 2]!, trace.frames.alive[step * n + b]!];
  });
}

async function waitStep(page: Page, predicate: string): Promise<void> {
  await page.waitForFunction(`(() => { const s = Number(document.getElementById('frame-state').dataset.step); return ${predicate}; })()`, undefined, {
    timeout: 120_000,
  });
}

type Labels = Array<[number, number, number]>;

/** Where the page drew each block number at the current step: [id, x, y] in the scene canvas's CSS px. */
async function labels(page: Page): Promise<Labels> {
  return page.locator('#frame-state').evaluate((el: HTMLElement) => JSON.parse(el.dataset.labels ?? '[]'));
}

/** The scene canvas's pixels (RGB) as drawn now; the canvas has a 1-px border, so content x = px − 1. */
async function scenePixels(page: Page): Promise<{ data: Buffer; width: number; height: number; at: (x: number, y: number) => [number, number, number] }> {
  const { data, info } = await sharp(await page.locator('#scene').screenshot())
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const at = (x: number, y: number): [number, number, number] => {
    const o = (Math.round(y + 1) * info.width + Math.round(x + 1)) * 3;
    return [data[o]!, data[o + 1]!, data[o + 2]!];
  };
  return { data, width: info.width, height: info.height, at };
}

/** Pixels of a picture in a colour (each channel within `tolerance`). */
function countColour(data: Buffer, rgb: [number, number, number], tolerance = 30): number {
  let n = 0;
  for (let i = 0; i < data.length; i += 3)
    if (Math.abs(data[i]! - rgb[0]) <= tolerance && Math.abs(data[i + 1]! - rgb[1]) <= tolerance && Math.abs(data[i + 2]! - rgb[2]) <= tolerance) n++;
  return n;
}

let dir: string;
let browser: Browser;
let trace: LoadedTrace;
let tracePath: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbeval-viewer-'));
  mkdirSync(OUT, { recursive: true });
  // A deep, long folder: the header names the trace and level paths, and a CI checkout's paths are long
  // (a header that wrapped to two lines once pushed the page to 818 px in a 800 px window).
  const deep = join(dir, 'a-folder-whose-name-is-long-enough-to-overflow-one-header-line', 'at-1280-px-whatever-the-machine-fonts');
  mkdirSync(deep, { recursive: true });
  tracePath = join(deep, 'V1_L_1.sbtrace.gz');
  const recorded = await runSbeval(['level', LEVEL, '--trace', tracePath, '--trials', '1']);
  expect(recorded.exitCode, recorded.stderr).toBe(0);
  trace = await readTrace(tracePath);
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await rm(dir, { recursive: true, force: true });
});

// Each step waits for the page, not for a time; the caps are generous for a loaded 2-core CI machine.
describe('sbeval view <trace>', { timeout: 240_000 }, () => {
  let served: Served | undefined;
  let page: Page;

  beforeAll(async () => {
    served = await serve([tracePath, '--reference', REFERENCE]);
    page = await openPage(browser, { viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(served.url);
    await page.waitForSelector('body[data-loaded]', { timeout: 120_000 });
    expect(errors).toEqual([]);
  }, 300_000);

  afterAll(async () => {
    await page?.close();
    await stop(served);
  });

  it('loads the trace and shows the bodies where the trace has them at step 0', async () => {
    const state = await frameState(page);
    expect(state.step).toBe(0);
    expect(state.positions).toEqual(traceAt(trace, 0));
    await expect(page.locator('#status').textContent()).resolves.toContain(
      `${trace.bodies.length} bodies · window: start positions on step 1, last on step 503 (10.06 s); stream: ${trace.frames.stepCount} steps (0…${trace.frames.stepCount - 1})`,
    );
    // Panels: the explanation's summary, one table row per body, the first mover marked.
    await expect(page.locator('#summary').textContent()).resolves.toContain('first mover');
    expect(await page.locator('#blocks tbody tr').count()).toBe(trace.bodies.length);
    expect(await page.locator('#blocks tbody tr.first').count()).toBe(1);
  });

  it('plays and pauses', async () => {
    await page.getByRole('button', { name: 'Play' }).click();
    await waitStep(page, 's >= 25');
    await page.getByRole('button', { name: 'Pause' }).click();
    const paused = await frameState(page);
    expect(paused.playing).toBe(false);
    await page.waitForTimeout(300);
    expect((await frameState(page)).step).toBe(paused.step);
    expect(paused.positions).toEqual(traceAt(trace, paused.step));
  });

  it('steps one frame forward and back, with the buttons and the keyboard', async () => {
    const { step } = await frameState(page);
    await page.getByRole('button', { name: 'Next frame' }).click();
    expect((await frameState(page)).step).toBe(step + 1);
    await page.getByRole('button', { name: 'Previous frame' }).click();
    await page.getByRole('button', { name: 'Previous frame' }).click();
    expect((await frameState(page)).step).toBe(step - 1);
    await page.locator('#scene').click();
    await page.keyboard.press('ArrowRight');
    const after = await frameState(page);
    expect(after.step).toBe(step);
    expect(after.positions).toEqual(traceAt(trace, step));
  });

  it('seeks to a frame and shows the right block positions', async () => {
    await page.getByLabel('Step', { exact: true }).fill('250');
    await page.getByRole('button', { name: 'Go' }).click();
    const state = await frameState(page);
    expect(state.step).toBe(250);
    expect(state.positions).toEqual(traceAt(trace, 250));
    await expect(page.getByLabel('Time', { exact: true }).inputValue()).resolves.toBe('250');
    // Blocks that died are reported dead at this step, as in the trace.
    expect(state.positions.some((p) => p[3] === 0)).toBe(true);
  });

  it('scrubs with the time slider and by clicking the displacement chart', async () => {
    await page.getByLabel('Time', { exact: true }).evaluate((el: HTMLInputElement) => {
      el.value = '100';
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    const state = await frameState(page);
    expect(state.step).toBe(100);
    expect(state.positions).toEqual(traceAt(trace, 100));
    const box = (await page.locator('#chart').boundingBox())!;
    await page.mouse.click(box.x + box.width - 12, box.y + box.height / 2);
    expect((await frameState(page)).step).toBeGreaterThan(400);
  });

  it('shows the final capture beside the reference image', async () => {
    const images = page.locator('#images img');
    await page.waitForFunction(() => document.querySelectorAll('#images img').length === 2);
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll('#images img')).every((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0),
    );
    const sizes = await images.evaluateAll((imgs) =>
      imgs.map((img) => ({
        alt: (img as HTMLImageElement).alt,
        width: (img as HTMLImageElement).naturalWidth,
        height: (img as HTMLImageElement).naturalHeight,
      })),
    );
    expect(sizes.map((s) => s.alt)).toEqual([`final capture (${tracePath})`, 'reference (Unity)']);
    // Both 1024 × 1024, the evaluator's image size.
    for (const s of sizes) expect([s.width, s.height]).toEqual([1024, 1024]);
  });

  it('numbers every block on the canvas at its centre, and only there', async () => {
    await page.getByLabel('Step', { exact: true }).fill('0');
    await page.getByRole('button', { name: 'Go' }).click();
    const placed = await labels(page);
    expect(placed.map(([id]) => id)).toEqual(trace.bodies.map((b) => b.id));
    const withNumbers = await scenePixels(page);
    await page.getByLabel('numbers').uncheck();
    expect(await labels(page)).toEqual([]);
    const without = await scenePixels(page);
    await page.getByLabel('numbers').check();
    await page.locator('#scene').screenshot({ path: join(OUT, 'viewer-V1_L_1-numbers.png') });
    // Every label changed pixels near its position; nothing changed anywhere else.
    const near = (x: number, y: number, r: number) => placed.some(([, lx, ly]) => Math.abs(lx + 1 - x) <= r && Math.abs(ly + 1 - y) <= r);
    const changedAround = new Map<number, number>();
    let elsewhere = 0;
    for (let y = 0; y < withNumbers.height; y++) {
      for (let x = 0; x < withNumbers.width; x++) {
        const o = (y * withNumbers.width + x) * 3;
        if (withNumbers.data[o] === without.data[o] && withNumbers.data[o + 1] === without.data[o + 1] && withNumbers.data[o + 2] === without.data[o + 2])
          continue;
        if (!near(x, y, 16)) elsewhere++;
        for (const [id, lx, ly] of placed) if (Math.abs(lx + 1 - x) <= 8 && Math.abs(ly + 1 - y) <= 8) changedAround.set(id, (changedAround.get(id) ?? 0) + 1);
      }
    }
    expect(elsewhere).toBe(0);
    for (const [id] of placed) expect(changedAround.get(id) ?? 0, `label #${id}`).toBeGreaterThan(5);
  });

  it('selects a block by clicking it on the canvas: the table row and the chart line follow', async () => {
    const placed = await labels(page);
    const explanation = await page.locator('#blocks tbody tr').evaluateAll((rows) => rows.map((r) => Number((r as HTMLElement).dataset.id)));
    const magenta: [number, number, number] = [0xd5, 0x00, 0xf9];
    const box = (await page.locator('#scene').boundingBox())!;
    // A click on empty space clears any selection (an earlier test clicked the scene to focus it).
    await page.mouse.click(box.x + 4, box.y + 4);
    await expect(page.locator('#frame-state').getAttribute('data-selected')).resolves.toBe('');
    const chartBefore = await sharp(await page.locator('#chart').screenshot())
      .removeAlpha()
      .raw()
      .toBuffer();
    expect(countColour(chartBefore, magenta)).toBe(0);
    const [id, x, y] = placed.find(([i]) => i !== explanation[0]) ?? placed[0]!;
    await page.mouse.click(box.x + 1 + x, box.y + 1 + y);
    await expect(page.locator('#frame-state').getAttribute('data-selected')).resolves.toBe(String(id));
    await expect(page.locator('#blocks tbody tr.selected').getAttribute('data-id')).resolves.toBe(String(id));
    await expect(page.locator('#blocks tbody tr.selected').count()).resolves.toBe(1);
    const chartAfter = await sharp(await page.locator('#chart').screenshot())
      .removeAlpha()
      .raw()
      .toBuffer();
    expect(countColour(chartAfter, magenta)).toBeGreaterThan(50);
    await expect(page.locator('#chart-legend').textContent()).resolves.toContain(`selected #${id}`);
    // The step does not move on a canvas click (a table click seeks to the block's onset).
    expect((await frameState(page)).step).toBe(0);
    await page.screenshot({ path: join(OUT, 'viewer-V1_L_1-selected.png') });
    // Empty space again: the selection is cleared.
    await page.mouse.click(box.x + 4, box.y + 4);
    await expect(page.locator('#frame-state').getAttribute('data-selected')).resolves.toBe('');
    await expect(page.locator('#blocks tbody tr.selected').count()).resolves.toBe(0);
  });

  it('explains the chart lines in a legend', async () => {
    const items = await page.locator('#chart-legend span').allTextContents();
    expect(items.length).toBeGreaterThanOrEqual(6);
    expect(items.join(' | ')).toMatch(/first mover #\d+ \| moved ≥ 0\.1: .* \| stayed \| selected: none \| threshold 0\.1 \| 10-s window end \| current step/);
  });

  it('outlines blocks by default so touching blocks stay apart (the evaluator look merges them)', async () => {
    const centres = await labels(page);
    await page.getByLabel('numbers').uncheck();
    await page.getByLabel('highlights').uncheck();
    const outlined = await scenePixels(page);
    await page.getByLabel('Look').selectOption('black');
    const black = await scenePixels(page);
    // Pairs of blocks whose centres are joined by solid black in the evaluator look touch in the image.
    const segment = (a: [number, number, number], b: [number, number, number]) =>
      Array.from({ length: 41 }, (_, k) => [a[1] + ((b[1] - a[1]) * k) / 40, a[2] + ((b[2] - a[2]) * k) / 40] as const);
    let touching = 0;
    for (let i = 0; i < centres.length; i++) {
      for (let j = i + 1; j < centres.length; j++) {
        const points = segment(centres[i]!, centres[j]!);
        if (!points.every(([x, y]) => black.at(x, y).every((c) => c < 40))) continue;
        touching++;
        // In the default look a lighter line crosses between them.
        expect(
          points.some(([x, y]) => outlined.at(x, y).every((c) => c > 90)),
          `#${centres[i]![0]} and #${centres[j]![0]}`,
        ).toBe(true);
      }
    }
    expect(touching).toBeGreaterThan(0);
    await page.getByLabel('Look').selectOption('outlined');
    await page.getByLabel('numbers').check();
    await page.getByLabel('highlights').check();
  });

  it('fits a 1280×800 window: scene, controls, chart and legend on screen without page scrolling', async () => {
    const small = await openPage(browser, { viewport: { width: 1280, height: 800 } });
    await small.goto(served!.url);
    await small.waitForSelector('body[data-loaded]', { timeout: 120_000 });
    // Measure once the layout has settled: the same sizes on two consecutive animation frames and the
    // scene re-fitted into its box (the legend and options fill in after the first frame).
    await small.waitForFunction(
      () =>
        new Promise<boolean>((resolve) => {
          const read = () =>
            ['#scene', '#scene-box', '#chart-legend', 'header'].map((s) => JSON.stringify(document.querySelector(s)!.getBoundingClientRect())).join();
          const before = read();
          requestAnimationFrame(() =>
            requestAnimationFrame(() => {
              const scene = document.querySelector('#scene')!.getBoundingClientRect();
              const box = document.querySelector('#scene-box')!.getBoundingClientRect();
              resolve(read() === before && scene.bottom <= box.bottom + 0.5);
            }),
          );
        }),
      undefined,
      { timeout: 120_000, polling: 100 },
    );
    // The header is one line however long the paths it names.
    const header = (await small.locator('header').boundingBox())!;
    const h1 = (await small.locator('header h1').boundingBox())!;
    expect(header.height).toBeLessThan(h1.height + 12 + h1.height / 2);
    const size = await small.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]);
    expect(size[0]).toBeLessThanOrEqual(1280);
    expect(size[1]).toBeLessThanOrEqual(800);
    for (const selector of ['#scene', '#controls', '#options', '#chart', '#chart-legend', '#panel']) {
      const box = (await small.locator(selector).boundingBox())!;
      expect(box.y + box.height, selector).toBeLessThanOrEqual(800);
      expect(box.x + box.width, selector).toBeLessThanOrEqual(1280);
    }
    const scene = (await small.locator('#scene').boundingBox())!;
    expect(Math.abs(scene.width - scene.height)).toBeLessThanOrEqual(1);
    expect(scene.width).toBeGreaterThan(380);
    await small.getByRole('button', { name: 'Play' }).click();
    await waitStep(small, 's >= 10');
    await small.getByRole('button', { name: 'Pause' }).click();
    await small.getByLabel('Step', { exact: true }).fill('120');
    await small.getByRole('button', { name: 'Go' }).click();
    await small.screenshot({ path: join(OUT, 'viewer-1280x800.png') });
    await small.close();
  });

  it('writes a screenshot at a given frame (test/.out/) drawn as the evaluator draws: black on white', async () => {
    await page.getByLabel('Step', { exact: true }).fill('120');
    await page.getByRole('button', { name: 'Go' }).click();
    expect((await frameState(page)).positions).toEqual(traceAt(trace, 120));
    const full = join(OUT, 'viewer-V1_L_1-step120.png');
    await page.screenshot({ path: full });
    const scene = join(OUT, 'viewer-V1_L_1-step120-scene.png');
    await page.locator('#scene').screenshot({ path: scene });
    const meta = await sharp(full).metadata();
    expect(meta.width).toBe(1400);
    // Black blocks on white: the scene has pure-black and pure-white pixels.
    const { data, info } = await sharp(scene).raw().toBuffer({ resolveWithObject: true });
    let black = 0;
    let white = 0;
    for (let i = 0; i < data.length; i += info.channels) {
      if (data[i] === 0 && data[i + 1] === 0 && data[i + 2] === 0) black++;
      if (data[i] === 255 && data[i + 1] === 255 && data[i + 2] === 255) white++;
    }
    expect(black).toBeGreaterThan(500);
    expect(white).toBeGreaterThan(black);
    // The wood look draws the same frame in colour.
    await page.getByLabel('Look').selectOption('wood');
    await page.locator('#scene').screenshot({ path: join(OUT, 'viewer-V1_L_1-step120-wood.png') });
    await page.getByLabel('Look').selectOption('outlined');
  });
});

describe('sbeval view <competition-dir>', { timeout: 300_000 }, () => {
  let served: Served | undefined;

  afterAll(async () => {
    await stop(served);
  });

  it('lists trials by team and letter with their scores and failures, and opens traces and levels', async () => {
    const root = join(dir, 'competition');
    const levels = join(root, 'alpha', 'levels', 'L');
    mkdirSync(levels, { recursive: true });
    // T = 3; trial 3 is a response without code: it never became a level.
    writeFileSync(join(root, 'sbeval.config.yaml'), 'trials: 3\n');
    mkdirSync(join(root, 'alpha', 'raw', 'L'), { recursive: true });
    writeFileSync(join(root, 'alpha', 'raw', 'L', 'alpha_L_3.txt'), 'An L is two bars at a right angle.');
    copyFileSync(join(REFERENCE_LEVELS, 'v1/levels/L/V1_L_2.xml'), join(levels, 'alpha_L_1.xml'));
    copyFileSync(join(REFERENCE_LEVELS, 'v1/levels/L/V1_L_10.xml'), join(levels, 'alpha_L_2.xml'));
    mkdirSync(join(root, 'alpha', 'stability'), { recursive: true });
    // The evaluator's stability file format (golden reference-levels/*/stability/*.json).
    writeFileSync(
      join(root, 'alpha', 'stability', 'L.json'),
      JSON.stringify({
        dataCount: 2,
        rate: 0.6666666865348816,
        raws: [
          { tag: 'competition\\alpha\\levels\\L\\alpha_L_1.xml', score: 0.3333333432674408, startingObjects: 3, movingObjects: 2 },
          { tag: 'competition\\alpha\\levels\\L\\alpha_L_2.xml', score: 1.0, startingObjects: 5, movingObjects: 0 },
        ],
      }),
    );
    // The similarity script's file (scoring/formats/similarity.ts writes the official format): P(L) = 0.25 for trial 1.
    const probabilities = (p: number) => Array.from({ length: 26 }, (_, i) => (i === 11 ? p : (1 - p) / 25));
    mkdirSync(join(root, 'alpha', 'similarity'), { recursive: true });
    writeFileSync(
      join(root, 'alpha', 'similarity', 'L.json'),
      writeSimilarityJson(
        similarityFile('L', [
          { id: 'alpha_L_1.png', probabilities: probabilities(0.25) },
          { id: 'alpha_L_2.png', probabilities: probabilities(0.5) },
        ]),
      ),
    );
    const traces = join(root, 'alpha', 'traces', 'L');
    mkdirSync(traces, { recursive: true });
    // `sbeval run --traces` names each evaluator trial's trace `<name>.trial<k>.sbtrace` (orchestrator/run/effects.ts).
    const rec = await runSbeval(['level', join(levels, 'alpha_L_2.xml'), '--trace', join(traces, 'alpha_L_2.trial1.sbtrace'), '--trials', '1']);
    expect(rec.exitCode, rec.stderr).toBe(0);
    copyFileSync(join(traces, 'alpha_L_2.trial1.sbtrace'), join(traces, 'alpha_L_2.trial2.sbtrace'));

    served = await serve([root]);
    const page = await openPage(browser, { viewport: { width: 1400, height: 1000 } });
    await page.goto(served.url);
    await page.waitForSelector('body[data-loaded]', { timeout: 120_000 });
    const list = page.getByRole('navigation', { name: 'Trials' });
    await expect(list.locator('h3').allTextContents()).resolves.toEqual(['alpha · L']);
    const buttons = list.locator('button');
    await expect(buttons.allTextContents()).resolves.toEqual(['trial 1sta 0.33 sim 0.25', 'trial 2 ●sta 1.00 sim 0.50', '  trial 2']);
    // Every trial's fate: the levels have no image yet; trial 3 never became a level, for the official reason.
    await expect(list.locator('.failed').allTextContents()).resolves.toEqual([
      'no image (the level is not simulated yet)',
      'no image (the level is not simulated yet)',
      'trial 3 ✕Code not found.',
    ]);
    await expect(list.locator('.failed[data-key="alpha/L/alpha_L_3"] .reason').textContent()).resolves.toBe('Code not found.');
    await page.screenshot({ path: join(OUT, 'viewer-competition.png') });
    // The first trial has no trace: simulated on demand with the headless engine.
    await expect(page.locator('#status').textContent()).resolves.toContain('simulated');
    await expect(page.locator('#frame-state').evaluate((el: HTMLElement) => JSON.parse(el.dataset.positions!).length)).resolves.toBe(3);
    await buttons.nth(1).click();
    await page.waitForSelector('body[data-loaded="alpha/L/alpha_L_2"]', { timeout: 120_000 });
    await expect(page.locator('#status').textContent()).resolves.toContain('alpha_L_2.trial1.sbtrace');
    const loaded = await readTrace(join(traces, 'alpha_L_2.trial1.sbtrace'));
    expect((await frameState(page)).positions).toEqual(traceAt(loaded, 0));
    expect(page.url()).toContain('trial=alpha%2FL%2Falpha_L_2');
    await buttons.nth(2).click();
    await page.waitForSelector('body[data-loaded="alpha/L/alpha_L_2@2"]', { timeout: 120_000 });
    await expect(page.locator('#status').textContent()).resolves.toContain('alpha_L_2.trial2.sbtrace');
    await page.close();
  });
});
