import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, EOL, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCompetition, readScoreFolder, type ScoreStageOptions } from '../../orchestrator/stages/score.js';
import { THREAD_MIN_WORK } from '../../orchestrator/stages/uncertainty.js';
import { RULE_SETS } from '../../scoring/score/rules.js';
import { buildModel, intervalsCsv, type OfficialRow, rankProbabilitiesCsv, runBootstrap, summarize } from '../../scoring/uncertainty/index.js';
import { runSbeval } from '../helpers/cli.js';
import { parseCsv } from '../scoring/golden-competition.js';
import { randomCompetition, writeCompetition } from '../scoring/uncertainty-folder.js';

/**
 * On a large folder the score stage draws and scores the bootstrap's resamples in a worker thread
 * while it scores and writes the official files (orchestrator/stages/uncertainty.ts): the files are
 * byte for byte those of the bootstrap run in this thread after the official ranking is known. A
 * small folder stays in this thread (a thread's start would cost more than it saves).
 */
const tmp = mkdtempSync(join(tmpdir(), 'sbeval-uncertainty-thread-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('');
/** Reads and scores a folder, as `sbeval run`'s score step does. */
const scoreFolder = (options: ScoreStageOptions) => readScoreFolder(options).score();
const text = (dir: string, name: string) => readFileSync(join(dir, 'result', name), 'utf8');
const officialRows = (dir: string): OfficialRow[] =>
  parseCsv(text(dir, 'prompt_scores_ranks.csv'))
    .slice(1)
    .map(([team, normalizedPromptScore, promptScore, rank]) => ({
      team: team!,
      normalizedPromptScore: normalizedPromptScore!,
      promptScore: promptScore!,
      rank: Number(rank),
    }));

describe('the bootstrap in a worker thread, beside the official scoring', () => {
  it('2024: a full alphabet runs in the thread and writes what the bootstrap in this thread writes', async () => {
    const root = join(tmp, 'large-2024');
    const teams = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
    writeCompetition(root, randomCompetition({ teams, letters: LETTERS, trials: 5, seed: 91, failed: 0.1, noImage: 0.05 }), { rules: 2024, trials: 5 });
    expect(teams.length * LETTERS.length * 2000).toBeGreaterThanOrEqual(THREAD_MIN_WORK);
    const scored = await scoreFolder({ root, rules: '2024', trials: 5, baseline: 'delta' });
    expect(scored.uncertainty.status).toBe('done');
    // A thread only where a second core can run it (this project's machines have two).
    expect(scored.uncertainty.threaded).toBe(availableParallelism() >= 2);
    const { input } = loadCompetition(root, RULE_SETS['2024'], { trials: 5 });
    const model = buildModel([{ label: '', input, rules: RULE_SETS['2024'] }]);
    const rows = officialRows(root);
    const summary = summarize(
      runBootstrap(model, { resamples: 2000, seed: 1, competing: ['alpha', 'beta', 'gamma', 'epsilon'], ranking: rows.map((r) => r.team) }),
      rows,
      { competing: ['alpha', 'beta', 'gamma', 'epsilon'] },
    );
    expect(text(root, 'score_intervals.csv')).toBe(intervalsCsv(summary, EOL));
    expect(text(root, 'rank_probabilities.csv')).toBe(rankProbabilitiesCsv(summary, EOL));
    expect(scored.uncertainty.message).toContain(summary.sentence);
  }, 240_000);

  it('2025: the total’s ranking and each model folder’s own, from the thread’s resamples', async () => {
    const root = join(tmp, 'large-2025');
    // In the order the score stage finds them (the resamples draw the model folders in turn).
    const folders = ['gemma', 'qwen'];
    folders.forEach((f, m) =>
      writeCompetition(join(root, f), randomCompetition({ teams: ['x', 'y', 'z'], letters: LETTERS, trials: 4, seed: 101 + m, failed: 0.1, cls: 16 }), {
        rules: 2025,
        trials: 4,
      }),
    );
    const scored = await scoreFolder({ root, rules: '2025', trials: 4 });
    expect(scored.uncertainty.threaded).toBe(availableParallelism() >= 2);
    const model = buildModel(
      folders.map((f) => ({ label: f, input: loadCompetition(join(root, f), RULE_SETS['2025'], { trials: 4 }).input, rules: RULE_SETS['2025'] })),
    );
    const own = folders.map((f) => officialRows(join(root, f)));
    const result = runBootstrap(model, {
      resamples: 2000,
      seed: 1,
      competing: ['x', 'y', 'z'],
      perCompetition: folders.map(() => ({ competing: ['x', 'y', 'z'] })),
      ranking: officialRows(root).map((r) => r.team),
      perCompetitionRanking: own.map((rows) => rows.map((r) => r.team)),
    });
    expect(text(root, 'rank_probabilities.csv')).toBe(rankProbabilitiesCsv(summarize(result, officialRows(root)), EOL));
    folders.forEach((f, m) =>
      expect(text(join(root, f), 'rank_probabilities.csv')).toBe(rankProbabilitiesCsv(summarize(result.perCompetition![m]!, own[m]!), EOL)),
    );
  }, 240_000);

  it('the thread serves the next bootstrap of the process too, and `sbeval score` (its thread started before the folder is read) exits when done', async () => {
    const root = join(tmp, 'again-2024');
    writeCompetition(root, randomCompetition({ teams: ['p', 'q', 'r', 's', 't'], letters: LETTERS, trials: 4, seed: 93, failed: 0.1 }), {
      rules: 2024,
      trials: 4,
    });
    const first = await scoreFolder({ root, rules: '2024', trials: 4 });
    const files = ['score_intervals.csv', 'rank_probabilities.csv'].map((f) => text(root, f));
    const second = await scoreFolder({ root, rules: '2024', trials: 4 });
    for (const scored of [first, second]) expect(scored.uncertainty.threaded).toBe(availableParallelism() >= 2);
    expect(['score_intervals.csv', 'rank_probabilities.csv'].map((f) => text(root, f))).toEqual(files);
    const command = await runSbeval(['score', root, '--rules', '2024', '--trials', '4']);
    expect(command.exitCode).toBe(0);
    expect(['score_intervals.csv', 'rank_probabilities.csv'].map((f) => text(root, f))).toEqual(files);
  }, 240_000);

  it('`sbeval score` exits when the thread it started ahead gets no work (fewer letters than the alphabet: the bootstrap stays in this thread)', async () => {
    const root = join(tmp, 'started-unused');
    const teams = ['p', 'q', 'r', 's', 't'];
    writeCompetition(root, randomCompetition({ teams, letters: ['A', 'I'], trials: 3, seed: 97 }), { rules: 2024, trials: 3 });
    // The command starts the thread from the teams and the competition's letters (the alphabet here)…
    expect(teams.length * LETTERS.length * 2000).toBeGreaterThanOrEqual(THREAD_MIN_WORK);
    // … but the folder's 2 letters are too little work for it.
    expect(teams.length * 2 * 2000).toBeLessThan(THREAD_MIN_WORK);
    // A kept thread that holds the process open never ends the command: the generous deadline ends it.
    const command = await runSbeval(['score', root, '--rules', '2024', '--trials', '3'], { timeout: 90_000 });
    expect(command.exitCode, command.stderr).toBe(0);
    expect(text(root, 'rank_probabilities.csv')).toMatch(/^team,rank,probability/);
  }, 240_000);

  it('the thread runs at a lower priority than the command (nice 10): it yields a shared core to the command’s own work', async () => {
    const root = join(tmp, 'nice');
    writeCompetition(root, randomCompetition({ teams: ['p', 'q', 'r', 's', 't'], letters: LETTERS, trials: 3, seed: 95 }), { rules: 2024, trials: 3 });
    const scored = await scoreFolder({ root, rules: '2024', trials: 3 });
    expect(scored.uncertainty.threaded).toBe(true);
    // Linux: each thread's nice value is field 19 of /proc/self/task/<tid>/stat (after the name in parentheses).
    const nice = (tid: string) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
    const self = readlinkSync('/proc/thread-self').split('/').pop()!;
    // The thread is kept for the process's next bootstrap: it is among this process's threads, 10 below
    // the command's own (19 at most: a command already started under \`nice\` keeps the edge where it can).
    const lowered = Math.min(19, nice(self) + 10);
    expect(readdirSync('/proc/self/task').filter((tid) => nice(tid) === lowered).length).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it('`sbeval score` reads before it checks the folder: a large folder the check blocks reports its blocker alone, writes no intervals, and its thread ends with the command', async () => {
    const root = join(tmp, 'blocked');
    const teams = ['p', 'q', 'r', 's', 't'];
    writeCompetition(root, randomCompetition({ teams, letters: LETTERS, trials: 3, seed: 99 }), { rules: 2024, trials: 3 });
    expect(teams.length * LETTERS.length * 2000).toBeGreaterThanOrEqual(THREAD_MIN_WORK);
    // A response whose program was never extracted: the folder cannot be scored as it is.
    mkdirSync(join(root, 'p', 'raw', 'A'), { recursive: true });
    writeFileSync(join(root, 'p', 'raw', 'A', 'p_A_1.txt'), "```python\ndrop_block('b11', 10)\n```\n");
    const command = await runSbeval(['score', root, '--rules', '2024', '--trials', '3'], { timeout: 90_000 });
    expect(command.exitCode, command.stderr).toBe(1);
    const lines = command.stderr.trim().split('\n');
    expect(lines).toHaveLength(2); // the settings line, then the reason: nothing the early read met is printed
    expect(lines[1]).toMatch(
      /^sbeval: \[score\] not scored, the folder cannot be scored as it is: responses not extracted yet \(run sbeval extract\): p\/raw\/A\/p_A_1\.txt$/,
    );
    expect(existsSync(join(root, 'result', 'score_intervals.csv'))).toBe(false);
  }, 120_000);

  it('a small folder stays in this thread', async () => {
    const root = join(tmp, 'small');
    writeCompetition(root, randomCompetition({ teams: ['a', 'b'], letters: ['A', 'I'], trials: 3, seed: 111 }), { rules: 2024, trials: 3 });
    const scored = await scoreFolder({ root, rules: '2024', trials: 3 });
    expect(scored.uncertainty.status).toBe('done');
    expect(scored.uncertainty.threaded).toBe(false);
  }, 120_000);
});
