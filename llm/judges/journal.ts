import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LineFile } from '../../orchestrator/layout/line-file.js';

/**
 * The judges' memory of every answer they received: `<root>/.sbeval/judges/<judge>/<name>.jsonl`, one
 * JSON line per attempt (the raw answer, what it parsed to or why it was refused, and what the call
 * cost), appended synchronously the moment the answer is in. A run killed at any moment loses at most
 * the calls in flight; a resumed run reads the journal and never asks again for an answer it has, nor
 * repeats an attempt it already made (retries continue with the next seed). A torn last line (a kill
 * mid-write) is ignored.
 *
 * Keyed by content: each line carries the fingerprint of the whole request — model, sampling
 * settings, the rendered prompt and the bytes of every image (task fingerprints, runner.ts). A level
 * whose XML, image or drop program changed, another rubric or view, or another judge model gives
 * another fingerprint, so its old answers stay in the file but do not count and the level is asked
 * again; an unchanged one is not.
 *
 * Bounded: the file is read in fixed-size chunks, a line longer than `maxLineBytes` (an answer from
 * before the answer cap, or garbage) is skipped without being held, and only each attempt's metadata
 * and place in the file stay in memory — its text is read back when needed (`content`). So a resume
 * over a journal of any size needs memory for the tasks, not for the answers.
 */
export interface AttemptLine {
  type: 'attempt';
  /** The task: `team/C/name` (rubric), `C/trial/teams…/p<k>` (ordering). */
  key: string;
  /** Digest of everything the request was made of (see above). */
  fingerprint: string;
  /** 0 for the first call, 1 for the first retry … */
  attempt: number;
  seed: number;
  model: string;
  ok: boolean;
  /** The judge's answer as received (thinking blocks included); head and tail of a refused one. */
  content: string;
  reason?: string;
  doneReason?: string;
  time: string;
  /** Digest of the rendered prompt (stored once in result/judge-prompts/<digest>.json). */
  prompt?: string;
  promptTokens?: number;
  completionTokens?: number;
  durationMs?: number;
  /** The answer's size in UTF-8 bytes as received. */
  bytes?: number;
  host?: string;
  /** The model's digest as the API reported it, when it does. */
  digest?: string;
}

/** An attempt as kept in memory: everything but the text, which `Journal.content` reads back. */
export type Attempt = Omit<AttemptLine, 'content'> & { readonly offset: number; readonly length: number };

/** Lines longer than this are skipped unread (an answer is capped far below it, runner.ts). */
const MAX_JOURNAL_LINE_BYTES = 32 * 1024 * 1024;
const CHUNK = 1024 * 1024;

export function journalPath(root: string, judge: string, name: string): string {
  return join(root, '.sbeval', 'judges', judge, `${name}.jsonl`);
}

interface JournalRead {
  attempts: Map<string, Attempt[]>;
  /** Lines skipped for their length. */
  oversized: number;
}

export class Journal {
  private startChecked = false;
  /** Guarded, and a line the disk refuses is cut off with a `[storage]` error naming the file (layout/line-file.ts). */
  private readonly lines: LineFile;

  constructor(
    readonly file: string,
    readonly maxLineBytes = MAX_JOURNAL_LINE_BYTES,
  ) {
    this.lines = new LineFile(file);
  }

  /** Attempts per task key with that key's fingerprint, in attempt order. */
  read(fingerprintOf: (key: string) => string | undefined): JournalRead {
    const attempts = new Map<string, Attempt[]>();
    let oversized = 0;
    if (!existsSync(this.file)) return { attempts, oversized };
    const take = (line: Buffer, offset: number) => {
      const attempt = parseLine(line, offset);
      if (!attempt || fingerprintOf(attempt.key) !== attempt.fingerprint) return;
      const list = attempts.get(attempt.key) ?? [];
      if (!list.some((a) => a.attempt === attempt.attempt)) list.push(attempt);
      attempts.set(attempt.key, list);
    };
    oversized = this.scanLines(take);
    for (const list of attempts.values()) list.sort((a, b) => a.attempt - b.attempt);
    return { attempts, oversized };
  }

  /** Calls `take` with every line of at most maxLineBytes (without its newline) and its offset; returns the lines skipped. */
  private scanLines(take: (line: Buffer, offset: number) => void): number {
    const fd = openSync(this.file, 'r');
    let skipped = 0;
    try {
      const chunk = Buffer.allocUnsafe(CHUNK);
      let parts: Buffer[] = [];
      let partBytes = 0;
      let lineStart = 0;
      let skipping = false;
      let position = 0;
      for (;;) {
        const read = readSync(fd, chunk, 0, CHUNK, position);
        if (read === 0) break;
        let from = 0;
        for (let nl = chunk.indexOf(0x0a, 0); nl >= 0 && nl < read; nl = chunk.indexOf(0x0a, from)) {
          if (!skipping) {
            const piece = chunk.subarray(from, nl);
            const line = partBytes === 0 ? piece : Buffer.concat([...parts, piece]);
            if (line.length <= this.maxLineBytes) take(line, lineStart);
            else skipped += 1;
          }
          parts = [];
          partBytes = 0;
          skipping = false;
          from = nl + 1;
          lineStart = position + from;
        }
        if (from < read && !skipping) {
          partBytes += read - from;
          if (partBytes > this.maxLineBytes) {
            skipping = true;
            skipped += 1;
            parts = [];
          } else parts.push(Buffer.from(chunk.subarray(from, read)));
        }
        position += read;
      }
      // A last line without its newline is a torn write: ignored.
    } finally {
      closeSync(fd);
    }
    return skipped;
  }

  /** The text of an attempt, read back from the file. */
  content(attempt: Attempt): string {
    const fd = openSync(this.file, 'r');
    try {
      const buffer = Buffer.allocUnsafe(attempt.length);
      readSync(fd, buffer, 0, attempt.length, attempt.offset);
      return (JSON.parse(buffer.toString('utf8')) as AttemptLine).content;
    } finally {
      closeSync(fd);
    }
  }

  /** Appends one line (synchronously, so a kill right after loses nothing) and returns it as kept in memory. */
  append(line: AttemptLine): Attempt {
    const size = existsSync(this.file) ? statSync(this.file).size : 0;
    // A torn last line (an earlier writer stopped mid-line, e.g. by a full disk) has no newline: the
    // first line this run appends starts on a line of its own, else it would be glued to the torn one
    // and lost on the next read.
    const prefix = this.startChecked || !endsMidLine(this.file) ? '' : '\n';
    this.startChecked = true;
    const json = JSON.stringify(line);
    this.write(`${prefix}${json}\n`);
    const { content: _content, ...meta } = line;
    return { ...meta, offset: size + prefix.length, length: Buffer.byteLength(json, 'utf8') };
  }

  private write(text: string): void {
    this.lines.append(text);
  }
}

/** The file exists, is not empty and its last byte is not a newline. */
function endsMidLine(file: string): boolean {
  if (!existsSync(file)) return false;
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
}

function parseLine(line: Buffer, offset: number): Attempt | undefined {
  if (line[0] !== 0x7b) return undefined;
  let parsed: AttemptLine;
  try {
    parsed = JSON.parse(line.toString('utf8')) as AttemptLine;
  } catch {
    return undefined;
  }
  if (parsed.type !== 'attempt' || typeof parsed.key !== 'string' || typeof parsed.attempt !== 'number' || typeof parsed.content !== 'string') return undefined;
  const { content: _content, ...meta } = parsed;
  return { ...meta, offset, length: line.length };
}
