/**
 * Every trial of a competition folder and what became of it, read from the files alone (no engine),
 * for reports built without a run's accounting (`sbeval score` after the stage commands). The reasons
 * are the ones `sbeval run` records (orchestrator/run/effects.ts), from the same pure functions:
 *
 * - an image in `images/` → complete;
 * - a level XML but no image → the simulate stage's recorded failure (`.sbeval/simulate/…`), else
 *   "no image (the level is not simulated yet)";
 * - a drop program but no level → the official converter's reason (`convertProgram`);
 * - a response but no program → `Code not found.` (`extractCode`);
 * - nothing at all for trial n ≤ T → "no response (the trial was never generated)".
 *
 * The trials are those with a file in `raw`, `intermediate`, `levels` or `images`, plus 1..T, for the
 * letters any of those stages has.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CODE_NOT_FOUND, extractCode } from '../../levels/extract.js';
import { convertProgram } from '../../levels/pipeline.js';
import { listCharacters, listFiles, stageDir, type TrialStage, trialBaseName, trialFileBase, trialIndexFromName } from '../layout/competition.js';
import { cachePath } from '../stages/level-cache.js';
import { officialBaseName } from '../stages/trial-transform.js';

export interface TrialFate {
  team: string;
  letter: string;
  /** The trial number as text, or the file's base name when it has no number. */
  trial: string;
  /** Why the trial has no image (official wording); empty when it is complete. */
  reason: string;
}

export const NEVER_GENERATED = 'no response (the trial was never generated)';
/** A trial whose next stage has not run on it yet (a subset of the work, an interrupted folder). */
export const NOT_EXTRACTED = 'not extracted (the response has no drop program yet)';
export const NOT_CONVERTED = 'not converted (the drop program has no level yet)';
export const NOT_SIMULATED = 'no image (the level is not simulated yet)';
const STAGES: TrialStage[] = ['raw', 'intermediate', 'levels', 'images'];

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function simulateFailure(dir: string, team: string, letter: string, base: string): string | undefined {
  const text = readText(cachePath(dir, team, letter, `${base}.xml`));
  if (text === undefined) return undefined;
  try {
    const entry = JSON.parse(text) as { outcome?: { ok?: boolean; reason?: unknown } };
    return entry.outcome?.ok === false && typeof entry.outcome.reason === 'string' ? entry.outcome.reason : undefined;
  } catch {
    return undefined;
  }
}

/** The fate of one trial from its files; `base` is its file name without extension. */
function trialFateFromFiles(dir: string, team: string, letter: string, base: string, prefix: string): string {
  const file = (stage: TrialStage, ext: string) => join(stageDir(dir, team, stage, letter), `${base}${ext}`);
  if (existsSync(file('images', '.png'))) return '';
  if (existsSync(file('levels', '.xml'))) return simulateFailure(dir, team, letter, base) ?? NOT_SIMULATED;
  const program = readText(file('intermediate', '.txt'));
  if (program !== undefined) {
    const converted = convertProgram(program, { prefix });
    return converted.ok ? NOT_CONVERTED : converted.reason;
  }
  const rawName = listFiles(stageDir(dir, team, 'raw', letter)).find((f) => officialBaseName(f) === base);
  if (rawName !== undefined) {
    const response = readText(join(stageDir(dir, team, 'raw', letter), rawName)) ?? '';
    return extractCode(response, prefix) === null ? CODE_NOT_FOUND : NOT_EXTRACTED;
  }
  return NEVER_GENERATED;
}

/** Every trial of the given teams (see the module comment), in team, letter, trial order. */
export function folderFates(dir: string, options: { teams: readonly string[]; trials: number; prefix: string }): TrialFate[] {
  const fates: TrialFate[] = [];
  const letters = new Set<string>();
  for (const team of options.teams) for (const stage of STAGES) for (const letter of listCharacters(dir, team, stage)) letters.add(letter);
  for (const team of options.teams) {
    for (const letter of [...letters].sort()) {
      const bases = new Set<string>();
      for (const stage of STAGES) {
        for (const f of listFiles(stageDir(dir, team, stage, letter))) {
          if (stage === 'images' && f.endsWith('_raw.png')) continue;
          const base = stage === 'raw' ? officialBaseName(f) : trialBaseName(f);
          if (base !== undefined) bases.add(base);
        }
      }
      const numbers = new Set([...bases].map((b) => trialIndexFromName(b)));
      for (let n = 1; n <= options.trials; n++) if (!numbers.has(n)) bases.add(trialFileBase(team, letter, n));
      const sorted = [...bases].sort((a, b) => {
        const ia = trialIndexFromName(a);
        const ib = trialIndexFromName(b);
        return Number.isFinite(ia) && Number.isFinite(ib) && ia !== ib ? ia - ib : a < b ? -1 : a > b ? 1 : 0;
      });
      for (const base of sorted) {
        const n = trialIndexFromName(base);
        fates.push({ team, letter, trial: Number.isFinite(n) ? String(n) : base, reason: trialFateFromFiles(dir, team, letter, base, options.prefix) });
      }
    }
  }
  return fates;
}
