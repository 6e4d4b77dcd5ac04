import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CompetitionFolder, Settings } from '../config/index.js';
import { listCharacters, listFiles, listTeams, stageDir, type TrialStage, trialBaseName, trialFileBase, trialIndexFromName } from '../layout/competition.js';
import { assertSafeName } from '../layout/names.js';
import type { LevelRef } from '../machine/index.js';
import { cachePath } from '../stages/level-cache.js';
import { type LevelFiles, type LoggedLevel, rawImageOf } from '../stages/level-results.js';
import { officialBaseName } from '../stages/trial-transform.js';

/**
 * The trials a run accounts for: every trial file found in `raw`, `intermediate` or `levels` of the
 * selected teams and characters, plus every trial number 1..T that has no file at all (a response
 * that was never generated counts as a trial that never became a level, as the official scoring counts
 * it as 0). Names come from folders and are checked (orchestrator/layout/names.ts).
 */
export const LEVEL_STAGES: readonly TrialStage[] = ['raw', 'intermediate', 'levels'];

interface TrialUniverseOptions {
  /** Teams to include (default: every team folder). */
  teams?: readonly string[] | undefined;
  /** Characters to include; with `expectAll`, each one is expected for every team. */
  characters: readonly string[];
  /** Trials per character (T). */
  trials: number;
  /** Model folder name for ids (2025-style runs with a folder per model). */
  model?: string | undefined;
}

export interface LevelPaths {
  raw: string | undefined;
  intermediate: string;
  level: string;
  image: string;
}

export interface PlannedLevel {
  ref: LevelRef;
  paths: LevelPaths;
}

/** A trial as the ledger and the stability log name it (stages/level-results.ts). */
export function loggedLevel(ref: LevelRef): LoggedLevel {
  return { id: ref.id, team: ref.team, character: ref.character, file: `${ref.base}.xml` };
}

/** A trial's level, image and cache files (stages/level-results.ts). */
export function levelFiles(root: string, ref: LevelRef, paths: LevelPaths): LevelFiles {
  return { xml: paths.level, png: paths.image, raw: rawImageOf(paths.image), cache: cachePath(root, ref.team, ref.character, `${ref.base}.xml`) };
}

/**
 * The trials `result/` accounts for in one competition folder: every team folder × the competition's
 * letters (the config's, else every letter with files) × its trials. `run` plans its levels from them;
 * the result step accounts for them (orchestrator/result/trial-accounting.ts).
 */
export function accountedLevels(settings: Pick<Settings, 'competitionLetters' | 'characters' | 'trials'>, competition: CompetitionFolder): PlannedLevel[] {
  const letters = settings.competitionLetters ?? charactersFound(competition.root);
  return planLevels(competition.root, { characters: letters.length > 0 ? letters : settings.characters, trials: settings.trials, model: competition.model });
}

/**
 * The folder has fewer trials than T and T was not set: the others count as never generated. Said by
 * the result step (orchestrator/result/trial-accounting.ts), so `run` and `score` list it alike.
 */
export function fewerTrialsMessage(settings: Pick<Settings, 'trials' | 'sources'>, planned: readonly PlannedLevel[]): string | undefined {
  const highest = Math.max(
    0,
    ...planned.filter((l) => l.paths.raw !== undefined || existsSync(l.paths.level)).map((l) => (Number.isFinite(l.ref.trial) ? l.ref.trial : 0)),
  );
  if (settings.sources.trials !== 'default' || highest === 0 || highest >= settings.trials) return undefined;
  return `expecting ${settings.trials} trials per character (the official T), found at most ${highest}: the others count as never generated; set \`trials: ${highest}\` in sbeval.config.yaml if that is intended`;
}

/** Every trial of every selected team and character, in a deterministic order (team, character, trial). */
export function planLevels(root: string, options: TrialUniverseOptions): PlannedLevel[] {
  const wantedTeams = options.teams && options.teams.length > 0 ? new Set(options.teams) : undefined;
  const teams = listTeams(root).filter((t) => !wantedTeams || wantedTeams.has(t));
  for (const team of wantedTeams ?? []) {
    // A configured team without a folder still has T missing trials per character.
    if (!teams.includes(team)) teams.push(assertSafeName('team', team));
  }
  const planned: PlannedLevel[] = [];
  for (const team of teams) {
    for (const character of options.characters) {
      const bases = new Map<string, { raw?: string }>();
      for (const stage of LEVEL_STAGES) {
        if (!listCharacters(root, team, stage).includes(character)) continue;
        for (const file of listFiles(stageDir(root, team, stage, character))) {
          const base = stage === 'raw' ? officialBaseName(file) : trialBaseName(file);
          if (base === undefined) continue;
          const entry = bases.get(base) ?? {};
          if (stage === 'raw' && entry.raw === undefined) entry.raw = file;
          bases.set(base, entry);
        }
      }
      const present = new Set([...bases.keys()].map((b) => trialIndexFromName(b)));
      for (let n = 1; n <= options.trials; n += 1) {
        if (!present.has(n)) bases.set(trialFileBase(team, character, n), {});
      }
      const sorted = [...bases.entries()].sort(([a], [b]) => compareBases(a, b));
      for (const [base, entry] of sorted) {
        const id = [options.model, team, character, base].filter((p) => p !== undefined).join('/');
        planned.push({
          ref: { id, team, model: options.model, character, trial: trialIndexFromName(base), base },
          paths: {
            raw: entry.raw === undefined ? undefined : join(stageDir(root, team, 'raw', character), entry.raw),
            intermediate: join(stageDir(root, team, 'intermediate', character), `${base}.txt`),
            level: join(stageDir(root, team, 'levels', character), `${base}.xml`),
            image: join(stageDir(root, team, 'images', character), `${base}.png`),
          },
        });
      }
    }
  }
  return planned;
}

function compareBases(a: string, b: string): number {
  const ia = trialIndexFromName(a);
  const ib = trialIndexFromName(b);
  if (Number.isFinite(ia) && Number.isFinite(ib) && ia !== ib) return ia - ib;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The characters to run: the configured ones, or those with a folder in any level stage of any team. */
function charactersFound(root: string, teams?: readonly string[]): string[] {
  const found = new Set<string>();
  for (const team of listTeams(root)) {
    if (teams && teams.length > 0 && !teams.includes(team)) continue;
    for (const stage of LEVEL_STAGES) {
      if (!existsSync(stageDir(root, team, stage))) continue;
      for (const c of listCharacters(root, team, stage)) found.add(c);
    }
  }
  return [...found].sort();
}
