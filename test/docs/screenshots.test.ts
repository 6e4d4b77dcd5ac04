import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
} from '../../scripts/screenshot-pages.js';
import { launchChromium } from '../helpers/browser.js';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { SBEVAL_BIN } from '../helpers/sbeval-bin.js';
import { scoredExample, type Workspace, workspace } from '../orchestrator/helpers/result-folder.js';

/**
 * The README's pictures show what the current code shows. Pixels depend on fonts, so the pictures come
 * with a record of what each shows as text (docs/images/screenshots.json, written by
 * scripts/make-screenshots.ts with each picture's sha256); this test opens the same pages the same way
 * from the current code — the report of the suite's shared scored example (the same run: the example,
 * 3 trials, TINY_VIT), `sbeval view` on the trace of its collapsing T, `sbeval play` on that trial's
 * response with the same model, both at the same step — reads the same facts, and compares.
 */
const IMAGES = join(PROJECT_ROOT, 'docs', 'images');
const REGENERATE = "the README's pictures are out of date: run npx tsx scripts/make-screenshots.ts (and commit docs/images/)";

interface Shot {
  png: string;
  sha256: string;
  facts: PageFacts;
}

let ws: Workspace;
let root: string;
let browser: Browser;
let record: Record<string, Shot | undefined>;

beforeAll(async () => {
  const file = join(IMAGES, 'screenshots.json');
  record = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, Shot>) : {};
  ws = workspace('sbeval-screenshots-');
  root = await scoredExample(ws);
  await execa(process.execPath, [SBEVAL_BIN, 'level', VIEWER_LEVEL, '--trace', VIEWER_TRACE], { cwd: root });
  browser = await launchChromium();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  ws?.restore();
});

/** The facts of an opened page, the page closed (with its server) whatever happens. */
async function factsOf(open: OpenPage, read: (page: OpenPage['page']) => Promise<PageFacts>): Promise<PageFacts> {
  try {
    return await read(open.page);
  } finally {
    await open.close();
  }
}

function expectShot(name: string, facts: PageFacts): void {
  const shot = record[name];
  expect(shot, `docs/images/screenshots.json has no record of the ${name} picture: ${REGENERATE}`).toBeDefined();
  const drift = factDrift(facts, shot!.facts);
  expect(drift, `the ${name} page no longer shows what docs/images/${shot!.png} shows: ${REGENERATE}`).toEqual([]);
  const png = join(IMAGES, shot!.png);
  const sha256 = existsSync(png) ? createHash('sha256').update(readFileSync(png)).digest('hex') : '(missing)';
  expect(sha256, `docs/images/${shot!.png} is not the picture the record was made with: ${REGENERATE}`).toBe(shot!.sha256);
}

/** A number as the page prints it, with its sign and decimals. */
const NUMBER = /-?\d+(?:\.\d+)?/g;

/**
 * Where the page's facts differ from the record's: the words exactly, each number within one unit of
 * its last printed digit or 1e-4 of its size. The similarity comes from onnxruntime on this machine's
 * CPU, whose kernels may differ in the last bits of a float32 from the machine that made the record
 * (a 20-decimal competition score shows them); a different score, ranking or layout is still a drift.
 */
function factDrift(facts: PageFacts, recorded: PageFacts): string[] {
  const lines = (f: PageFacts): string[] =>
    Object.entries(f).flatMap(([key, value]) => (Array.isArray(value) ? value : [value]).map((v, i) => `${key}[${i}]: ${v}`));
  const [now, then] = [lines(facts), lines(recorded)];
  const drift: string[] = [];
  for (let i = 0; i < Math.max(now.length, then.length); i += 1) {
    const [a, b] = [now[i] ?? '(none)', then[i] ?? '(none)'];
    if (!sameUpToLastDigits(a, b)) drift.push(`page: ${a}\nrecord: ${b}`);
  }
  return drift;
}

function sameUpToLastDigits(a: string, b: string): boolean {
  if (a.replace(NUMBER, '#') !== b.replace(NUMBER, '#')) return false;
  const [x, y] = [a.match(NUMBER) ?? [], b.match(NUMBER) ?? []];
  return x.every((text, i) => {
    const other = y[i] as string;
    const decimals = Math.max(text.split('.')[1]?.length ?? 0, other.split('.')[1]?.length ?? 0);
    const tolerance = Math.max(10 ** -decimals * 1.01, Math.abs(Number(other)) * 1e-4);
    return Math.abs(Number(text) - Number(other)) <= tolerance;
  });
}

/** What the README says beside the pictures, as the record has it (so the prose cannot drift from the pictures either). */
describe("the README's words about its pictures", () => {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8').replace(/\s*\n\s*/g, ' ');

  it("the viewer: the step it is paused at and the first mover's explanation it quotes", () => {
    const viewer = record.viewer?.facts;
    expect(viewer, `no record of the viewer picture: ${REGENERATE}`).toBeDefined();
    const step = /`sbeval view` on .*?, paused at step (\d+):/.exec(readme)?.[1];
    expect(step).toBe(String(VIEWER_STEP));
    const quote = /names the first mover and why \("([^"]+)"\)/.exec(readme)?.[1];
    expect(quote, "README.md quotes the viewer's explanation").toBeDefined();
    const summary = String(viewer!.summary);
    let from = 0;
    for (const piece of quote!.split('…').map((p) => p.trim())) {
      const at = summary.indexOf(piece, from);
      expect(at, `README.md quotes "${piece}", which the viewer picture does not show after position ${from}: ${summary}`).toBeGreaterThanOrEqual(0);
      from = at + piece.length;
    }
  });

  it("the playground: the verdict its picture's description names", () => {
    const verdict = String(record.playground?.facts.verdict);
    const [, stability, moving, objects] = /stability ([\d.]+) with (\d+) of (\d+) moving/.exec(readme) ?? [];
    expect(stability, "README.md names the playground picture's verdict").toBeDefined();
    expect(verdict).toContain(`stability ${stability} — ${moving} of ${objects} objects moving`);
  });
});

describe("the README's pictures show the current code", { timeout: 300_000 }, () => {
  it('the report: title, settings, winner, ranking bars with their intervals, headings, levels at a glance', async () => {
    const facts = await factsOf(await openReport(browser, join(root, 'result', 'report.html')), reportFacts);
    // The facts are what the picture is for: a ranking with whiskers and a winner sentence.
    expect(facts.ranking).toHaveLength(3);
    for (const bar of facts.ranking!) expect(bar).toMatch(/95 % interval/);
    expect(facts.winner![0]).toMatch(/^Winner: /);
    expectShot('report', facts);
  });

  it('the viewer on the collapsing T at step 60: the trace, the step, the explanation, the blocks, the timeline', async () => {
    const facts = await factsOf(await openViewer(browser, SBEVAL_BIN, root, VIEWER_STEP), (page) => viewerFacts(page, root));
    expect(facts.clock).toEqual([expect.stringMatching(`^step ${VIEWER_STEP} `)]);
    expectShot('viewer', facts);
  });

  it("the playground on that trial's response with the same model at the same step: stages, verdict, similarity, probabilities, blocks", async () => {
    const response = readFileSync(join(root, PLAY_RESPONSE), 'utf8');
    const facts = await factsOf(await openPlayground(browser, SBEVAL_BIN, response, ws.model, VIEWER_STEP), playgroundFacts);
    expect(facts.probabilities).toHaveLength(27);
    expectShot('playground', facts);
  });
});
