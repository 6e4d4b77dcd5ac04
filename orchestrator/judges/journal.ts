import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { LineFile } from '../layout/line-file.js';

/**
 * The judges' memory of every answer they received: `<root>/.sbeval/judges/<name>.jsonl`, one JSON
 * line per attempt (the raw answer, what it parsed to, or why it was refused), appended synchronously
 * the moment the answer is in. A run killed at any moment loses at most the calls in flight; a
 * resumed run reads the journal and never asks again for an answer it has, nor repeats an attempt
 * it already made (retries continue with the next seed). A torn last line (a kill mid-write) is
 * ignored. Lines carry the fingerprint of everything that shaped the question (model, view, prompt,
 * rubric, seed, temperature): answers to other settings stay in the file but do not count.
 */
export interface AttemptLine {
  type: 'attempt';
  /** The task: `team/C/name` (rubric), `C/trial/teams…/p<k>` (ordering). */
  key: string;
  fingerprint: string;
  /** 0 for the first call, 1 for the first retry … */
  attempt: number;
  seed: number;
  model: string;
  ok: boolean;
  /** The judge's answer as received (thinking blocks included). */
  content: string;
  reason?: string;
  doneReason?: string;
  time: string;
}

export function journalPath(root: string, name: string): string {
  return join(root, '.sbeval', 'judges', `${name}.jsonl`);
}

export class Journal {
  private startChecked = false;
  /** Guarded, and a line the disk refuses is cut off with a `[storage]` error naming the file (layout/line-file.ts). */
  private readonly lines: LineFile;

  constructor(readonly file: string) {
    this.lines = new LineFile(file);
  }

  /** Attempts per task key with this fingerprint, in attempt order. */
  read(fingerprintOf: (key: string) => string | undefined): Map<string, AttemptLine[]> {
    const byKey = new Map<string, AttemptLine[]>();
    if (!existsSync(this.file)) return byKey;
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      if (!line.startsWith('{')) continue;
      let parsed: AttemptLine;
      try {
        parsed = JSON.parse(line) as AttemptLine;
      } catch {
        continue;
      }
      if (parsed.type !== 'attempt' || typeof parsed.key !== 'string' || typeof parsed.attempt !== 'number') continue;
      if (fingerprintOf(parsed.key) !== parsed.fingerprint) continue;
      const list = byKey.get(parsed.key) ?? [];
      if (!list.some((a) => a.attempt === parsed.attempt)) list.push(parsed);
      byKey.set(parsed.key, list);
    }
    for (const list of byKey.values()) list.sort((a, b) => a.attempt - b.attempt);
    return byKey;
  }

  append(line: AttemptLine): void {
    // A torn last line (an earlier writer stopped mid-line, e.g. by a full disk) has no newline: the
    // first line this run appends starts on a line of its own, else it would be glued to the torn one
    // and lost on the next read.
    const prefix = this.startChecked || !endsMidLine(this.file) ? '' : '\n';
    this.startChecked = true;
    this.lines.append(`${prefix}${JSON.stringify(line)}\n`);
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
