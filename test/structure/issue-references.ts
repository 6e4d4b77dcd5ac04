import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * References to the issue tracker (the word "issue" or "issues", then a number, "#" allowed): a reader
 * of the repository cannot open them, so comments and docs state the rule and its reason, or cite a file,
 * instead (docs/architecture.md, "Comments and docs").
 */
const ISSUE_REFERENCE = /\bissues?\s*#?\s*\d+/gi;

/** Paths the rule does not read: installed and built code, and test fixtures kept byte for byte. */
const NOT_SCANNED = /^(?:node_modules|dist|test\/fixtures|issues)(?:\/|$)|(?:^|\/)node_modules\//;

/** File endings of binary files (images, models, archives): no text to read. */
const BINARY = /\.(?:png|jpe?g|gif|ico|onnx|bin|gz|zip|tgz|wasm|ttf|woff2?|unity|asset|meta|dll)$/i;

/** Whether the rule reads a repository path. */
export function scanned(path: string): boolean {
  return !NOT_SCANNED.test(path) && !BINARY.test(path);
}

/** Each line of `text` that names an issue by number, with the words that do. */
export function issueReferences(text: string): Array<{ line: number; match: string }> {
  const out: Array<{ line: number; match: string }> = [];
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(ISSUE_REFERENCE)) out.push({ line: i + 1, match: m[0] });
  });
  return out;
}

/** The repository's files the rule reads: tracked or new (not ignored), without the excluded paths. */
export function scannedFiles(root: string): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  return listed.split('\n').filter((p) => p !== '' && scanned(p));
}

/** `file:line: match` for every issue reference in the scanned files under `root`. */
export function issueReferenceProblems(root: string, files: readonly string[]): string[] {
  const problems: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      continue; // listed but deleted in the work tree
    }
    if (text.includes('\0')) continue;
    for (const r of issueReferences(text)) problems.push(`${file}:${r.line}: "${r.match}"`);
  }
  return problems;
}
