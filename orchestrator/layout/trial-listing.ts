import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSimilarityJson } from '../../scoring/formats/similarity.js';
import { parseStabilityJson } from '../../scoring/formats/stability.js';
import { restoreCsvText } from '../../scoring/formats/text-escape.js';
import type { CompetitionTrial, ViewerSource } from '../../viewer/server.js';
import { openTraceFile } from '../../viewer/trace-source.js';
import { resolveSettings } from '../config/index.js';
import { folderFates, type TrialFate } from '../report/fates.js';
import {
  compareNames,
  compareTrialFiles,
  listCharacters,
  listTeams,
  listTrialFiles,
  resultDir,
  stageDir,
  trialBaseName,
  trialFileBase,
  trialIndexFromName,
} from './competition.js';

/**
 * Trace files by convention (bridge/trace.ts): `.sbtrace`, `.sbtrace.gz` (`.trace[.gz]` accepted too),
 * optionally with the evaluator trial they hold: `<name>.trial<k>.sbtrace` (orchestrator/run/effects.ts).
 */
const TRACE_FILE = /^(.*?)(?:\.trial(\d+))?\.(?:sb)?trace(?:\.gz)?$/;

/** `team_A_1.trial2.sbtrace` → `{ base: 'team_A_1', trial: 2 }` (trial 1 when the name does not say). */
function parseTraceName(file: string): { base: string; trial: number } {
  const m = TRACE_FILE.exec(file);
  if (!m) return { base: trialBaseName(file), trial: 1 };
  return { base: m[1]!, trial: m[2] ? Number(m[2]) : 1 };
}

function lastPathPart(tag: string): string {
  return tag.split(/[\\/]/).at(-1) ?? tag;
}

function readJson<T>(path: string, parse: (text: string, source: string) => T): T | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return parse(readFileSync(path, 'utf8'), path);
  } catch {
    // A broken score file should not hide the trials; the list just shows no score.
    return undefined;
  }
}

/**
 * The trials of a competition folder as the viewer lists them: by team, then character, then trial
 * index, with the files that exist for each (level XML, trace, image) and the scores already computed
 * (`<team>/stability/<C>.json`, `<team>/similarity/<C>.json`), read with the official formats' readers.
 */
export function listCompetition(root: string): CompetitionTrial[] {
  const byKey = new Map<string, CompetitionTrial>();
  const entry = (team: string, character: string, name: string): CompetitionTrial => {
    const key = `${team}/${character}/${name}`;
    let t = byKey.get(key);
    if (!t) {
      t = {
        key,
        team,
        character,
        trial: trialIndexFromName(name),
        name,
        levelPath: undefined,
        tracePath: undefined,
        traces: [],
        imagePath: undefined,
        stability: undefined,
        similarity: undefined,
        reason: undefined,
      };
      byKey.set(key, t);
    }
    return t;
  };
  for (const f of listTrialFiles(root, 'levels', {}, '.xml')) entry(f.team, f.character, trialBaseName(f.file)).levelPath = f.path;
  for (const f of listTrialFiles(root, 'traces')) {
    if (!TRACE_FILE.test(f.file)) continue;
    const { base, trial } = parseTraceName(f.file);
    const t = entry(f.team, f.character, base);
    t.traces.push({ trial, path: f.path });
    t.traces.sort((a, b) => a.trial - b.trial);
    t.tracePath = t.traces[0]!.path;
  }
  for (const f of listTrialFiles(root, 'images', {}, '.png')) {
    if (f.file.endsWith('_raw.png')) continue;
    const t = byKey.get(`${f.team}/${f.character}/${trialBaseName(f.file)}`);
    if (t) t.imagePath = f.path;
  }
  for (const team of listTeams(root)) {
    for (const character of listCharacters(root, team, 'levels')) {
      const stability = readJson(join(stageDir(root, team, 'stability'), `${character}.json`), parseStabilityJson);
      for (const raw of stability?.raws ?? []) {
        const t = byKey.get(`${team}/${character}/${trialBaseName(lastPathPart(raw.tag))}`);
        if (t) t.stability = { score: raw.score, startingObjects: raw.startingObjects ?? null, movingObjects: raw.movingObjects ?? null };
      }
      const similarity = readJson(join(stageDir(root, team, 'similarity'), `${character}.json`), parseSimilarityJson);
      for (const trial of similarity?.trials ?? []) {
        const t = byKey.get(`${team}/${character}/${trialBaseName(lastPathPart(trial.id))}`);
        if (t) t.similarity = trial.similarity;
      }
    }
  }
  // Every trial's fate, those that never became a level included: the run's accounting, else the files.
  for (const fate of trialFates(root)) {
    if (!fate.reason) continue;
    const base = /^\d+$/.test(fate.trial) ? trialFileBase(fate.team, fate.letter, Number(fate.trial)) : fate.trial;
    entry(fate.team, fate.letter, base).reason = fate.reason;
  }
  return [...byKey.values()].sort((a, b) => compareNames(a.team, b.team) || compareNames(a.character, b.character) || compareTrialFiles(a.name, b.name));
}

/**
 * One `result/trials.csv` line (RFC 4180, as orchestrator/run/accounting.ts writes it) into fields,
 * each as it was before the writer neutralized a formula-leading text (scoring/formats/text-escape.ts).
 */
export function csvFields(line: string): string[] {
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(field);
      field = '';
    } else field += c;
  }
  out.push(field);
  return out.map(restoreCsvText);
}

/**
 * The fates of a folder's trials: `result/trials.csv` when a run wrote it (single-model rows), else
 * read from the files with the folder's settings (rules → drop function, T).
 */
export function trialFates(root: string): TrialFate[] {
  const csv = join(resultDir(root), 'trials.csv');
  if (existsSync(csv)) {
    try {
      const [header, ...lines] = readFileSync(csv, 'utf8')
        .split(/\r?\n/)
        .filter((l) => l.length > 0);
      const columns = csvFields(header ?? '');
      const at = (name: string) => columns.indexOf(name);
      if ([at('team'), at('letter'), at('trial'), at('reason')].every((i) => i >= 0)) {
        return lines
          .map(csvFields)
          .filter((f) => (f[at('model')] ?? '') === '')
          .map((f) => ({ team: f[at('team')]!, letter: f[at('letter')]!, trial: f[at('trial')]!, reason: f[at('reason')] ?? '' }));
      }
    } catch {
      // An unreadable accounting file: read the fates from the files instead.
    }
  }
  let prefix = 'drop_block';
  let trials = 10;
  try {
    const config = resolveSettings(root, {}, { command: 'view' });
    prefix = config.prefix;
    trials = config.trials;
  } catch {
    // A config the run would refuse still leaves the folder viewable with the defaults.
  }
  return folderFates(root, { teams: listTeams(root), trials, prefix });
}

/** A competition folder as the viewer's source (`sbeval view <root>`): its listing, its traces opened with the one trace loader. */
export function competitionSource(root: string): ViewerSource {
  return { kind: 'competition', title: root, list: () => listCompetition(root), openTrace: openTraceFile };
}
