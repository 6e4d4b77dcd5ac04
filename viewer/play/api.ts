import { HttpError } from '../../core/http-guard.js';
import { evaluateXml, guessKind, prepareLevel } from './evaluate.js';

/**
 * The playground's local JSON API (behind `sbeval play`), for a notebook that calls the evaluator in a
 * loop: the page's own functions (./evaluate.ts), run in the server's process.
 *
 * - `POST /api/extract` `{ text, kind? }` → the official extraction and conversion: `{ ok: true, kind,
 *   xml, code? }` or `{ ok: false, kind, stage, reason }` (the official wording).
 * - `POST /api/level` `{ text, kind? }` → that, then the evaluator's trials: `{ ok: true, kind, xml,
 *   score, startingObjects, movingObjects, trials: [{ score, movingObjects, moving }] }`, or the stage
 *   that refused it (`simulate` for a level over the simulation budget) and why.
 *
 * `kind` is `response`, `program`, `xml` or `auto` (the default: the page's guess). Requests must be
 * `application/json` (a page elsewhere cannot send that without a CORS preflight, which this server
 * does not answer) and at most MAX_BODY_BYTES.
 */
export const API_PATHS = ['/api/extract', '/api/level'] as const;

/** A pasted response or level is a few kilobytes; the largest level XML the reader accepts is 1 MiB (levels/xml-read.ts). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

const KINDS = new Set(['auto', 'response', 'program', 'xml']);

function requestOf(body: string): { text: string; kind: 'response' | 'program' | 'xml' } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new HttpError(400, 'the body is not JSON');
  }
  const { text, kind = 'auto' } = (parsed ?? {}) as { text?: unknown; kind?: unknown };
  if (typeof text !== 'string') throw new HttpError(400, 'the body needs "text": the response, drop program or level XML');
  if (typeof kind !== 'string' || !KINDS.has(kind)) throw new HttpError(400, `"kind" is one of ${[...KINDS].join(', ')}`);
  return { text, kind: kind === 'auto' ? guessKind(text) : (kind as 'response' | 'program' | 'xml') };
}

/** The JSON answer of one API call. */
export function answerApi(path: string, body: string): object {
  const { text, kind } = requestOf(body);
  const prepared = prepareLevel(text, kind);
  if (!prepared.ok || path === '/api/extract') return { kind, ...prepared };
  const result = evaluateXml('api', prepared.xml);
  if (!result.ok) return { kind, ok: false, stage: 'simulate', reason: result.reason };
  const s = result.stability;
  return {
    kind,
    ok: true,
    xml: prepared.xml,
    score: s.score,
    startingObjects: s.startingObjects,
    movingObjects: s.movingObjects,
    trials: result.trials.map((t) => ({ score: t.score, movingObjects: t.movingObjects, moving: t.moving })),
  };
}
