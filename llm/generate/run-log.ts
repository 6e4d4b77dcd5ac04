import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type JsonLines, readJsonLines } from '../../core/json-lines.js';
import { logsDir } from '../../orchestrator/layout/competition.js';
import { LineFile } from '../../orchestrator/layout/line-file.js';
import { logFileStamp } from '../../orchestrator/layout/stage-log.js';

/**
 * The machine-readable record of a generate run: `<root>/logs/generate_<ISO>.jsonl`, one JSON object
 * per line, appended synchronously (a killed run keeps every line written before the kill; a torn
 * last line is ignored when read back). Line types:
 * - `start`: the configuration (submission and its sha256, team, models, hosts, letters, trials,
 *   master seed, limits, sampling options, layout);
 * - `call`: every attempt of every chat call — time, model, host, team, character, trial, seed, turn,
 *   attempt number, ok, promptTokens, completionTokens, durationMs, doneReason or error;
 * - `trial`: every finished trial — outcome `ok` (with the file) or `failed` (with the reason, its kind
 *   `time | tokens | program | unavailable | error`, and `final`), elapsed seconds, tokens, calls;
 * - `host`: a host set aside, back, unreachable, or missing a model;
 * - `end`: the summary.
 */
export type FailureKind = 'time' | 'tokens' | 'program' | 'unavailable' | 'error';

export interface TrialIdentity {
  model: string;
  team: string;
  character: string;
  trial: number;
  seed: number;
}

export interface CallLine extends TrialIdentity {
  type: 'call';
  time: string;
  host: string;
  turn: number;
  attempt: number;
  ok: boolean;
  promptTokens?: number;
  completionTokens?: number;
  durationMs: number;
  doneReason?: string | undefined;
  error?: string | undefined;
}

export interface TrialLine extends TrialIdentity {
  type: 'trial';
  time: string;
  outcome: 'ok' | 'failed';
  /** Output path relative to the run root (forward slashes). */
  file: string;
  reason?: string;
  kind?: FailureKind;
  /** A final failure is not retried by a later run (unless `--retry-failed`). */
  final?: boolean;
  /** Identity of what produced the outcome: a final failure only counts for the same submission and limits. */
  fingerprint: string;
  elapsedS: number;
  promptTokens: number;
  completionTokens: number;
  calls: number;
}

type LogLine = Record<string, unknown> & { type: string };

export class RunLog {
  readonly file: string;
  private readonly lines: LineFile;

  /** `name`: the file's prefix (`generate`, or a judge's `judge-rubric` …), all with the same line types. */
  constructor(root: string, startedAt: Date = new Date(), name = 'generate') {
    this.file = join(logsDir(root), `${name}_${logFileStamp(startedAt)}.jsonl`);
    this.lines = new LineFile(this.file);
    this.lines.open();
  }

  /** Appends one line; a line the disk refuses is cut off again and a StorageError stops the stage (core/storage.ts). */
  write(line: LogLine): void {
    this.lines.append(`${JSON.stringify(line)}\n`);
  }
}

/**
 * Final failures recorded by earlier runs under `<root>/logs/generate_*.jsonl`: output file →
 * fingerprints that failed for good. A trial that later succeeded has its file and is skipped anyway.
 * A log another run is still writing may end in half a line: not yet written (core/json-lines.ts). A
 * complete line that is not JSON is named in `corrupt` (its trial, if it was one, is simply tried again).
 */
export function readFinalFailures(root: string): { failures: Map<string, Set<string>>; corrupt: string[] } {
  const failures = new Map<string, Set<string>>();
  const corrupt: string[] = [];
  const dir = join(root, 'logs');
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith('generate_') && n.endsWith('.jsonl'));
  } catch {
    return { failures, corrupt };
  }
  for (const name of names.sort()) {
    let lines: JsonLines;
    try {
      lines = readJsonLines(join(dir, name));
    } catch {
      continue;
    }
    for (const bad of lines.corrupt) corrupt.push(`logs/${name}:${bad.line}`);
    for (const record of lines.records) {
      const parsed = (record ?? {}) as Partial<TrialLine>;
      if (parsed.type !== 'trial' || parsed.outcome !== 'failed' || parsed.final !== true) continue;
      if (typeof parsed.file !== 'string' || typeof parsed.fingerprint !== 'string') continue;
      let set = failures.get(parsed.file);
      if (!set) failures.set(parsed.file, (set = new Set()));
      set.add(parsed.fingerprint);
    }
  }
  return { failures, corrupt };
}
