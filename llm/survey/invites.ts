import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { SbevalError } from '../../core/errors.js';
import { describeIssue } from '../../orchestrator/config/load.js';
import { writeFileAtomic } from '../../orchestrator/layout/atomic.js';

/**
 * Invitations to rate (`sbeval survey invite <root> N`): each invitation is one rater id
 * (`rater-01`, `rater-02` …) and an unguessable token (32 random bytes, base64url) that travels in the
 * rater's link (`<survey URL>#invite=<token>`: a fragment, so it never reaches a server log or a
 * proxy). The survey keeps only each token's SHA-256 in `<survey>/invites.json`; a request to the
 * survey's API carries the token in the `X-Survey-Token` header and is the rater's, or is refused.
 * The links are printed once; a lost link is replaced by a new invitation (a new rater id).
 */
export interface Invite {
  rater: string;
  tokenSha256: string;
  created: string;
}

const file = z.object({
  version: z.literal(1),
  invites: z.array(z.object({ rater: z.string(), tokenSha256: z.string().regex(/^[0-9a-f]{64}$/), created: z.string() })),
});

const TOKEN_BYTES = 32;

function invitesPath(out: string): string {
  return join(out, 'invites.json');
}

const digest = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export function readInvites(out: string): Invite[] {
  const path = invitesPath(out);
  if (!existsSync(path)) return [];
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new SbevalError('survey', `${path}: not JSON (${(error as Error).message.split('\n')[0]})`);
  }
  const parsed = file.safeParse(data);
  if (!parsed.success) throw new SbevalError('survey', `${path}: not an invitations file (${parsed.error.issues.slice(0, 3).map(describeIssue).join('; ')})`);
  return parsed.data.invites;
}

/** The rater a token belongs to, or undefined (compared in constant time per invitation). */
export function raterOfToken(invites: readonly Invite[], token: string): string | undefined {
  if (token.length === 0 || token.length > 200) return undefined;
  const given = Buffer.from(digest(token), 'hex');
  let found: string | undefined;
  for (const invite of invites) if (timingSafeEqual(given, Buffer.from(invite.tokenSha256, 'hex'))) found = invite.rater;
  return found;
}

/** N new invitations (rater ids continue the numbering); returns their tokens, which are not stored. */
export async function createInvites(out: string, count: number): Promise<Array<{ rater: string; token: string }>> {
  if (!existsSync(join(out, 'survey.json')))
    throw new SbevalError('survey', `no survey at ${join(out, 'survey.json')}`, 'build one first: sbeval survey build <root>');
  const invites = readInvites(out);
  const taken = new Set(invites.map((i) => i.rater));
  const created: Array<{ rater: string; token: string }> = [];
  const width = Math.max(2, String(invites.length + count).length);
  for (let k = invites.length + 1; created.length < count; k += 1) {
    const rater = `rater-${String(k).padStart(width, '0')}`;
    if (taken.has(rater)) continue;
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    invites.push({ rater, tokenSha256: digest(token), created: new Date().toISOString() });
    created.push({ rater, token });
  }
  await writeFileAtomic(invitesPath(out), `${JSON.stringify({ version: 1, invites }, null, 2)}\n`);
  return created;
}

/** A rater's link: the survey's address with the token in the fragment. */
export function inviteLink(base: string, token: string): string {
  const url = new URL(base);
  url.hash = `invite=${token}`;
  return url.toString();
}
