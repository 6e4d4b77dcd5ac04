import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeRandomVit } from '../../scripts/make-random-vit.js';
import { runSbeval } from '../helpers/cli.js';
import { parseCsv } from '../scoring/golden-competition.js';
import { exampleCopy } from './helpers/competition.js';

/**
 * The report and the run summary say only true things (docs/report-truth.md), checked on what a user gets
 * from `sbeval run <root> --model <model>` on the example competition (5 letters, 3 teams, T left at
 * its default so the run warns that it found only 3 trials per letter):
 * - the heat maps draw the competition's 5 letters, not 26 with 21 hatched, and say that the prompt
 *   score still divides by 26;
 * - each letter has one stability average, the official Σ/T, under one name: the gallery's team rows
 *   show the heat map's number (on 04b30a7 they showed "mean sta 1.00" beside the map's .20 for a
 *   letter with trials that never became levels);
 * - the summary repeats every warning the run printed and ends with the ranking and the winner.
 * The similarity model is a tiny random ViT (the official weights are not available here).
 */
let model: string;
let root: string;
let stdout: string;
let stderr: string;

beforeAll(async () => {
  model = writeRandomVit(mkdtempSync(join(tmpdir(), 'sbeval-truth-vit-')), {
    layers: 1,
    hidden: 32,
    heads: 2,
    intermediate: 64,
    image: 32,
    patch: 16,
    labels: 26,
    seed: 5,
  }).onnx;
  root = exampleCopy({ config: '# the defaults: T = 10\n' });
  const run = await runSbeval(['run', root, '--model', model, '--workers', '2']);
  expect(run.exitCode, run.stderr).toBe(0);
  stdout = run.stdout;
  stderr = run.stderr;
}, 600_000);

/** The cells of one heat map: team → letter → data-value. */
function heatMap(html: string, metric: string): { columns: string[]; values: Map<string, string> } {
  const svg = new RegExp(`<svg[^>]*class="heatmap" data-metric="${metric}"[\\s\\S]*?</svg>`).exec(html)?.[0] ?? '';
  const columns = [...svg.matchAll(/class="col-label"[^>]*>([^<]*)</g)].map((m) => m[1]!);
  const values = new Map([...svg.matchAll(/data-team="([^"]*)" data-char="([^"]*)" data-value="([^"]*)"/g)].map((m) => [`${m[1]}|${m[2]}`, m[3]!]));
  return { columns, values };
}

describe('sbeval run: what the report and the summary say', () => {
  it("draws the heat maps over the competition's letters only", () => {
    const html = readFileSync(join(root, 'result', 'report.html'), 'utf8');
    for (const metric of ['stability', 'similarity', 'diversity', 'character-score']) {
      const map = heatMap(html, metric);
      expect(map.columns, metric).toEqual(['I', 'L', 'O', 'T', 'U']);
      expect(map.values.size, metric).toBe(3 * 5);
    }
    expect(html).not.toContain('data-char="A"');
    const note = 'Letters of this competition: I, L, O, T, U. The prompt score divides by 26 (the official scoring), so each of the 21 other letters counts 0.';
    expect(html).toContain(note);
    const md = readFileSync(join(root, 'result', 'report.md'), 'utf8');
    expect(md).toContain(note);
    expect(md).toMatch(/\| team \| I \| L \| O \| T \| U \|\n/);
    expect(md).not.toMatch(/\| team \| A \| B \|/);
  });

  it('shows one stability average per letter, the official one, under one name', () => {
    const html = readFileSync(join(root, 'result', 'report.html'), 'utf8');
    const [, ...rows] = parseCsv(readFileSync(join(root, 'result', 'character_scores.csv'), 'utf8'));
    const stability = heatMap(html, 'stability');
    expect(html).toContain(
      '<h3>Stability: average stability = Σ over trials 1…T ÷ T (a missing trial counts 0; nonWeightedAverageStabilityScore in character_scores.csv)</h3>',
    );
    expect(html).not.toMatch(/mean sta|mean sim/);
    let differs = 0;
    for (const [team, letter, , average] of rows) {
      if (!['I', 'L', 'O', 'T', 'U'].includes(letter!)) continue;
      // The map's cell and the gallery's row hold the official Σ/T of character_scores.csv.
      expect(Number(stability.values.get(`${team}|${letter}`)), `${team} ${letter}`).toBe(Number(average));
      const section = html.slice(html.indexOf(`<section class="gallery-letter" id="letter-main-${letter}"`));
      const row = new RegExp(`data-team="${team}"><div class="team-head"><b>${team}</b><br><small>[^<]*<br>average stability ([0-9.–]+)<br>`).exec(section);
      expect(row?.[1], `${team} ${letter} gallery row`).toBe(Number(average).toFixed(2));
      // Where some trials have no stability, a mean over the others would differ: the row does not show one.
      const trials = [
        ...section
          .slice(0, section.indexOf('</section>'))
          .matchAll(new RegExp(`data-team="${team}" data-letter="${letter}" data-trial="\\d+"(?: data-image="[^"]*")? data-stability="([^"]*)"`, 'g')),
      ];
      const mean = trials.reduce((sum, m) => sum + Number(m[1]), 0) / Math.max(1, trials.length);
      if (trials.length > 0 && mean.toFixed(2) !== Number(average).toFixed(2)) differs += 1;
    }
    expect(differs).toBeGreaterThan(0);
  });

  it('repeats every warning it printed in its summary, and ends with the ranking and the winner', () => {
    const summary = stdout.slice(stdout.indexOf('sbeval run: finished'));
    const listed = summary
      .split('\n')
      .filter((l) => l.startsWith('  - '))
      .map((l) => l.slice(4));
    expect(summary).toContain(`${listed.length} warning(s), as printed above, also listed in result/report.md:`);
    // Warnings the run printed while it worked: the stage warnings and the score's.
    const printed = stderr
      .split('\n')
      .filter((l) => /\] accounting: expecting|warning \[/.test(l))
      .map((l) => l.replace(/^\[[^\]]*\] /, ''));
    expect(printed.length).toBeGreaterThan(0);
    for (const line of printed)
      expect(
        listed.some((w) => line.endsWith(w) || line === w),
        line,
      ).toBe(true);
    expect(listed.some((w) => w.startsWith('accounting: expecting 10 trials per character'))).toBe(true);

    // The last lines: the ranking of result/prompt_scores_ranks.csv, in rank order, then the winner.
    const [, ...ranks] = parseCsv(readFileSync(join(root, 'result', 'prompt_scores_ranks.csv'), 'utf8'));
    const lines = stdout.trimEnd().split('\n');
    const start = lines.findIndex((l) => l.startsWith('ranking (result/prompt_scores_ranks.csv'));
    expect(start).toBeGreaterThan(lines.findIndex((l) => l.startsWith('run log:')));
    const ranked = lines.slice(start + 1, start + 1 + ranks.length);
    expect(ranked).toEqual([...ranks].sort((a, b) => Number(a[3]) - Number(b[3])).map((r) => `  ${String(r[3]).padStart(2)}. ${r[0]}  ${r[1]}`));
    const tail = lines.slice(start + 1 + ranks.length);
    expect(tail[0]).toMatch(/^ {2}(winner: \S+|co-winners: .+|no winner)$/);
    // Only the winner's notes follow.
    expect(tail.slice(1).every((l) => l.startsWith('  ') && !l.startsWith('  - '))).toBe(true);
  });
});
