import type { ProtocolErrorCode } from './protocol.js';

/**
 * Why a connection was refused, as a fixed kind chosen by the endpoint — never the stranger's own words
 * (a close reason is theirs: keyed on it, 3,000 strangers would write 3,000 log lines).
 */
export type RefusalKind = 'too-many' | 'pre-auth-bytes' | 'bad-upgrade' | 'closed-before-hello' | ProtocolErrorCode;

export interface RejectedConnection {
  remote: string;
  reason: string;
  code: number;
  kind: RefusalKind;
}

/** Refusals of each kind logged one by one, with the peer and the reason; the rest are counted. */
export const DETAILED_REFUSALS_PER_KIND = 5;
/** How often the counted refusals are summed up in one line (fixed size: one count per kind). */
export const REFUSAL_SUMMARY_MS = 60_000;

/**
 * The endpoint's account of refused connections, bounded whatever strangers do: a count per kind (a
 * fixed set of keys), the first few of each kind logged with their reason, and then one summary line
 * per interval that had refusals — at most one line a minute, never a line per stranger.
 */
export class RefusalLog {
  readonly total = new Map<RefusalKind, number>();
  private readonly pending = new Map<RefusalKind, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: (line: string) => void,
    private readonly intervalMs: number,
  ) {}

  add(rejected: RejectedConnection): void {
    const count = (this.total.get(rejected.kind) ?? 0) + 1;
    this.total.set(rejected.kind, count);
    if (count <= DETAILED_REFUSALS_PER_KIND) {
      const more = count === DETAILED_REFUSALS_PER_KIND ? ` (further refusals of this kind are summed up every ${Math.round(this.intervalMs / 1000)} s)` : '';
      this.log(`connection from ${rejected.remote} refused (${rejected.kind}): ${rejected.reason}${more}`);
      return;
    }
    this.pending.set(rejected.kind, (this.pending.get(rejected.kind) ?? 0) + 1);
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.intervalMs);
      this.timer.unref();
    }
  }

  /** Writes the summary of the refusals counted since the last one, if any. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const counted = [...this.pending.values()].reduce((a, b) => a + b, 0);
    const kinds = [...this.pending.entries()].map(([kind, n]) => `${kind} ${n}`).join(', ');
    const all = [...this.total.values()].reduce((a, b) => a + b, 0);
    this.pending.clear();
    this.log(`${counted} more connection(s) refused: ${kinds} (${all} refused since the endpoint started)`);
  }
}
