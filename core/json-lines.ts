import { readFileSync } from 'node:fs';

/**
 * The lines of a file another process may be appending to (run logs, generate and judge logs, call
 * logs). Every writer appends a line with its newline in one write, so a reader sees the whole line or
 * none of it — except when it reads while the write is under way, or after a process died mid-write.
 * Hence the rule: the text after the last newline is a line not yet written (`pending`), never an
 * error; a complete line that does not parse is corrupt, and the caller says so.
 */
export interface JsonLines {
  /** The parsed complete lines, in file order (blank lines left out). */
  readonly records: unknown[];
  /** Complete lines that are not JSON: their 1-based line number and the parser's message. */
  readonly corrupt: ReadonlyArray<{ line: number; message: string }>;
  /** The unterminated last line, if any ('' when the text ends with a newline). */
  readonly pending: string;
}

/** The complete lines of `text` (each without its newline) and the unterminated rest. */
export function wholeLines(text: string): { lines: string[]; pending: string } {
  const end = text.lastIndexOf('\n');
  if (end < 0) return { lines: [], pending: text };
  return { lines: text.slice(0, end).split('\n'), pending: text.slice(end + 1) };
}

export function parseJsonLines(text: string): JsonLines {
  const { lines, pending } = wholeLines(text);
  const records: unknown[] = [];
  const corrupt: Array<{ line: number; message: string }> = [];
  lines.forEach((line, index) => {
    if (line.trim().length === 0) return;
    try {
      records.push(JSON.parse(line));
    } catch (error) {
      corrupt.push({ line: index + 1, message: (error as Error).message });
    }
  });
  return { records, corrupt, pending };
}

/** `parseJsonLines` of a file; a file that does not exist yet has no lines. */
export function readJsonLines(file: string): JsonLines {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], corrupt: [], pending: '' };
    throw error;
  }
  return parseJsonLines(text);
}
