import { describe, expect, it } from 'vitest';
import { rankingBarsSvg } from '../../scoring/report/bars.js';
import { buildReport, competitionGrids, rankingBars } from '../../scoring/report/build.js';
import { bestTrial, type Gallery, type GalleryTrial, galleryLettersHtml, galleryMarkdown, galleryOverviewHtml } from '../../scoring/report/gallery.js';
import { compactNumber, heatColor, heatMapSvg, scaleOf } from '../../scoring/report/heatmap.js';
import { scoreCompetition } from '../../scoring/score/compute.js';
import { RULE_SETS } from '../../scoring/score/rules.js';
import type { CharacterInput, ScoreInput } from '../../scoring/score/types.js';
import { rankHeatMap } from '../../scoring/uncertainty/report.js';

/** The report's pictures as pure functions: heat-map scales and missing marks, the bar chart, the gallery. */

const PIXEL = 'data:image/png;base64,iVBORw0KGgo=';

function trial(team: string, letter: string, n: number, extra: Partial<GalleryTrial> = {}): GalleryTrial {
  return { team, letter, trial: String(n), ...extra };
}

describe('heat maps', () => {
  it('scale each metric from its own lowest to highest value, leaving missing cells out', () => {
    expect(
      scaleOf([
        [0.001, 0.004],
        [0.006, NaN],
      ]),
    ).toEqual({ min: 0.001, max: 0.006 });
    expect(scaleOf([[0.5, 9]], [[false, true]])).toEqual({ min: 0, max: 0.5 });
    expect(scaleOf([[NaN]])).toEqual({ min: 0, max: 1 });
    expect(scaleOf([[0, 0]])).toEqual({ min: 0, max: 1 });
  });

  it('draw missing data hatched with a dash and a real 0 in the scale colour with its value', () => {
    const svg = heatMapSvg({
      metric: 'diversity',
      title: 'D',
      rows: ['a', 'b'],
      columns: ['A', 'B'],
      values: [
        [0, 0.006],
        [0.003, 0],
      ],
      missing: [
        [false, false],
        [false, true],
      ],
    });
    const cell = (team: string, char: string) =>
      new RegExp(`<rect [^>]*fill="([^"]+)" data-team="${team}" data-char="${char}" data-value="([^"]*)" data-missing="(true|false)"`).exec(svg);
    const zero = cell('a', 'A');
    const missing = cell('b', 'B');
    expect(zero?.[1]).toBe(heatColor(0, { min: 0, max: 0.006 }));
    expect(zero?.[3]).toBe('false');
    expect(missing?.[1]).toBe('url(#hatch-diversity)');
    expect(missing?.[3]).toBe('true');
    // The best value is drawn darkest (white text on it); the value is printed in its cell.
    expect(cell('a', 'B')?.[1]).toBe('rgb(8,48,107)');
    expect(svg).toMatch(/<text class="cell-value on-dark"[^>]*>\.006<\/text>/);
    expect(svg).toContain('<pattern id="hatch-diversity"');
    expect(svg).toContain('no data (counts as 0)');
  });

  it('name "no data" in the legend only when a cell has no data (a rank-probability map never has one)', () => {
    const full = heatMapSvg({ metric: 'stability', title: 'S', rows: ['a'], columns: ['A', 'B'], values: [[0, 0.5]] });
    expect(full).not.toContain('no data');
    expect(full).not.toContain('legend-missing');
    expect(full).not.toContain('<pattern');
    const ranks = rankHeatMap({
      resamples: 10,
      seed: 1,
      teams: [
        {
          team: 'a',
          rank: 1,
          promptScore: '0.2',
          normalizedPromptScore: '66.6',
          low: 0.1,
          high: 0.3,
          normLow: 50,
          normHigh: 80,
          jointLow: 45,
          jointHigh: 85,
          rankSet: [1, 2],
          mcError: 0.01,
          normMcError: 1,
          rankProbability: [0.9, 0.1],
          win: 0.9,
        },
        {
          team: 'b',
          rank: 2,
          promptScore: '0.1',
          normalizedPromptScore: '33.3',
          low: 0.05,
          high: 0.2,
          normLow: 20,
          normHigh: 50,
          jointLow: 15,
          jointHigh: 55,
          rankSet: [1, 2],
          mcError: 0.01,
          normMcError: 1,
          rankProbability: [0.1, 0.9],
          win: 0.1,
        },
      ],
      pairs: [],
      clearWinner: false,
      winnerSet: ['a', 'b'],
      sentence: 'no clear winner: a 90 %, b 10 %',
      noWinner: 0,
    });
    expect(ranks).toMatch(/data-metric="rank-probability"/);
    expect(ranks).not.toContain('no data');
    // A value that is not a number is a cell without data: then the legend names it.
    const gap = heatMapSvg({ metric: 'stability', title: 'S', rows: ['a'], columns: ['A', 'B'], values: [[0, NaN]] });
    expect(gap).toContain('class="legend-missing"');
    expect(gap).toContain('no data (counts as 0)');
  });

  it('print values short enough for a cell', () => {
    expect([0, 1, 0.82, 0.047, 0.006, 0.0004, 0.00007079, 1.5, 59.78].map(compactNumber)).toEqual([
      '0',
      '1',
      '.82',
      '.047',
      '.006',
      '4e-4',
      '7e-5',
      '1.5',
      '60',
    ]);
  });

  it('mark a letter missing when its file was not there, and a character score when none of its files was', () => {
    const cells = new Map<string, CharacterInput>([
      ['A', { stability: [{ trial: 1, name: 'a_A_1.xml', value: 0 }], similarity: [{ trial: 1, name: 'a_A_1.png', value: 0 }], diversityRate: 0 }],
      ['B', { stability: [{ trial: 1, name: 'a_B_1.xml', value: 1 }] }],
    ]);
    const input: ScoreInput = { teams: ['a'], inputs: new Map([['a', cells]]), trials: 1 };
    const grids = competitionGrids(scoreCompetition(input, RULE_SETS['2024']), input);
    const at = (metric: string, letter: string) => grids.find((g) => g.metric === metric)!.missing[0]![letter.charCodeAt(0) - 65];
    // A: real zeros everywhere; B: stability only; C: nothing.
    expect(['stability', 'similarity', 'diversity', 'character-score'].map((m) => at(m, 'A'))).toEqual([false, false, false, false]);
    expect(['stability', 'similarity', 'diversity', 'character-score'].map((m) => at(m, 'B'))).toEqual([false, true, true, false]);
    expect(['stability', 'similarity', 'diversity', 'character-score'].map((m) => at(m, 'C'))).toEqual([true, true, true, true]);
  });
});

describe('ranking bar chart', () => {
  it('draws one bar per team in rank order, lengths proportional to the score, the winner and baselines marked', () => {
    const bars = rankingBars(
      [
        { team: 'b', rank: 1, normalizedPromptScore: '60.5', role: 'team' },
        { team: 'base', rank: 2, normalizedPromptScore: '30.25', role: 'zero-shot baseline' },
        { team: 'a <x>', rank: 3, normalizedPromptScore: '9.25', role: 'team' },
      ],
      ['b'],
    );
    const svg = rankingBarsSvg(bars, 'ranking');
    const found = [
      ...svg.matchAll(
        /<g class="bar" data-team="([^"]+)"[^>]*data-winner="(true|false)">\n[^\n]*\n<rect class="bar-fill" x="[\d.]+" y="[\d.]+" width="([\d.]+)"[^>]*fill="([^"]+)"/g,
      ),
    ];
    expect(found.map((m) => m[1])).toEqual(['b', 'base', 'a &lt;x&gt;']);
    expect(found.map((m) => m[2])).toEqual(['true', 'false', 'false']);
    const widths = found.map((m) => Number(m[3]));
    expect(widths[1]! / widths[0]!).toBeCloseTo(30.25 / 60.5, 6);
    expect(widths[2]! / widths[0]!).toBeCloseTo(9.25 / 60.5, 6);
    expect(new Set(found.map((m) => m[4])).size).toBe(3);
    expect(svg).toContain('60.50 ★ winner');
    expect(svg).toContain('30.25 (zero-shot baseline)');
  });

  it('splits a bar into one part per model', () => {
    const svg = rankingBarsSvg(
      rankingBars(
        [
          {
            team: 't',
            rank: 1,
            normalizedPromptScore: '100',
            role: 'team',
            segments: [
              { name: 'm1', value: 75 },
              { name: 'm2', value: 25 },
            ],
          },
        ],
        [],
      ),
      'r',
    );
    const widths = [...svg.matchAll(/<rect class="segment" x="[\d.]+" y="[\d.]+" width="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(widths).toHaveLength(2);
    expect(widths[0]! / widths[1]!).toBeCloseTo(3, 6);
    expect(svg).toContain('>m2</text>');
  });
});

describe('gallery', () => {
  const gallery: Gallery = {
    teams: ['Zeta', 'R&D <lab>'],
    thumbnailSize: 80,
    trials: [
      trial('Zeta', 'A', 2, { image: 'Zeta_A_2.png', imageHref: '../Zeta/images/A/Zeta_A_2.png', thumbnail: `${PIXEL}#2`, stability: 1, similarity: 0.5 }),
      trial('Zeta', 'A', 1, { image: 'Zeta_A_1.png', imageHref: '../Zeta/images/A/Zeta_A_1.png', thumbnail: `${PIXEL}#1`, stability: 0.5, similarity: 0.9 }),
      trial('Zeta', 'A', 10, { reason: 'Code not found.' }),
      trial('R&D <lab>', 'A', 1, { reason: 'Height boundary is intruded.' }),
      trial('R&D <lab>', 'B', 1, { image: 'x.png', thumbnail: `${PIXEL}#b`, stability: 0 }),
    ],
  };

  it('shows the best trial per team and letter: highest similarity, then stability', () => {
    expect(bestTrial(gallery.trials.filter((t) => t.team === 'Zeta'))?.trial).toBe('1');
    expect(
      bestTrial([
        trial('t', 'A', 1, { thumbnail: PIXEL, similarity: 0.5, stability: 0.2 }),
        trial('t', 'A', 2, { thumbnail: PIXEL, similarity: 0.5, stability: 0.9 }),
      ])?.trial,
    ).toBe('2');
    expect(bestTrial([trial('t', 'A', 1, { reason: 'Code not found.' })])).toBeUndefined();
    const overview = galleryOverviewHtml(gallery, 'letter-main');
    expect(overview).toContain(`<td class="best" data-team="Zeta" data-letter="A" data-trial="1"`);
    expect(overview).toContain('<span class="count">2/3</span>');
    // A cell whose trials all failed is a blank, escaped names included.
    expect(overview).toContain('<td class="no-image" data-team="R&amp;D &lt;lab&gt;" data-letter="A"');
    expect(overview).not.toContain('<lab>');
  });

  it('lists every trial by letter and team in trial order, failures as blanks with their reason', () => {
    const html = galleryLettersHtml(gallery, 'letter-main');
    const figures = [...html.matchAll(/<figure class="trial( failed)?" data-team="([^"]+)" data-letter="(\w)" data-trial="(\d+)"/g)].map(
      (m) => `${m[2]}/${m[3]}/${m[4]}${m[1] ? ' failed' : ''}`,
    );
    expect(figures).toEqual(['Zeta/A/1', 'Zeta/A/2', 'Zeta/A/10 failed', 'R&amp;D &lt;lab&gt;/A/1 failed', 'R&amp;D &lt;lab&gt;/B/1']);
    expect(html).toContain('data-reason="Code not found."');
    expect(html).toContain('<span class="reason">Height boundary is intruded.</span>');
    expect(html).toContain('<a href="../Zeta/images/A/Zeta_A_1.png"><img src="data:image/png;base64,iVBORw0KGgo=#1" width="80" height="80"');
    expect(html).toContain('sta 0.50<br>sim 0.90');
    expect(html).toContain('id="letter-main-A"');
  });

  it('has a markdown table per letter that links the images and gives the reasons', () => {
    const md = galleryMarkdown(gallery);
    expect(md).toContain('**A**\n\n| team | 1 | 2 | 3 |');
    expect(md).toContain(
      '| Zeta | [#1 sta 0.50 sim 0.90](../Zeta/images/A/Zeta_A_1.png) | [#2 sta 1.00 sim 0.50](../Zeta/images/A/Zeta_A_2.png) | ✕ #10 Code not found. |',
    );
    // Names are text: HTML in them is shown, not rendered (scoring/formats/text-escape.ts).
    expect(md).toContain('| R&amp;D &lt;lab&gt; | ✕ #1 Height boundary is intruded. |  |  |');
  });

  it('builds a report of pictures alone (no scores yet) that stays self-contained', () => {
    const report = buildReport({
      title: 'pictures',
      facts: [],
      competitions: [{ label: '', gallery }],
      warnings: [],
      versions: [{ name: 'sbeval', value: '0.1.0' }],
    });
    expect(report.html).toContain('<h2 id="levels-main">Levels at a glance</h2>');
    expect(report.html).toContain('<h2 id="trials-main">Every trial by letter</h2>');
    expect(report.html).not.toContain('Per letter');
    expect(report.html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    expect(report.markdown).toContain('## Levels\n');
    expect(report.markdown).toContain('## Software versions\n\n| software | version |\n| --- | --- |\n| sbeval | 0.1.0 |');
  });

  it('keeps extra sections after the per-letter parts and lists them in the contents', () => {
    const report = buildReport({
      title: 't',
      facts: [],
      competitions: [{ label: '', gallery }],
      warnings: [],
      sections: [{ id: 'judges', title: 'Judges', markdown: 'j', html: '<p>j</p>' }],
      settings: [{ name: 'rules', value: '2024' }],
    });
    const order = ['id="levels-main"', 'id="trials-main"', 'id="judges"', 'id="settings"'].map((s) => report.html.indexOf(s));
    expect(order.every((v, i) => v > 0 && (i === 0 || v > order[i - 1]!))).toBe(true);
    expect(report.html).toContain('<a href="#judges">Judges</a>');
  });
});
