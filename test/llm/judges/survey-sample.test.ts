import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stratifiedSample } from '../../../llm/survey/build.js';
import { createInvites, inviteLink, raterOfToken, readInvites } from '../../../llm/survey/invites.js';

describe('survey samples stratified by team × letter', () => {
  // Three teams, four letters; one team has a single level of letter D (a small cell).
  const levels = ['A', 'B', 'C'].flatMap((team) =>
    ['A', 'B', 'C', 'D'].flatMap((character) =>
      Array.from({ length: team === 'C' && character === 'D' ? 1 : 5 }, (_, i) => ({ team, character, name: `${team}_${character}_${i + 1}` })),
    ),
  );
  const cells = (sample: typeof levels) => {
    const counts = new Map<string, number>();
    for (const l of sample) counts.set(`${l.team}/${l.character}`, (counts.get(`${l.team}/${l.character}`) ?? 0) + 1);
    return counts;
  };

  it('spreads n over the cells as evenly as they allow, the same for the same seed', () => {
    for (const n of [1, 5, 12, 13, 25, 40, 56]) {
      const sample = stratifiedSample(levels, n, 7);
      expect(sample).toHaveLength(n);
      expect(new Set(sample.map((l) => l.name)).size).toBe(n);
      const counts = cells(sample);
      // Every cell that could take more holds at least as many as any other cell minus one.
      const values = [...counts.values()];
      const max = Math.max(...values);
      for (const [cell, size] of [...new Map(levels.map((l) => [`${l.team}/${l.character}`, 0]))].map(
        ([c]) => [c, levels.filter((l) => `${l.team}/${l.character}` === c).length] as const,
      )) {
        const got = counts.get(cell) ?? 0;
        if (got < size) expect(got, `${cell} at n = ${n}`).toBeGreaterThanOrEqual(max - 1);
      }
      expect(stratifiedSample(levels, n, 7)).toEqual(sample);
    }
    // 12 cells, 24 levels: two from each, the small cell one and its share going elsewhere.
    const counts = cells(stratifiedSample(levels, 24, 3));
    expect(counts.get('C/D')).toBe(1);
    expect([...counts.values()].filter((v) => v === 3)).toHaveLength(1);
    expect(stratifiedSample(levels, 24, 3)).not.toEqual(stratifiedSample(levels, 24, 4));
  });
});

describe('survey invitations', () => {
  const out = mkdtempSync(join(tmpdir(), 'sbeval-invites-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('gives each rater an unguessable token, keeps only its digest, and knows the rater from it', async () => {
    writeFileSync(join(out, 'survey.json'), '{}');
    const first = await createInvites(out, 2);
    const more = await createInvites(out, 1);
    expect([...first, ...more].map((i) => i.rater)).toEqual(['rater-01', 'rater-02', 'rater-03']);
    const invites = readInvites(out);
    for (const { rater, token } of [...first, ...more]) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(raterOfToken(invites, token)).toBe(rater);
      expect(JSON.stringify(invites)).not.toContain(token);
    }
    expect(raterOfToken(invites, '')).toBeUndefined();
    expect(raterOfToken(invites, `${first[0]!.token}x`)).toBeUndefined();
    expect(inviteLink('https://survey.example.org/s/', 'abc')).toBe('https://survey.example.org/s/#invite=abc');
  });
});
