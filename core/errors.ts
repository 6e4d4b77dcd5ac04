/**
 * Errors that cross a stage or process boundary carry a phase and, when we know one, the fix.
 * (Lesson from ML-Agents: a timeout that does not say where and what to do is the most reported problem.)
 */
type Phase =
  | 'config'
  | 'input'
  /** The file system failed us (disk full, read-only, permissions) or the folder is in use: core/storage.ts. */
  | 'storage'
  /** A server could not be reached or answered wrongly (a download, a hub): the setup is fine, the network is not. */
  | 'network'
  | 'extract'
  | 'convert'
  | 'simulate'
  | 'capture'
  | 'similarity'
  | 'diversity'
  | 'score'
  | 'generate'
  | 'judge'
  | 'survey'
  | 'launch'
  | 'handshake'
  | 'protocol'
  | 'shutdown';

export class SbevalError extends Error {
  readonly phase: Phase;
  readonly hint: string | undefined;
  constructor(phase: Phase, message: string, hint?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SbevalError';
    this.phase = phase;
    this.hint = hint;
  }
}

/** A one-line human description of any thrown value, for logs and failure reasons. */
export function describeError(error: unknown): string {
  if (error instanceof SbevalError) return error.hint ? `${error.message} (${error.hint})` : error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
