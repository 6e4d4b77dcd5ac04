import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScoreStage } from '../../orchestrator/stages/score-stage.js';
import { launchChromium, openPage } from '../helpers/browser.js';
import { runSbeval } from '../helpers/cli.js';
import { parseCsv } from './golden-competition.js';
import { prng, type TeamSpec, writeTeam } from './write-team.js';

/** The report opens in headless Chromium (Debian `chromium`, or CHROMIUM_PATH) and shows every team and letter. */

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('');
const TEAMS = ['Alpha', 'R&D <lab>', 'zero_shot'];

function spec(seed: number, letters: readonly string[]): TeamSpec {
  const random = prng(seed);
  const out: TeamSpec = {};
  for (const letter of letters) {
    const stability = Array.from({ length: 10 }, () => Math.round(random() * 4) / 4);
    out[letter] = { stability, similarity: stability.map(() => Math.fround(random())), diversity: random() * 0.5 };
  }
  return out;
}

describe('report.html in headless Chromium', () => {
  let root: string;
  let browser: Browser;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'sbeval-score-report-'));
    writeTeam(root, 'Alpha', spec(1, LETTERS));
    writeTeam(root, 'R&D <lab>', spec(2, LETTERS.slice(0, 20)));
    writeTeam(root, 'zero_shot', spec(3, ['A', 'I', 'L']));
    const run = await runSbeval(['score', root, '--rules', '2024', '--baseline', 'zero_shot']);
    expect(run.exitCode, run.stderr).toBe(0);
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('draws a heat map per metric with every team and every letter, values as in character_scores.csv', async () => {
    const page = await openPage(browser);
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    const url = pathToFileURL(join(root, 'result', 'report.html')).href;
    await page.goto(url);
    // Self-contained: the page itself is the only thing loaded.
    expect(requests).toEqual([url]);

    const [, ...characterRows] = parseCsv(readFileSync(join(root, 'result', 'character_scores.csv'), 'utf8'));
    const csv = new Map(characterRows.map((r) => [`${r[0]}|${r[1]}`, r]));
    const columns: Record<string, number> = { stability: 3, similarity: 4, diversity: 5, 'character-score': 2 };
    for (const metric of Object.keys(columns)) {
      const svg = page.locator(`svg.heatmap[data-metric="${metric}"]`);
      await expect(svg.count()).resolves.toBe(1);
      const box = await svg.boundingBox();
      expect(box && box.width > 26 * 20 && box.height > TEAMS.length * 15).toBe(true);
      await expect(svg.locator('text.row-label').allTextContents()).resolves.toEqual(TEAMS);
      await expect(svg.locator('text.col-label').allTextContents()).resolves.toEqual(LETTERS);
      const cells = await svg.locator('rect[data-team]').evaluateAll((rects) =>
        rects.map((r) => ({
          team: r.getAttribute('data-team'),
          char: r.getAttribute('data-char'),
          value: r.getAttribute('data-value'),
          fill: r.getAttribute('fill'),
        })),
      );
      expect(cells).toHaveLength(TEAMS.length * 26);
      for (const team of TEAMS)
        for (const char of LETTERS) {
          const cell = cells.find((c) => c.team === team && c.char === char);
          expect(cell, `${metric} ${team} ${char}`).toBeDefined();
          expect(Number(cell?.value)).toBe(Number(csv.get(`${team}|${char}`)?.[columns[metric] as number]));
        }
      // Cells with values differ in colour from empty ones (not everything painted the same).
      expect(new Set(cells.map((c) => c.fill)).size).toBeGreaterThan(3);
    }
    await expect(page.locator('table.ranking tbody tr').count()).resolves.toBe(TEAMS.length);
    await expect(page.locator('h1').textContent()).resolves.toContain('2024 rules');
    await page.close();
  }, 60_000);

  it('takes extra sections (markdown + html) for other stages, e.g. failure accounting', async () => {
    const result = await runScoreStage({
      root,
      rules: '2024',
      baseline: 'zero_shot',
      sections: [
        {
          id: 'trials',
          title: 'Trial failures',
          markdown: '| reason | count |\n| --- | --- |\n| Code not found. | 3 |',
          html: '<table class="failures"><tr><td>Code not found.</td><td>3</td></tr></table>',
        },
      ],
    });
    expect(result.winners.winners.length).toBe(1);
    const md = readFileSync(join(root, 'result', 'report.md'), 'utf8');
    expect(md).toContain('## Trial failures\n\n| reason | count |');
    const page = await openPage(browser);
    await page.goto(pathToFileURL(join(root, 'result', 'report.html')).href);
    await expect(page.locator('section#trials table.failures td').first().textContent()).resolves.toBe('Code not found.');
    await page.close();
  }, 60_000);
});
