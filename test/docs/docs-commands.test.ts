import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/main.js';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { anchors, type CommandTree, citedPaths, findCommand, links, type ShownCommand, shownCommands, snippets } from './doc-references.js';

/**
 * The documentation shows only what the CLI accepts and what the repository holds: every `sbeval
 * <command> … --flag` in README.md and docs/*.md (code blocks and inline code) names a command whose
 * `--help` lists that flag (the CLI's own commander tree, built in process: the options `--help`
 * prints, hidden old spellings excluded); a flag shown on its own is a flag of some command; every
 * repository path the pages cite and every link (with its #anchor) exists; every `npm run <script>`
 * is a script of package.json.
 */
const PAGES = [
  'README.md',
  ...readdirSync(join(PROJECT_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The commander tree as `--help` shows it: visible options only. */
function commandTree(command: Command): CommandTree {
  const help = command.createHelp();
  const flags = new Set<string>();
  for (const option of help.visibleOptions(command)) {
    if (option.long) flags.add(option.long);
    if (option.short) flags.add(option.short);
  }
  const subcommands = new Map(command.commands.map((c) => [c.name(), commandTree(c)]));
  return { name: command.name(), flags, subcommands };
}

/** Problems with the commands a page shows, one line each. */
function commandProblems(page: string, markdown: string, tree: CommandTree): string[] {
  const problems: string[] = [];
  const everyFlag = new Set<string>();
  const collect = (node: CommandTree): void => {
    node.flags.forEach((f) => everyFlag.add(f));
    node.subcommands.forEach(collect);
  };
  collect(tree);
  for (const snippet of snippets(markdown)) {
    for (const shown of shownCommands(snippet, tree)) problems.push(...checkShown(page, shown, tree, everyFlag));
  }
  return problems;
}

function checkShown(page: string, shown: ShownCommand, tree: CommandTree, everyFlag: Set<string>): string[] {
  const where = `${page}:${shown.line}`;
  if (shown.path.length === 0 && shown.flags.length > 0 && !shown.source.startsWith('sbeval')) {
    // Only long flags: a single dash may be another program's (Unity's `-nographics`, `openssl -hex`).
    return shown.flags
      .filter((f) => f.startsWith('--') && !everyFlag.has(f))
      .map((f) => `${where}: ${f} is a flag of no sbeval command (in \`${shown.source}\`)`);
  }
  const command = findCommand(tree, shown.path);
  const name = ['sbeval', ...shown.path].join(' ');
  if (!command) return [`${where}: \`${name}\` is no command (in \`${shown.source}\`)`];
  if (command.subcommands.size > 0 && shown.flags.some((f) => f !== '--help' && f !== '-h'))
    return [`${where}: \`${name}\` needs a subcommand before its flags (in \`${shown.source}\`)`];
  return shown.flags.filter((f) => !command.flags.has(f)).map((f) => `${where}: \`${name} --help\` does not list ${f} (in \`${shown.source}\`)`);
}

/** Problems with the paths, links and anchors a page cites. */
function pathProblems(page: string, markdown: string, root: string, roots: Set<string>): string[] {
  const problems: string[] = [];
  for (const snippet of snippets(markdown)) {
    for (const path of citedPaths(snippet, roots))
      if (!existsSync(join(root, path))) problems.push(`${page}:${snippet.line}: cites ${path}, which does not exist`);
  }
  for (const link of links(markdown)) {
    if (/^[a-z]+:/i.test(link.target)) continue;
    const [file, anchor] = link.target.split('#') as [string, string | undefined];
    const target = file === '' ? join(root, page) : resolve(dirname(join(root, page)), file);
    if (!existsSync(target)) {
      problems.push(`${page}:${link.line}: links ${link.target}, and ${relative(root, target)} does not exist`);
      continue;
    }
    if (anchor !== undefined && target.endsWith('.md') && !anchors(readFileSync(target, 'utf8')).has(anchor)) {
      problems.push(`${page}:${link.line}: links ${link.target}, and ${relative(root, target)} has no heading with that anchor`);
    }
  }
  return problems;
}

/** Problems with the npm scripts a page names. */
function scriptProblems(page: string, markdown: string, scripts: Set<string>): string[] {
  const problems: string[] = [];
  for (const snippet of snippets(markdown)) {
    for (const m of snippet.text.matchAll(/\bnpm run (?:-s )?([\w:-]+)/g))
      if (!scripts.has(m[1]!)) problems.push(`${page}:${snippet.line}: npm run ${m[1]} is no script of package.json`);
  }
  return problems;
}

/** The repository's top-level entries (tracked by git): what a cited path must start with to be checked. */
function trackedRoots(): Set<string> {
  const files = execFileSync('git', ['ls-files'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
  return new Set(files.map((f) => f.split('/')[0]!));
}

let tree: CommandTree;
let roots: Set<string>;
const read = (page: string) => readFileSync(join(PROJECT_ROOT, page), 'utf8');

beforeAll(async () => {
  tree = commandTree(await buildProgram());
  roots = trackedRoots();
});

describe('README.md and docs/*.md show only what the CLI accepts and the repository holds', () => {
  it('finds the pages and, in them, the commands of the CLI', () => {
    expect(PAGES).toContain('docs/headless-engine.md');
    const shown = PAGES.flatMap((page) => snippets(read(page)).flatMap((s) => shownCommands(s, tree)));
    // Every top-level command appears somewhere, so a parser that finds nothing cannot pass.
    const named = new Set(shown.map((c) => c.path[0]));
    expect([...tree.subcommands.keys()].filter((name) => !named.has(name))).toEqual([]);
    expect(shown.filter((c) => c.flags.length > 0).length).toBeGreaterThan(40);
  });

  it("every `sbeval <command> … --flag` is listed by that command's --help", () => {
    expect(PAGES.flatMap((page) => commandProblems(page, read(page), tree))).toEqual([]);
  });

  it('every repository path, link and anchor they cite exists', () => {
    expect(PAGES.flatMap((page) => pathProblems(page, read(page), PROJECT_ROOT, roots))).toEqual([]);
  });

  it('every `npm run <script>` they name is a script of package.json', () => {
    const scripts = new Set(Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts));
    expect(PAGES.flatMap((page) => scriptProblems(page, read(page), scripts))).toEqual([]);
  });
});

describe('the checks catch what they are for', () => {
  it('a flag the command does not take, a command that does not exist, a flag of no command', () => {
    const page = [
      'Run `sbeval run examples/competition --sim-trials 2` to …',
      '',
      '```sh',
      'npx sbeval simulate <root> --damage body \\',
      '    --trials-per-level 3   # a misspelt flag on a continuation line',
      'npx sbeval fidelity --damage body',
      'npx sbeval model fetch|convert --frobnicate',
      '```',
      '',
      'Flags: `--no-such-flag`; `simulate --workers 2` and `run --damage body` inline.',
    ].join('\n');
    const problems = commandProblems('page.md', page, tree);
    expect(problems).toEqual([
      expect.stringMatching(/^page\.md:4: `sbeval simulate --help` does not list --trials-per-level/),
      expect.stringMatching(/^page\.md:6: `sbeval fidelity` is no command/),
      expect.stringMatching(/^page\.md:7: `sbeval model fetch --help` does not list --frobnicate/),
      expect.stringMatching(/^page\.md:7: `sbeval model convert --help` does not list --frobnicate/),
      expect.stringMatching(/^page\.md:1: `sbeval run --help` does not list --sim-trials/),
      expect.stringMatching(/^page\.md:10: --no-such-flag is a flag of no sbeval command/),
      expect.stringMatching(/^page\.md:10: `sbeval run --help` does not list --damage/),
    ]);
  });

  it('a hidden old spelling is not documentation of a flag', () => {
    // `--trials` on simulate and `--char` are accepted with a note but not listed by --help.
    expect(commandProblems('page.md', '`sbeval simulate x --trials 2` and `sbeval extract x --char A`', tree)).toHaveLength(2);
  });

  it('a missing path, a missing link target and a missing anchor', () => {
    const page = [
      'The responses are in `examples/competition/raw` and the engine in `bridge/headless/engine.ts`.',
      'See [the engine](docs/headless-engine.md#no-such-heading), [run](docs/run.md) and [gone](docs/gone.md).',
    ].join('\n');
    expect(pathProblems('README.md', page, PROJECT_ROOT, roots)).toEqual([
      'README.md:1: cites examples/competition/raw, which does not exist',
      'README.md:2: links docs/headless-engine.md#no-such-heading, and docs/headless-engine.md has no heading with that anchor',
      'README.md:2: links docs/gone.md, and docs/gone.md does not exist',
    ]);
  });

  it('GitHub anchors: punctuation dropped, code marks dropped, repeats numbered, code blocks ignored', () => {
    const page = ['## Knife-edge verdicts: `--robustness N`', '```sh', '# not a heading', '```', '## Logs', '## Logs'].join('\n');
    expect([...anchors(page)]).toEqual(['knife-edge-verdicts---robustness-n', 'logs', 'logs-1']);
  });
});
