import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeMaskPng } from '../../../bridge/headless/png.js';
import { krippendorffAlpha, spearman } from '../../../llm/judges/scoring/agreement.js';
import { runSbeval } from '../../helpers/cli.js';
import { type FakeCall, FakeOllama } from '../../helpers/fake-ollama.js';
import { writeTeam } from '../../scoring/write-team.js';

/**
 * Two judge models on one folder: one through Ollama's API, one through an OpenAI-style API
 * (the fake's `/v1`, with a key from $OPENAI_API_KEY), each in its own folder with no `--force`; then
 * `sbeval score` shows both in the report's Judges section, with the team means' intervals and the
 * agreement between them, which is recomputed here from the two judges' scores.
 */
const TEAMS = ['Alpha', 'Beta', 'Gamma'];
const KEY = 'sk-test-0123456789abcdef';

/** A small PNG, different for every level (a row of black pixels whose length is the seed). */
function png(seed: number): Uint8Array {
  const width = 32;
  const rowBytes = 1 + width / 8;
  const scanlines = new Uint8Array(rowBytes * width).fill(0xff);
  for (let row = 0; row < width; row += 1) scanlines[row * rowBytes] = 0;
  for (let x = 0; x < seed; x += 1) scanlines[10 * rowBytes + 1 + (x >> 3)]! &= ~(0x80 >> (x & 7));
  return encodeMaskPng({ width, height: width, rowBytes, scanlines });
}

/** Scores the shipped rubric can give (one 100-item, two 50-items, two 25-items). */
const REACHABLE = [0, 25, 50, 100];

/** What each judge gives a level, from its image: the two judges agree mostly, not always. */
function scoreOf(image: string, judge: 'ollama' | 'openai'): number {
  const d = createHash('sha256').update(image).digest();
  const k = d[0]! % 4;
  return REACHABLE[judge === 'openai' && d[1]! % 3 === 0 ? (k + 2) % 4 : k]!;
}

function answer(call: FakeCall): string {
  const image = call.messages.find((m) => m.role === 'user')!.images![0]!;
  const score = scoreOf(image, call.api);
  return `<analysis>\nLooked at the level.\n</analysis>\n<score>${score}</score>`;
}

let base: string;
let root: string;
let ollama: FakeOllama;
let openai: FakeOllama;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'sbeval-two-judges-'));
  root = join(base, 'c');
  const sims: Record<string, number[]> = { Alpha: [0.91, 0.62, 0.33, 0.7], Beta: [0.84, 0.27, 0.55, 0.1], Gamma: [0.12, 0.77, 0.48, 0.9] };
  TEAMS.forEach((team, t) => {
    writeTeam(root, team, { I: { stability: [1, 1, 0.5, 1], similarity: sims[team]!, diversity: 0.5 } });
    mkdirSync(join(root, team, 'images', 'I'), { recursive: true });
    for (let trial = 1; trial <= 4; trial += 1) writeFileSync(join(root, team, 'images', 'I', `${team}_I_${trial}.png`), png(1 + t * 8 + trial));
  });
  ollama = await new FakeOllama({ models: ['llava:13b'], answer }).start();
  openai = await new FakeOllama({ models: ['gpt-4o'], answer, apiKey: KEY }).start();
}, 60_000);

afterAll(async () => {
  await ollama?.stop();
  await openai?.stop();
  if (base) rmSync(base, { recursive: true, force: true });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('two judges, two APIs, one folder', () => {
  it('judges with each, and the report shows both, their intervals and their agreement', async () => {
    const first = await runSbeval(['judge', 'rubric', root, '--judge', 'llava:13b', '--hosts', ollama.url]);
    expect(first.exitCode, first.stderr).toBe(0);
    const second = await runSbeval(['judge', 'rubric', root, '--judge', 'gpt-4o', '--api', 'openai', '--hosts', `${openai.url}/v1`], {
      env: { OPENAI_API_KEY: KEY },
    });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(ollama.answered().map((c) => c.api)).toEqual(Array(12).fill('ollama'));
    expect(openai.answered().map((c) => [c.api, c.authorization])).toEqual(Array(12).fill(['openai', `Bearer ${KEY}`]));
    for (const team of TEAMS) expect(readdirSync(join(root, team, 'judge-rubric')).sort()).toEqual(['gpt-4o', 'llava_13b']);
    const scores = (api: 'ollama' | 'openai', team: string) =>
      [1, 2, 3, 4].map((trial) => scoreOf(Buffer.from(readFileSync(join(root, team, 'images', 'I', `${team}_I_${trial}.png`))).toString('base64'), api));
    // The key is in no file the judges wrote.
    for (const file of filesUnder(root)) expect(readFileSync(file, 'latin1').includes(KEY), file).toBe(false);

    // Two raters rated the same levels (a survey written here in the shape `survey build` writes).
    const out = join(root, 'result', 'survey');
    mkdirSync(join(out, 'answers'), { recursive: true });
    const levels = TEAMS.flatMap((team) => [1, 2, 3, 4].map((trial) => ({ team, trial, name: `${team}_I_${trial}` })));
    const items = levels.map((l, i) => ({
      id: `item-${String(i + 1).padStart(2, '0')}`,
      team: l.team,
      letter: 'I',
      trial: l.trial,
      name: l.name,
      start: '',
      final: null,
      grid: null,
      history: [],
      historyNote: null,
      level: `${l.team}/images/I/${l.name}.png`,
      stability: null,
      similarity: null,
    }));
    const metrics = [
      { id: 'looks-like', name: 'Looks like', question: 'q', instructions: 'i', notPenalised: [], penalised: [], scale: { min: 1, max: 5, labels: {} } },
    ];
    writeFileSync(join(out, 'survey.json'), JSON.stringify({ version: 1, title: 't', instructions: '', seed: 7, root: '../..', metrics, items }));
    const rating = (i: number, rater: number) => 1 + ((i * 3 + rater) % 5);
    for (const rater of [1, 2]) {
      mkdirSync(join(out, 'answers', `r${rater}`));
      for (const [i, item] of items.entries())
        writeFileSync(
          join(out, 'answers', `r${rater}`, `${item.id}.json`),
          JSON.stringify({ values: { 'looks-like': rating(i, rater) }, at: '', level: `${item.team}/I/${item.name}` }),
        );
    }
    const collected = await runSbeval(['survey', 'collect', root, '--json']);
    expect(collected.exitCode, collected.stderr).toBe(0);
    const agreement = JSON.parse(collected.stdout).judges as Array<{ a: string; b: string; units: number; statistic: string; value: number }>;
    expect(agreement.map((a) => `${a.a} ~ ${a.b}`)).toEqual([
      'rubric:gpt-4o ~ rubric:llava_13b',
      'rubric:gpt-4o ~ survey:looks-like',
      'rubric:llava_13b ~ survey:looks-like',
    ]);
    for (const api of ['openai', 'ollama'] as const) {
      // A judge (0–100) and the raters (1–5) are on different scales: Spearman's ρ of the judge's score and the raters' mean.
      const row = agreement.find((a) => a.a === `rubric:${api === 'openai' ? 'gpt-4o' : 'llava_13b'}` && a.b === 'survey:looks-like')!;
      expect(row.units).toBe(12);
      expect(row.statistic).toBe('spearman');
      expect(row.value).toBeCloseTo(
        spearman(
          levels.map((l) => scores(api, l.team)[l.trial - 1]!),
          levels.map((_, i) => (rating(i, 1) + rating(i, 2)) / 2),
        )!,
        12,
      );
    }

    const scored = await runSbeval(['score', root, '--rules', '2024', '--trials', '4']);
    expect(scored.exitCode, scored.stderr).toBe(0);
    const report = readFileSync(join(root, 'result', 'report.md'), 'utf8');
    const section = report.slice(report.indexOf('## Judges'));
    expect(section).toContain('| team | official rank | official score | rubric:gpt-4o | rubric:llava\\_13b | survey:looks-like |');
    expect(section).toMatch(/\| rubric:gpt-4o \| survey:looks-like \| 12 \| /);
    for (const team of TEAMS) {
      const row = section.split('\n').find((l) => l.startsWith(`| ${team} |`))!;
      for (const api of ['openai', 'ollama'] as const) {
        const m = scores(api, team).reduce((a, b) => a + b, 0) / 4;
        expect(row, `${team} ${api}`).toMatch(new RegExp(`\\| ${m.toFixed(1)} \\(\\d+\\.\\d–\\d+\\.\\d\\)`));
      }
    }
    // Krippendorff's interval α between the two judges over the 12 levels.
    const units = TEAMS.flatMap((team) => scores('openai', team).map((s, i) => [s, scores('ollama', team)[i]!]));
    const alpha = krippendorffAlpha(units, 'interval').alpha!;
    expect(agreement.find((a) => a.b === 'rubric:llava_13b')?.statistic).toBe('alpha');
    expect(section).toMatch(
      new RegExp(`\\| rubric:gpt-4o \\| rubric:llava\\\\_13b \\| 12 \\| α \\| ${alpha.toFixed(3).replace('.', '\\.')} \\| -?\\d\\.\\d{3}–-?\\d\\.\\d{3} \\|`),
    );
  }, 240_000);
});
