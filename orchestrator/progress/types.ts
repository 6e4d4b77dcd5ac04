/**
 * What a long-running stage tells the user while it works. Stages call this interface; the CLI
 * chooses the display (live bars on a terminal, periodic plain lines otherwise, JSON lines with
 * `--json`). Stages never write progress to stdout themselves.
 */
export type TickOutcome = 'ok' | 'failed' | 'skipped';

export interface ProgressSink {
  /** A stage starts with `total` units of work (trials, images, files). */
  start(stage: string, total: number): void;
  /** One unit finished. `label` names it (e.g. `team/A/team_A_3`), `detail` says why it failed. */
  tick(stage: string, outcome: TickOutcome, label?: string, detail?: string): void;
  /** Free-form notice (a retry, an engine restart). */
  note(stage: string, message: string): void;
  end(stage: string): void;
}

export const SILENT_PROGRESS: ProgressSink = {
  start() {},
  tick() {},
  note() {},
  end() {},
};
