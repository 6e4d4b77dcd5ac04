import { describe, expect, it } from 'vitest';
import { buildReport } from '../../scoring/report/build.js';
import { heatColor } from '../../scoring/report/heatmap.js';
import { rankTeams } from '../../scoring/score/compute.js';
import { Decimal } from '../../scoring/score/decimal.js';
import { decideWinners } from '../../scoring/score/winner.js';

const scores = (entries: Record<string, string>) => new Map(Object.entries(entries).map(([k, v]) => [k, new Decimal(v)]));

describe('winner rules (pure)', () => {
  const teams = ['a', 'b', 'c', 'base', 'strong'];

  it('the highest competing score wins; baselines and non-competing entries never win', () => {
    const s = scores({ a: '0.1', b: '0.2', c: '0.05', base: '0.3', strong: '0.4' });
    const d = decideWinners(teams, s, { baseline: 'base', nonCompeting: ['strong'], mustBeatBaseline: false });
    expect(d.winners).toEqual(['b']);
  });

  it('2025: nobody wins when no team beats the zero-shot baseline; equal is not enough', () => {
    const s = scores({ a: '0.3', b: '0.2', c: '0', base: '0.3', strong: '0' });
    const d = decideWinners(teams, s, { baseline: 'base', nonCompeting: ['strong'], mustBeatBaseline: true });
    expect(d.winners).toEqual([]);
    expect(d.notes[0]).toBe('Not above the zero-shot baseline "base" (0.3): a, b, c.');
  });

  it('ties go to the shorter prompt, then co-winners; unknown lengths keep the tie', () => {
    const s = scores({ a: '0.5', b: '0.5', c: '0.5', base: '0.1', strong: '0' });
    const opts = { baseline: 'base', nonCompeting: ['strong'], mustBeatBaseline: true };
    expect(
      decideWinners(teams, s, {
        ...opts,
        words: new Map([
          ['a', 30],
          ['b', 20],
          ['c', 25],
        ]),
      }).winners,
    ).toEqual(['b']);
    expect(
      decideWinners(teams, s, {
        ...opts,
        words: new Map([
          ['a', 20],
          ['b', 20],
          ['c', 25],
        ]),
      }).winners,
    ).toEqual(['a', 'b']);
    const unknown = decideWinners(teams, s, {
      ...opts,
      words: new Map([
        ['a', 20],
        ['b', 20],
      ]),
    });
    expect(unknown.winners).toEqual(['a', 'b', 'c']);
    expect(unknown.notes.join(' ')).toContain('no prompt word count for c');
  });

  it('without a baseline under 2025 rules says so instead of silently skipping the rule', () => {
    const d = decideWinners(['a'], scores({ a: '0.1' }), { mustBeatBaseline: true });
    expect(d.winners).toEqual(['a']);
    expect(d.notes[0]).toMatch(/No zero-shot baseline given/);
  });

  it('ranks equal scores by shorter prompt, then by folder order', () => {
    const s = scores({ x: '1', y: '2', z: '1', w: '1' });
    expect(rankTeams(['x', 'y', 'z', 'w'], s)).toEqual(['y', 'x', 'z', 'w']);
    expect(
      rankTeams(['x', 'y', 'z', 'w'], s, {
        words: new Map([
          ['x', 9],
          ['z', 3],
        ]),
      }),
    ).toEqual(['y', 'z', 'x', 'w']);
  });
});

describe('report builder (pure)', () => {
  it('escapes names in HTML and markdown tables and keeps extra sections in order', () => {
    const report = buildReport({
      title: 'T <1>',
      facts: ['a & b'],
      ranking: { header: ['team'], rows: [['x|y <z>']] },
      winners: { winners: [], eligible: [], notes: [] },
      competitions: [],
      warnings: [{ code: 'unreadable', message: 'bad <json>', file: 'f.json' }],
      sections: [
        { id: 'one', title: 'One', markdown: 'first', html: '<p>first</p>' },
        { id: 'two', title: 'Two', markdown: 'second', html: '<p>second</p>' },
      ],
    });
    expect(report.html).toContain('<title>T &lt;1&gt;</title>');
    expect(report.html).toContain('<td>x|y &lt;z&gt;</td>');
    expect(report.html).toContain('f.json: bad &lt;json&gt;');
    expect(report.markdown).toContain('| x\\|y &lt;z&gt; |');
    expect(report.markdown.indexOf('## One')).toBeLessThan(report.markdown.indexOf('## Two'));
    expect(report.html).not.toMatch(/<script|https?:\/\//);
  });

  it('colours from light (the scale min) to dark (its max), clamped', () => {
    const unit = { min: 0, max: 1 };
    expect(heatColor(0, unit)).toBe('rgb(247,251,255)');
    expect(heatColor(1, unit)).toBe('rgb(8,48,107)');
    expect(heatColor(5, unit)).toBe(heatColor(1, unit));
    expect(heatColor(0.5, { min: 0, max: 0 })).toBe(heatColor(0, unit));
    // A per-metric scale: the best diversity of a table is as dark as a stability of 1.
    expect(heatColor(0.006, { min: 0.001, max: 0.006 })).toBe(heatColor(1, unit));
    expect(heatColor(0.001, { min: 0.001, max: 0.006 })).toBe(heatColor(0, unit));
  });
});
