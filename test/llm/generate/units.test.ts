import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LimitExceeded, TrialBudget } from '../../../llm/generate/limits.js';
import { programArgs } from '../../../llm/generate/program.js';
import { trialSeed } from '../../../llm/generate/seeds.js';
import { competitionRoots, planTrials } from '../../../llm/generate/stage.js';
import { type ConversationSubmission, fillObject, loadSubmission } from '../../../llm/generate/submission.js';
import { parseCharacters } from '../../../orchestrator/config/characters.js';
import { GOLDEN } from '../../helpers/cli.js';

const ZERO_SHOT = join(GOLDEN, 'prompts', 'zero_shot.2025.crlf.txt');
const MULTI_TURN_1 = join(GOLDEN, 'prompts', 'zero_shot_multi_turn.1.txt');

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'sbeval-gen-unit-'));
}

describe('letters and seeds', () => {
  it('parses letter lists and ranges into A–Z order', () => {
    expect(parseCharacters('A-Z')).toHaveLength(26);
    expect(parseCharacters('x, a-c ,B')).toEqual(['A', 'B', 'C', 'X']);
    // llms4pcg's own message for a letter outside the alphabet.
    expect(() => parseCharacters('A,1')).toThrow('Character 1 is not in the alphabet.');
    expect(() => parseCharacters('Z-A')).toThrow(/backwards/);
  });

  it('derives per-trial seeds by the documented rule, independent of what else runs', () => {
    // seed = master + 26·(trial − 1) + letter index, computed here by hand.
    expect(trialSeed(6280, 'A', 1)).toBe(6280);
    expect(trialSeed(6280, 'Z', 1)).toBe(6305);
    expect(trialSeed(6280, 'A', 2)).toBe(6306);
    expect(trialSeed(6280, 'Z', 10)).toBe(6280 + 26 * 9 + 25);
    // All 260 seeds of a model are distinct.
    const seeds = new Set(parseCharacters('A-Z').flatMap((c) => Array.from({ length: 10 }, (_, t) => trialSeed(6280, c, t + 1))));
    expect(seeds.size).toBe(260);
    // A partial run plans the same seeds as the full run for the same trials, and models share them.
    const base = { root: tempDir(), team: 't', trials: 10, masterSeed: 6280, layout: 'auto' as const };
    const full = planTrials({ ...base, models: ['m1', 'm2'], characters: parseCharacters('A-Z') });
    const part = planTrials({ ...base, models: ['m2'], characters: ['Q'], trials: 3 });
    for (const p of part) {
      expect(full.find((f) => f.model === 'm2' && f.character === p.character && f.trial === p.trial)!.seed).toBe(p.seed);
      expect(full.find((f) => f.model === 'm1' && f.character === p.character && f.trial === p.trial)!.seed).toBe(p.seed);
    }
  });
});

describe('layout', () => {
  it('uses the official layout for one model and a folder per model otherwise', () => {
    const root = tempDir();
    const one = planTrials({ root, team: 'zero_shot', models: ['qwen2.5:32b-instruct-fp16'], trials: 10, characters: ['A'], masterSeed: 1, layout: 'auto' });
    expect(one.at(-1)!.relFile).toBe('zero_shot/raw/A/zero_shot_A_10.txt');
    const many = planTrials({
      root,
      team: 'zero_shot',
      models: ['qwen2.5:32b-instruct-fp16', 'phi3'],
      trials: 1,
      characters: ['B'],
      masterSeed: 1,
      layout: 'auto',
    });
    expect(many.map((t) => t.relFile)).toEqual(['qwen2.5_32b-instruct-fp16/zero_shot/raw/B/zero_shot_B_1.txt', 'phi3/zero_shot/raw/B/zero_shot_B_1.txt']);
    expect(() => competitionRoots(root, ['a:b', 'a/b'], 'auto')).toThrow(/same folder/);
    expect(() => competitionRoots(root, ['a', 'b'], 'flat')).toThrow(/one model/);
    // llms4pcg: `prohibited_team_name = ["logs"]`.
    expect(() => planTrials({ root, team: 'logs', models: ['m'], trials: 1, characters: ['A'], masterSeed: 1, layout: 'auto' })).toThrow(
      'Team name logs is prohibited.',
    );
    expect(() => planTrials({ root, team: 'a/b', models: ['m'], trials: 1, characters: ['A'], masterSeed: 1, layout: 'auto' })).toThrow(/separator/);
  });
});

describe('official limits', () => {
  it('checks time before a call and tokens after it, with the official messages', () => {
    let now = 0;
    const budget = new TrialBudget({ timeLimitS: 500, tokenLimit: 25_000 }, () => now);
    budget.beforeCall();
    now = 400_000;
    budget.afterCall(20_000, 4_000);
    // A call that started in time is not interrupted (llms4pcg checks only before the call) …
    now = 500_000;
    budget.beforeCall();
    // … but the next one is refused once the elapsed time is over the limit.
    now = 512_250;
    expect(() => budget.beforeCall()).toThrow(new LimitExceeded('time', 'Time limit exceeded. 512.25 > 500'));
    expect(budget.failure?.kind).toBe('time');

    const tokens = new TrialBudget({ timeLimitS: 500, tokenLimit: 25_000 }, () => 0);
    tokens.afterCall(10_000, 15_000); // exactly at the limit is allowed ("> token_limit")
    expect(tokens.completionCap()).toBe(1);
    expect(() => tokens.afterCall(1, 0)).toThrow('Prompt token limit exceeded. 25001 > 25000');
  });

  it('does not count infrastructure time and caps num_predict so the outcome is unchanged', () => {
    let now = 0;
    const budget = new TrialBudget({ timeLimitS: 10, tokenLimit: 100 }, () => now);
    now = 30_000;
    budget.excuse(25_000);
    expect(budget.elapsedS()).toBe(5);
    budget.beforeCall();
    expect(budget.completionCap()).toBe(101);
    budget.afterCall(30, 20);
    // remaining 50 → an answer of 51 tokens fails whatever the prompt size, so generation may stop there.
    expect(budget.completionCap()).toBe(51);
    const unlimited = new TrialBudget({ timeLimitS: 0, tokenLimit: 0 }, () => (now += 1e9));
    unlimited.afterCall(1e9, 1e9);
    unlimited.beforeCall();
    expect(unlimited.completionCap()).toBeUndefined();
  });
});

describe('submissions', () => {
  it('ships the zero-shot baseline as an exact copy of the official prompt, sent with LF like Python text mode', () => {
    const golden = readFileSync(ZERO_SHOT);
    expect(createHash('sha256').update(golden).digest('hex')).toMatch(/^4e875b03/);
    const sub = loadSubmission('builtin:zero-shot') as ConversationSubmission;
    expect(sub.kind).toBe('prompt');
    expect(sub.turns).toEqual([golden.toString('utf8').replace(/\r\n/g, '\n')]);
    const message = fillObject(sub.turns[0]!, 'K', sub.objectStyle);
    expect(message).toContain('looks like the character K—the goal—');
    expect(message).not.toContain('\r');
    expect(message).not.toContain('<OBJECT>');
  });

  it('ships the multi-turn baseline as two turns: the zero-shot prompt, then the code-block request', () => {
    const sub = loadSubmission('builtin:zero-shot-multi-turn') as ConversationSubmission;
    expect(sub.kind).toBe('chat-script');
    expect(sub.turns).toHaveLength(2);
    expect(sub.turns[0]).toBe(readFileSync(ZERO_SHOT, 'utf8').replace(/\r\n/g, '\n'));
    expect(sub.turns[1]).toBe(readFileSync(MULTI_TURN_1, 'utf8'));
  });

  it('replaces <OBJECT> quoted (2023) or bare (2024+), everywhere, and keeps CRLF for the 2023 style', () => {
    const dir = tempDir();
    const file = join(dir, 'team.txt');
    writeFileSync(file, 'Build <OBJECT>.\r\nOnly <OBJECT>!');
    const quoted = loadSubmission(file, { objectStyle: 'quoted' }) as ConversationSubmission;
    expect(fillObject(quoted.turns[0]!, 'A', quoted.objectStyle)).toBe('Build "A".\r\nOnly "A"!');
    const bare = loadSubmission(file) as ConversationSubmission;
    expect(fillObject(bare.turns[0]!, 'A', bare.objectStyle)).toBe('Build A.\nOnly A!');
    expect(bare.sha256).not.toBe(quoted.sha256);
  });

  it('reads chat scripts in JSON and YAML, with inline turns and file references', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'first.txt'), 'Draw <OBJECT> with blocks.');
    writeFileSync(join(dir, 'script.yaml'), 'system: You build levels for <OBJECT>.\nobject: quoted\nturns:\n  - file: first.txt\n  - Now only the code.\n');
    const yaml = loadSubmission(join(dir, 'script.yaml')) as ConversationSubmission;
    expect(yaml).toMatchObject({
      kind: 'chat-script',
      system: 'You build levels for <OBJECT>.',
      objectStyle: 'quoted',
      turns: ['Draw <OBJECT> with blocks.', 'Now only the code.'],
    });
    writeFileSync(join(dir, 'list.json'), JSON.stringify(['one <OBJECT>', { file: 'first.txt' }]));
    expect((loadSubmission(join(dir, 'list.json')) as ConversationSubmission).turns).toEqual(['one <OBJECT>', 'Draw <OBJECT> with blocks.']);
    writeFileSync(join(dir, 'bad.yaml'), 'turns: []\n');
    expect(() => loadSubmission(join(dir, 'bad.yaml'))).toThrow(/bad\.yaml/);
    writeFileSync(join(dir, 'typo.yaml'), 'turn:\n  - x\n');
    expect(() => loadSubmission(join(dir, 'typo.yaml'))).toThrow(/typo\.yaml/);
    expect(() => loadSubmission('builtin:nope')).toThrow(
      expect.objectContaining({ message: 'unknown built-in submission "nope"', hint: expect.stringMatching(/builtin:zero-shot/) }),
    );
  });

  it('reads program specs and fills argument placeholders', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'prog.yaml'), 'program:\n  command: ./run.sh\n  args: ["--letter", "{char}", "{trial}/{seed}", "{model}"]\n  env: {MODE: fast}\n');
    const sub = loadSubmission(join(dir, 'prog.yaml'));
    expect(sub.kind).toBe('program');
    if (sub.kind !== 'program') return;
    expect(sub.command).toBe(join(dir, 'run.sh'));
    expect(sub.cwd).toBe(dir);
    expect(sub.env).toEqual({ MODE: 'fast' });
    expect(programArgs(sub.args, { char: 'Q', trial: '3', seed: '6350', model: 'm:1', team: 't' })).toEqual(['--letter', 'Q', '3/6350', 'm:1']);
    writeFileSync(join(dir, 'short.json'), JSON.stringify({ program: ['python3', 'main.py'] }));
    expect(loadSubmission(join(dir, 'short.json'))).toMatchObject({ kind: 'program', command: 'python3', args: ['main.py'] });
  });
});
