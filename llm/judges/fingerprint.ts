import { createHash } from 'node:crypto';

/** A short, stable digest of everything that shapes a judge's question (see journal.ts). */
export function fingerprint(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}
