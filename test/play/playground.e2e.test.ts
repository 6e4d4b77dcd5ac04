import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePng } from '../../bridge/headless/png.js';
import { parseSimilarityJson } from '../../scoring/formats/similarity.js';
import { launchChromium, openPage } from '../helpers/browser.js';
import { PROJECT_ROOT, spawnSbeval, until } from '../helpers/cli.js';
import { sbevalInProcess } from '../orchestrator/helpers/in-process-cli.js';
import { scoredExample, type Workspace, workspace } from '../orchestrator/helpers/result-folder.js';

/**
 * The playground (`sbeval play`) in real Chromium against the command line: the page's verdicts —
 * moving counts, stability, the decoded pixels of the evaluator's image — equal `sbeval level`'s on the
 * 90 shipped reference levels and on the example's levels (pasted as the LLM responses they came from);
 * the example's 8 failures show the reasons the official stages logged; with the tiny random ViT
 * chosen as the model file, the page's 26 probabilities equal `sbeval similarity`'s. Every level is
 * evaluated in one page, through the function the Evaluate button calls.
 */

interface LevelVerdict {
  score: number;
  startingObjects: number;
  movingObjects: number;
  trials: Array<{ score: number; movingObjects: number; moving: number[] }>;
  imageSha256: string;
}

interface PageVerdict extends Partial<LevelVerdict> {
  ok: boolean;
  stage?: string;
  reason?: string;
  similarity: { probabilities: number[] } | null;
}

let ws: Workspace;
let scored: string;
let browser: Browser;
let page: Page;
let server: ReturnType<typeof spawnSbeval>;
let url = '';
const levelVerdicts = new Map<string, LevelVerdict>();

function xmlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...xmlFiles(path));
    else if (entry.name.endsWith('.xml')) out.push(path);
  }
  return out.sort();
}

/** `sbeval level <xml> --json --image <png>`: its verdict and the SHA-256 of its image's decoded RGBA pixels. */
async function sbevalLevel(xml: string): Promise<LevelVerdict> {
  const png = join(ws.dir, 'images', `${levelVerdicts.size}.png`);
  const result = await sbevalInProcess(['level', xml, '--json', '--image', png]);
  expect(result.code, result.stderr).toBe(0);
  const json = JSON.parse(result.stdout) as LevelVerdict;
  const { rgba } = await decodePng(readFileSync(png));
  return {
    score: json.score,
    startingObjects: json.startingObjects,
    movingObjects: json.movingObjects,
    trials: json.trials,
    imageSha256: createHash('sha256').update(rgba).digest('hex'),
  };
}

/** Every text through the page's Evaluate function, in one page, in order. */
function evaluateInPage(target: Page, items: Array<{ text: string; kind: string }>): Promise<PageVerdict[]> {
  return target.evaluate(async (list) => {
    const run = (window as unknown as { sbevalPlay: { run(text: string, kind: string): Promise<PageVerdict> } }).sbevalPlay.run;
    const out: PageVerdict[] = [];
    for (const item of list) out.push(await run(item.text, item.kind));
    return out;
  }, items);
}

const verdictOf = (v: PageVerdict | LevelVerdict) => ({
  score: v.score,
  startingObjects: v.startingObjects,
  movingObjects: v.movingObjects,
  trials: v.trials,
  imageSha256: v.imageSha256,
});

const REFERENCE = join(PROJECT_ROOT, 'calibration', 'reference-levels');

/** The example's responses: `<team>/raw/<C>/<name>.txt` with the level the official stages made of it, or their logged reason. */
function exampleTrials(): Array<{ name: string; letter: string; team: string; response: string; level: string | undefined; reason: string | undefined }> {
  const reasons = new Map<string, string>();
  for (const log of readdirSync(join(scored, 'logs')))
    for (const m of readFileSync(join(scored, 'logs', log), 'utf8').matchAll(/trial: (\S+)\.txt - Failed - (.+)$/gm)) reasons.set(m[1]!, m[2]!);
  const out = [];
  for (const team of readdirSync(scored)
    .filter((t) => existsSync(join(scored, t, 'raw')))
    .sort())
    for (const letter of readdirSync(join(scored, team, 'raw')).sort())
      for (const file of readdirSync(join(scored, team, 'raw', letter)).sort()) {
        const name = file.replace(/\.txt$/, '');
        const level = join(scored, team, 'levels', letter, `${name}.xml`);
        out.push({
          name,
          letter,
          team,
          response: readFileSync(join(scored, team, 'raw', letter, file), 'utf8'),
          level: existsSync(level) ? level : undefined,
          reason: reasons.get(name),
        });
      }
  return out;
}

beforeAll(async () => {
  ws = workspace('sbeval-play-');
  scored = await scoredExample(ws);
  mkdirSync(join(ws.dir, 'images'));
  const levels = [...xmlFiles(REFERENCE), ...xmlFiles(scored).filter((p) => relative(scored, p).split('/')[1] === 'levels')];
  for (const level of levels) levelVerdicts.set(level, await sbevalLevel(level));
  server = spawnSbeval(['play']);
  let stdout = '';
  server.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  await until(() => /http:\/\/\S+\//.test(stdout), 'sbeval play printed its URL', server);
  url = /http:\/\/\S+\//.exec(stdout)![0];
  browser = await launchChromium();
  page = await openPage(browser);
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
}, 900_000);

afterAll(async () => {
  await browser?.close();
  server?.kill('SIGTERM');
  await server?.catch(() => undefined);
  ws?.restore();
});

describe('sbeval play in Chromium', () => {
  it("gives sbeval level's verdicts and image pixels on the 90 shipped reference levels", async () => {
    const files = xmlFiles(REFERENCE);
    expect(files).toHaveLength(90);
    const verdicts = await evaluateInPage(
      page,
      files.map((f) => ({ text: readFileSync(f, 'utf8'), kind: 'xml' })),
    );
    files.forEach((file, i) => {
      expect(verdicts[i]!.ok, `${file}: ${verdicts[i]!.reason}`).toBe(true);
      expect(verdictOf(verdicts[i]!), file).toEqual(verdictOf(levelVerdicts.get(file)!));
    });
    // Not all alike: the reference levels hold collapsing and standing structures.
    expect(new Set(verdicts.map((v) => v.score)).size).toBeGreaterThan(1);
  });

  it("pasted responses of the example: sbeval level's verdicts on their levels, the official reasons of the 8 failures, sbeval similarity's probabilities", async () => {
    await page.setInputFiles('#model', ws.model);
    await page.waitForFunction(() => /^model /.test(document.getElementById('model-status')?.textContent ?? ''));
    const trials = exampleTrials();
    const verdicts = await evaluateInPage(
      page,
      trials.map((t) => ({ text: t.response, kind: 'response' })),
    );
    const failures = trials.filter((t) => t.level === undefined);
    expect(failures).toHaveLength(8);
    trials.forEach((t, i) => {
      const v = verdicts[i]!;
      if (!t.level) {
        expect(t.reason, t.name).toBeDefined();
        expect([v.ok, v.reason], t.name).toEqual([false, t.reason]);
        return;
      }
      expect(v.ok, `${t.name}: ${v.reason}`).toBe(true);
      expect(verdictOf(v), t.name).toEqual(verdictOf(levelVerdicts.get(t.level)!));
      const file = parseSimilarityJson(readFileSync(join(scored, t.team, 'similarity', `${t.letter}.json`), 'utf8'));
      const expected = file.similarities.find((s) => s.id === `${t.name}.png`)!.raws.map((r) => r.softmax_prob);
      expect(v.similarity?.probabilities, t.name).toHaveLength(26);
      v.similarity!.probabilities.forEach((p, k) => {
        expect(Math.abs(p - expected[k]!), `${t.name} ${String.fromCharCode(65 + k)}`).toBeLessThanOrEqual(1e-5);
      });
    });
  });

  it('sbeval play --out writes the same page, which evaluates from file:// with no request outside its folder', async () => {
    const out = join(ws.dir, 'site');
    const result = await sbevalInProcess(['play', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    const local = await openPage(browser);
    const requests: string[] = [];
    local.on('request', (r) => requests.push(r.url()));
    const folder = pathToFileURL(`${out}/`).href;
    await local.goto(`${folder}index.html`);
    await local.waitForFunction(() => document.body.dataset.ready === 'true');
    const file = xmlFiles(REFERENCE)[0]!;
    const [verdict] = await evaluateInPage(local, [{ text: readFileSync(file, 'utf8'), kind: 'auto' }]);
    expect(verdictOf(verdict!)).toEqual(verdictOf(levelVerdicts.get(file)!));
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((r) => !r.startsWith(folder) && !r.startsWith('data:'))).toEqual([]);
    // The level is in the fragment: the link opens it again.
    const linked = await openPage(browser);
    await linked.goto(local.url());
    await linked.waitForFunction(() => /^stability /.test(document.getElementById('verdict')?.textContent ?? ''));
    expect(await linked.textContent('#verdict')).toBe(await local.textContent('#verdict'));
    await Promise.all([local.close(), linked.close()]);
  });
});
