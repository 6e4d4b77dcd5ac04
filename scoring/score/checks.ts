/**
 * Input checks. The official script trusts its inputs (and writes nothing at all when one team's
 * folders hold different numbers of files); here every inconsistency becomes a warning that names
 * the file and says what the score assumed, and scoring goes on.
 */
import { CHARACTERS, DEFAULT_TRIALS, type RuleSet } from './rules.js';
import type { CharacterInput, ScoreInput, TrialValue } from './types.js';

export type WarningCode =
  | 'unreadable'
  | 'file-count'
  | 'missing-file'
  | 'no-files'
  | 'duplicate-trial'
  | 'trial-out-of-range'
  | 'not-finite'
  | 'out-of-range'
  | 'extra-file'
  | 'model'
  /** Not from scoring: a warning of another stage of `sbeval run`, listed with the score's. */
  | 'run';

export interface ScoreWarning {
  code: WarningCode;
  /** What is wrong and what the score assumed. */
  message: string;
  /** The file (or folder) concerned, when there is one. */
  file?: string;
  team?: string;
  character?: string;
}

type StageKey = 'stability' | 'similarity';

function label(c: CharacterInput | undefined, stage: StageKey | 'diversity', team: string, character: string): string {
  return c?.sources?.[stage] ?? `${team}/${stage}/${character}.json`;
}

function checkValues(values: readonly TrialValue[], t: number, file: string, stage: StageKey, team: string, character: string): ScoreWarning[] {
  const warnings: ScoreWarning[] = [];
  const at = { file, team, character };
  const seen = new Map<number, string>();
  for (const v of values) {
    if (!Number.isInteger(v.trial) || v.trial < 1 || v.trial > t) {
      warnings.push({
        code: 'trial-out-of-range',
        message: `${stage} entry "${v.name}" has trial index ${Number.isNaN(v.trial) ? 'none' : v.trial}, not 1..${t}: not used as a trial, but its value still counts in the ${character} weight (as officially)`,
        ...at,
      });
    } else if (seen.has(v.trial)) {
      warnings.push({
        code: 'duplicate-trial',
        message: `${stage} trial ${v.trial} appears twice ("${seen.get(v.trial)}" and "${v.name}"): the first entry is used; both count in the ${character} weight (as officially)`,
        ...at,
      });
    } else seen.set(v.trial, v.name);
    if (!Number.isFinite(v.value)) {
      warnings.push({ code: 'not-finite', message: `${stage} value of "${v.name}" is ${v.value}: taken as 0`, ...at });
    } else if (v.value < 0 || v.value > 1) {
      warnings.push({ code: 'out-of-range', message: `${stage} value of "${v.name}" is ${v.value}, outside [0, 1]: used as is`, ...at });
    }
  }
  return warnings;
}

/** Data warnings for every team and character (file-level problems are added by the stage that reads). */
export function checkInputs(input: ScoreInput, rules: RuleSet): ScoreWarning[] {
  const t = input.trials ?? DEFAULT_TRIALS;
  const warnings: ScoreWarning[] = [];
  for (const team of input.teams) {
    const cells = input.inputs.get(team);
    const present = CHARACTERS.filter((character) => {
      const c = cells?.get(character);
      return c?.stability !== undefined || c?.similarity !== undefined || c?.diversityRate !== undefined;
    });
    if (present.length === 0) {
      warnings.push({ code: 'no-files', message: `team ${team} has no result files: every score is 0 (the team still counts in P)`, team });
      continue;
    }
    for (const character of CHARACTERS) {
      const c = cells?.get(character);
      const stages: Array<StageKey | 'diversity'> = rules.diversity ? ['stability', 'similarity', 'diversity'] : ['stability', 'similarity'];
      const has = (s: StageKey | 'diversity') => (s === 'diversity' ? c?.diversityRate !== undefined : c?.[s] !== undefined);
      const missing = stages.filter((s) => !has(s));
      if (missing.length > 0 && missing.length < stages.length) {
        for (const s of missing) {
          const consequence =
            s === 'diversity' ? `diversity taken as 0, so every ${character} score of ${team} is 0` : `every ${s} value of ${team} ${character} taken as 0`;
          warnings.push({
            code: 'missing-file',
            message: `${label(c, s, team, character)} is missing: ${consequence}`,
            file: label(c, s, team, character),
            team,
            character,
          });
        }
      }
      for (const s of ['stability', 'similarity'] as const) {
        const values = c?.[s];
        if (values) warnings.push(...checkValues(values, t, label(c, s, team, character), s, team, character));
      }
      if (rules.diversity && c?.diversityRate !== undefined) {
        const file = label(c, 'diversity', team, character);
        if (!Number.isFinite(c.diversityRate))
          warnings.push({ code: 'not-finite', message: `diversityRate is ${c.diversityRate}: taken as 0`, file, team, character });
        else if (c.diversityRate < 0 || c.diversityRate > 2)
          warnings.push({
            code: 'out-of-range',
            message: `diversityRate ${c.diversityRate} is outside [0, 2] (cosine distances): used as is`,
            file,
            team,
            character,
          });
      }
    }
  }
  return warnings;
}
