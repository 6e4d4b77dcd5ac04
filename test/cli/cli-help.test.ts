import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command, Option } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/main.js';
import { type SharedFlags, settingsFlags } from '../../cli/settings-options.js';
import { resolveSettings } from '../../llm/config.js';
import { loadRubric } from '../../llm/judges/rubric-file.js';
import { LOW_TIERS, reachableScores } from '../../llm/judges/scoring/rubric.js';
import { parseRubricAnswer } from '../../llm/judges/scoring/rubric-answer.js';
import type { RootGuard } from '../../orchestrator/layout/root-guard.js';
import { runBuilt } from '../helpers/built-cli.js';
import { copyExampleSources } from '../helpers/cli.js';

/**
 * Every help text true to the code: the CLI's own command tree (what `--help` prints for each command)
 * says each default once and never `(default: [])`; every choice an option advertises is accepted —
 * by commander, and for a setting by the settings resolution every command uses; `judge rubric --help`
 * names exactly the scores the shipped rubric gives (it advertised 75, which the rubric refuses).
 */
let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'sbeval-help-'));
  copyExampleSources(root, { teams: ['BlockSmith'], letters: ['I'] });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Node {
  path: string[];
  command: Command;
}

function commands(command: Command, path: string[] = []): Node[] {
  return [{ path, command }, ...command.commands.flatMap((sub) => commands(sub, [...path, sub.name()]))];
}

describe('the help of every command', async () => {
  const all = commands(await buildProgram()).filter((n) => n.path.length > 0);

  it('says each default once, and no empty list as a default', () => {
    expect(all.length).toBeGreaterThan(25);
    const problems: string[] = [];
    for (const { path, command } of all) {
      const help = command.createHelp();
      for (const option of help.visibleOptions(command)) {
        const text = help.optionDescription(option);
        const where = `sbeval ${path.join(' ')} ${option.flags}`;
        if ((text.match(/\bdefault\b/g) ?? []).length > 1) problems.push(`${where}: ${text}`);
        if (/\(default: (\[\]|\{\})\)/.test(text)) problems.push(`${where}: ${text}`);
      }
      if (/\(default: (\[\]|\{\})\)/.test(command.helpInformation())) problems.push(`sbeval ${path.join(' ')}: an empty default`);
    }
    expect(problems).toEqual([]);
  });

  it('accepts every choice it advertises: commander parses it, and a setting resolves with it', async () => {
    const checked: string[] = [];
    for (const { path, command } of all) {
      const help = command.createHelp();
      for (const option of help.visibleOptions(command).filter((o) => o.argChoices)) {
        for (const choice of option.argChoices!) {
          const flags = await parsedFlags(path, option, choice);
          expect(flags[option.attributeName()], `${path.join(' ')} ${option.long} ${choice}`).toBe(choice);
          // A shared setting goes through the one settings resolution (orchestrator/config/settings.ts, with the CLI's schema: llm/config.ts).
          if (isSetting(option))
            expect(
              () => resolveSettings(root, settingsFlags(flags as SharedFlags), { command: path.join(' ') }),
              `${path.join(' ')} ${option.long} ${choice}`,
            ).not.toThrow();
          checked.push(`${path.join(' ')} ${option.long} ${choice}`);
        }
      }
    }
    // The settings choices (rules, engine, damage, eol, api, uncertainty) and the judges' are among them.
    expect(checked).toEqual(
      expect.arrayContaining([
        'run --engine bridge',
        'run --rules 2023',
        'simulate --damage body',
        'score --eol crlf',
        'judge rubric --low-tier n20',
        'judge rubric --api openai',
        'judge order --rank-scores reciprocal',
      ]),
    );
  });
});

const SETTINGS = new Set(['rules', 'engine', 'damage', 'eol', 'api', 'uncertainty']);
const isSetting = (option: Option) => SETTINGS.has(option.attributeName());

/** Values that pass the parsers of the options a command requires, so a parse reaches the option tested. */
const REQUIRED: Record<string, string> = {
  '--judge': 'llava:13b',
  '--out': 'out',
  '--connect': 'ws://127.0.0.1:1',
  '--unity': 'Unity',
  '--project': 'project',
};

/**
 * Parses `sbeval <path> <args> <flag> <choice>` as the CLI does (the root check and lock of a command
 * that writes into the root included, on a real competition folder) with the command's action replaced
 * by one that keeps the flags.
 */
async function parsedFlags(path: string[], option: Option, choice: string): Promise<Record<string, unknown>> {
  const guards: RootGuard[] = [];
  const program = await buildProgram(guards);
  let seen: Record<string, unknown> | undefined;
  let target = program;
  for (const name of path) target = target.commands.find((c) => c.name() === name)!;
  target.action((...args: unknown[]) => {
    seen = (args.at(-1) as Command).opts();
  });
  const positional = target.registeredArguments.filter((a) => a.required).map((a) => (a.name() === 'root' ? root : a.name() === 'n' ? '1' : 'x'));
  const required = target.options.filter((o) => o.mandatory && o.long !== option.long).flatMap((o) => [o.long!, REQUIRED[o.long!] ?? 'x']);
  try {
    await program.parseAsync(['node', 'sbeval', ...path, ...positional, ...required, option.long!, choice]);
  } finally {
    for (const guard of guards) guard.release();
  }
  expect(seen, `${path.join(' ')} ${option.long} ${choice} ran no action`).toBeDefined();
  return seen!;
}

describe('sbeval judge rubric --help', () => {
  it('names the scores the shipped rubric gives, each of which the answer reader accepts, and no other', async () => {
    const result = await runBuilt(['judge', 'rubric', '--help']);
    expect(result.exitCode).toBe(0);
    const text = result.stdout.replace(/\s+/g, ' ');
    expect(text).not.toContain('0|25|50|75|100');
    const rubric = loadRubric(undefined).template!;
    for (const [tier, lowTier] of [
      ['n25', LOW_TIERS.n25],
      ['n20', LOW_TIERS.n20],
    ] as const) {
      const said = tier === 'n25' ? /with the shipped rubric ([\d, or]+?) \(/.exec(text)?.[1] : /with --low-tier n20: ([\d, or]+?)\)/.exec(text)?.[1];
      expect(said, tier).toBeDefined();
      const scores = said!.split(/, | or /).map(Number);
      expect(scores, tier).toEqual(reachableScores(rubric, lowTier));
      for (const score of scores)
        expect(parseRubricAnswer(`<analysis>ok</analysis><score>${score}</score>`, rubric, lowTier).ok, `${tier} ${score}`).toBe(true);
    }
    // 75 is not a score of the shipped rubric: an answer of 75 is refused.
    expect(parseRubricAnswer('<analysis>ok</analysis><score>75</score>', rubric).ok).toBe(false);
    expect(text).not.toMatch(/shipped rubric [^(]*75/);
  });

  it('verify --help and explain --help say their defaults once (they said "(default 0.0001) (default: 0.0001)")', async () => {
    const [verify, explain] = await Promise.all([runBuilt(['verify', '--help']), runBuilt(['explain', '--help'])]);
    const flat = (s: string) => s.replace(/\s+/g, ' ');
    expect(flat(verify.stdout)).toMatch(
      /--tolerance <value> largest difference in x, y \(units\) and angle \(radians\) that still agrees \(default: 0\.0001\) /,
    );
    expect(flat(explain.stdout)).toMatch(
      /--sample-every <steps> keep every n-th step of the displacement series in --json \(5 steps = 0\.1 s\) \(default: 5\) /,
    );
  });
});

describe('the config keys run --help lists', () => {
  it('are the keys the config file accepts', async () => {
    const result = await runBuilt(['run', '--help']);
    const listed = /every\s+stage command reads the same file[^:]*:\n([\s\S]*?)\nWithout a similarity model/.exec(result.stdout)?.[1];
    expect(listed).toBeDefined();
    // Each listed top-level key is accepted in a config file, and limits' keys inside limits.
    const keys = listed!
      .replace(/\{[^}]*\}|\[[^\]]*\]/g, '')
      .split(/[\s,]+/)
      .filter(Boolean);
    expect(keys).toContain('api');
    for (const key of keys) {
      writeFileSync(join(root, 'sbeval.config.yaml'), `${key}: {}\n`);
      let message = '';
      try {
        resolveSettings(root);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, key).not.toMatch(/unknown key/);
    }
    const limits =
      /limits \{([^}]*)\}/
        .exec(listed!)?.[1]
        ?.split(/[\s,]+/)
        .filter(Boolean) ?? [];
    expect(limits).toEqual(expect.arrayContaining(['callSeconds', 'answerBytes', 'stallSeconds']));
    for (const key of limits) {
      writeFileSync(join(root, 'sbeval.config.yaml'), `limits:\n  ${key}: {}\n`);
      expect(() => resolveSettings(root), key).toThrow(new RegExp(`key "limits\\.${key}"`));
    }
    rmSync(join(root, 'sbeval.config.yaml'));
  });
});
