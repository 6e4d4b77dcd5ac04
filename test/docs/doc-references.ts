/**
 * What a markdown page shows a reader: its code (fenced blocks, indented blocks, inline spans), the
 * `sbeval` command lines in that code with their flags, the repository paths it cites, its links and
 * its headings' anchors (GitHub's slugs). Pure functions over the page's text, for
 * test/docs/docs-commands.test.ts.
 */

export interface Snippet {
  line: number;
  text: string;
  kind: 'block' | 'inline';
}

/** A command line a page shows: `sbeval <path…> … --flag`, or a flag shown on its own. */
export interface ShownCommand {
  line: number;
  /** Subcommand names after `sbeval` (empty for a flag shown without a command). */
  path: string[];
  flags: string[];
  source: string;
}

const FENCE = /^\s*(```|~~~)/;

/** Code of a page: fenced and indented blocks (one snippet per logical line), inline spans (may cross line breaks). */
export function snippets(markdown: string): Snippet[] {
  const lines = markdown.split('\n');
  const out: Snippet[] = [];
  const prose: string[] = [];
  let fence: string | undefined;
  let indented = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const opener = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      if (opener === fence) fence = undefined;
      else out.push({ line: i + 1, text: line, kind: 'block' });
      prose.push('');
      continue;
    }
    if (opener !== undefined) {
      fence = opener;
      prose.push('');
      continue;
    }
    const previousBlank = i === 0 || lines[i - 1]!.trim() === '';
    indented = /^( {4}|\t)\S/.test(line) && (indented || previousBlank);
    if (indented) {
      out.push({ line: i + 1, text: line, kind: 'block' });
      prose.push('');
      continue;
    }
    prose.push(line);
  }
  out.push(...inlineSpans(prose));
  return joinContinuations(out);
}

/** Inline code spans of the prose (blank lines end a paragraph, so a span never crosses one). */
function inlineSpans(prose: string[]): Snippet[] {
  const out: Snippet[] = [];
  const text = prose.join('\n');
  const span = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g;
  for (const m of text.matchAll(span)) {
    if (m[2]!.includes('\n\n')) continue;
    const line = text.slice(0, m.index).split('\n').length;
    // Inside a table cell, `\|` is how markdown writes `|`.
    out.push({
      line,
      text: m[2]!
        .replace(/\\\|/g, '|')
        .replace(/\s*\n\s*/g, ' ')
        .trim(),
      kind: 'inline',
    });
  }
  return out;
}

/** A block line ending in `\`, or followed by lines that start with an option (`[--x]`, `--x`), continues the command. */
function joinContinuations(snippets: Snippet[]): Snippet[] {
  const out: Snippet[] = [];
  let lastLine = -1;
  for (const s of snippets) {
    const last = out.at(-1);
    const continues = last?.kind === 'block' && s.kind === 'block' && s.line === lastLine + 1 && (/\\\s*$/.test(last.text) || /^\s+\[?-/.test(s.text));
    if (continues) last.text = `${last.text.replace(/\\\s*$/, '')} ${s.text.trim()}`;
    else out.push({ ...s });
    if (s.kind === 'block') lastLine = s.line;
  }
  return out;
}

/** The command tree a page is checked against: names of subcommands, visible flags of each command. */
export interface CommandTree {
  name: string;
  flags: Set<string>;
  subcommands: Map<string, CommandTree>;
}

const SHELL_BREAK = new Set(['&&', '||', ';', '|', '>', '2>', '#']);

const flagOf = (token: string): string | undefined => /^[[(]?(--?[a-zA-Z][\w-]*)(?:[=\]),.;:]|$)/.exec(token)?.[1];

/** Every `sbeval …` command line in a snippet, with the flags that follow it up to the end of the command. */
export function shownCommands(snippet: Snippet, tree: CommandTree): ShownCommand[] {
  const tokens = snippet.text.split(/\s+/).filter(Boolean);
  const out: ShownCommand[] = [];
  const first = tokens[0];
  // A span that starts with a command name (`simulate --engine unity`) is that command.
  if (snippet.kind === 'inline' && first !== undefined && tree.subcommands.has(first) && tokens.some((t) => flagOf(t))) tokens.unshift('sbeval');
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i] !== 'sbeval') continue;
    const paths = commandPaths(tokens, i + 1, tree);
    const end = commandEnd(tokens, paths.next);
    const flags = tokens
      .slice(paths.next, end)
      .map(flagOf)
      .filter((f): f is string => f !== undefined);
    for (const path of paths.paths) out.push({ line: snippet.line, path, flags, source: snippet.text });
    i = end - 1;
  }
  if (snippet.kind === 'inline' && first !== undefined && flagOf(first) === first.replace(/=.*$/, '')) {
    const flags = tokens.map(flagOf).filter((f): f is string => f !== undefined);
    out.push({ line: snippet.line, path: [], flags, source: snippet.text });
  }
  return out;
}

/** The subcommand path(s) after `sbeval`: `model fetch|convert` is two paths; a word that is no subcommand ends the path. */
function commandPaths(tokens: string[], start: number, tree: CommandTree): { paths: string[][]; next: number } {
  let frontier: Array<{ path: string[]; node: CommandTree }> = [{ path: [], node: tree }];
  let i = start;
  for (; i < tokens.length; i++) {
    const names = tokens[i]!.split('|');
    const nodes = frontier[0]!.node.subcommands;
    if (frontier.length !== 1 || nodes.size === 0) break;
    if (!names.every((n) => nodes.has(n))) {
      // A word that looks like a subcommand of a command that has them, but is none: report it.
      if (/^[a-z][a-z-]*$/.test(tokens[i]!)) frontier = [{ path: [...frontier[0]!.path, tokens[i]!], node: EMPTY }];
      break;
    }
    frontier = names.map((n) => ({ path: [...frontier[0]!.path, n], node: nodes.get(n)! }));
  }
  return { paths: frontier.map((f) => f.path), next: i };
}

const EMPTY: CommandTree = { name: '', flags: new Set(), subcommands: new Map() };

function commandEnd(tokens: string[], start: number): number {
  for (let i = start; i < tokens.length; i++) if (SHELL_BREAK.has(tokens[i]!) || tokens[i] === 'sbeval' || tokens[i]!.startsWith('#')) return i;
  return tokens.length;
}

/** The command a path names, or undefined. */
export function findCommand(tree: CommandTree, path: string[]): CommandTree | undefined {
  let node: CommandTree | undefined = tree;
  for (const name of path) node = node?.subcommands.get(name);
  return node;
}

/** Repository-relative paths cited in code: tokens that start with a tracked top-level entry. */
export function citedPaths(snippet: Snippet, roots: Set<string>): string[] {
  const out: string[] = [];
  for (const raw of snippet.text.split(/\s+/)) {
    const token = raw.replace(/^[[(`'"]+/, '').replace(/[\])`'",.;:]+$/, '');
    const top = token.split('/')[0]!;
    if (!roots.has(top) || (top === token && !token.includes('.'))) continue;
    // A placeholder, glob or anchor ends what can be checked: keep the folder before it.
    const cut = token.search(/[<{*…#]|:\d/);
    const path = cut < 0 ? token : token.slice(0, token.lastIndexOf('/', cut) + 1);
    if (path) out.push(path);
  }
  return out;
}

export interface Link {
  line: number;
  target: string;
}

/** The lines of a page outside fenced code blocks, numbered from 1. */
function proseLines(markdown: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, i) => {
    const opener = FENCE.exec(text)?.[1];
    if (fence !== undefined) {
      if (opener === fence) fence = undefined;
    } else if (opener !== undefined) fence = opener;
    else out.push({ line: i + 1, text });
  });
  return out;
}

/** Link and image targets of the prose (not inside code). */
export function links(markdown: string): Link[] {
  const out: Link[] = [];
  for (const { line, text } of proseLines(markdown)) {
    const prose = text.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) out.push({ line, target: m[1]! });
  }
  return out;
}

/** GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}
