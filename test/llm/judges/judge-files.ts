import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Judge result files in the shapes sbeval writes (llm/judges/rubric-record.ts, order-outputs.ts), for tests that construct folders. */
export function writeRubricLetter(root: string, judge: string, team: string, letter: string, scores: Array<number | 'refused' | 'missing'>): void {
  const trials = scores.map((s, i) => ({
    trial: i + 1,
    name: `${team}_${letter}_${i + 1}`,
    status: s === 'refused' || s === 'missing' ? s : 'judged',
    score: typeof s === 'number' ? s : 0,
    input: s === 'missing' ? null : `digest-${team}-${letter}-${i}`,
    prompt: s === 'missing' ? null : 'p',
  }));
  const settings = {
    api: 'ollama',
    model: judge,
    digests: [],
    view: 'image',
    protocol: 'sbeval',
    lowTier: 25,
    template: null,
    temperature: 0,
    seed: 6280,
    retries: 2,
    maxTokens: 2048,
    prompt: 'sbeval-rubric-2',
    rubric: {},
    fingerprint: 'f',
  };
  const summary = {
    trials: trials.length,
    judged: trials.filter((t) => t.status === 'judged').length,
    refused: trials.filter((t) => t.status === 'refused').length,
    missing: trials.filter((t) => t.status === 'missing').length,
    inconsistent: 0,
    meanScore: trials.reduce((a, t) => a + t.score, 0) / trials.length,
  };
  const dir = join(root, team, 'judge-rubric', judge);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${letter}.json`),
    JSON.stringify({ judge: 'rubric', id: judge, team, character: letter, settings, complete: true, summary, trials }),
  );
}

export function writeOrderSummary(
  root: string,
  judge: string,
  perspective: string,
  levels: Array<{ team: string; letter: string; trial: number; score: number }>,
  teams: Array<{ team: string; meanScore: number; questions: number }>,
): void {
  const dir = join(root, 'result', 'judge-order', judge, perspective);
  mkdirSync(dir, { recursive: true });
  const summary = {
    judge: 'order',
    id: judge,
    model: judge,
    perspective,
    protocol: 'sbeval',
    rankScores: 'table',
    reference: null,
    scale: { min: 2.5, max: 10 },
    complete: true,
    failures: {},
    teams: teams.map((t) => ({ ...t, meanRank: null, interval: null })),
    levels: levels.map((l) => ({
      team: l.team,
      letter: l.letter,
      trial: l.trial,
      name: `${l.team}_${l.letter}_${l.trial}`,
      questions: 1,
      score: l.score,
      rank: null,
    })),
  };
  writeFileSync(join(dir, 'summary.json'), JSON.stringify(summary));
}
