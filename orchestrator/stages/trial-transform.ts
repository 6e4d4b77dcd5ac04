import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError } from '../../core/errors.js';
import { storageFault, throwIfStorageFault } from '../../core/storage.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { listCharacters, listFiles, listTeams, type StageFilter, stageDir, type TrialStage } from '../layout/competition.js';
import { StageLog, type StageSummary } from '../layout/stage-log.js';
import type { ProgressSink } from '../progress/types.js';

/**
 * The shape both official level scripts share (code-extraction-script, text-to-xml-converter-script;
 * reference/official-pipeline.md §2–3): for every team, every character folder of the input stage,
 * every file in it, read it as UTF-8, transform it, and write `<base>.<ext>` into the same character
 * folder of the output stage — or write nothing and log the reason. `<base>` drops the last extension
 * (`trial.split('.').slice(0, -1).join('.')`).
 *
 * Beyond the official scripts: deterministic order, atomic writes, resumability keyed by content (a
 * trial whose output already holds what its input gives is skipped), and a stale output is removed when
 * its input now fails, so the output folder always holds exactly the files the official script would write.
 */
export interface TrialTransformOptions {
  root: string;
  filter?: StageFilter;
  /** Redo trials whose output is already up to date. */
  force?: boolean;
  /** Clock for log lines (tests). */
  now?: () => Date;
}

type TransformOutcome = { ok: true; output: string } | { ok: false; reason: string };

interface TrialTransformSpec {
  /** The name users see (progress, summary): `extract`, `convert`. */
  stage: string;
  /** The official log stage (file `<root>/logs/<logStage>_log_<ISO>.txt`). */
  logStage: string;
  input: TrialStage;
  output: TrialStage;
  /** Output extension with the dot. */
  extension: string;
  transform(content: string): TransformOutcome;
}

/** Why a response file is not UTF-8 text (a UTF-16 file, binary data), or undefined when it is. */
export function notUtf8Text(bytes: Uint8Array, text: string): string | undefined {
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) return 'a UTF-16 byte order mark';
  if (bytes.includes(0)) return 'NUL bytes: binary data or UTF-16';
  if (!text.includes('\uFFFD')) return undefined;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return undefined;
  } catch {
    return 'bytes that are not UTF-8';
  }
}

/** Official base name; undefined when the name has no dot (the official script would write a hidden `.<ext>`). */
export function officialBaseName(file: string): string | undefined {
  const dot = file.lastIndexOf('.');
  return dot < 0 ? undefined : file.slice(0, dot);
}

interface Work {
  team: string;
  character: string;
  file: string;
  input: string;
  output: string | undefined;
}

export async function runTrialTransform(spec: TrialTransformSpec, options: TrialTransformOptions, progress: ProgressSink): Promise<StageSummary> {
  const { root } = options;
  const now = options.now ?? (() => new Date());
  const wanted = (list: readonly string[] | undefined, name: string) => !list || list.length === 0 || list.includes(name);
  const teams = listTeams(root);
  const log = new StageLog(root, spec.logStage, now(), now);
  for (const team of options.filter?.teams ?? []) {
    if (!teams.includes(team)) progress.note(spec.stage, `no team folder named ${JSON.stringify(team)} in ${root}`);
  }

  const work: Work[] = [];
  for (const team of teams) {
    if (!wanted(options.filter?.teams, team)) continue;
    if (!existsSync(stageDir(root, team, spec.input))) {
      log.line(`Processing - team: ${team} - Failed - No ${spec.input} folder found.`);
      continue;
    }
    for (const character of listCharacters(root, team, spec.input)) {
      if (!wanted(options.filter?.characters, character)) continue;
      const dir = stageDir(root, team, spec.input, character);
      const files = listFiles(dir);
      if (files.length === 0) {
        log.line(`Processing - team: ${team} - Failed - No trials found.`);
        continue;
      }
      const outDir = stageDir(root, team, spec.output, character);
      for (const file of files) {
        const base = officialBaseName(file);
        work.push({ team, character, file, input: join(dir, file), output: base === undefined ? undefined : join(outDir, `${base}${spec.extension}`) });
      }
    }
  }

  progress.start(spec.stage, work.length);
  for (const trial of work) {
    const label = `${trial.team}/${trial.character}/${trial.file}`;
    const fail = async (reason: string) => {
      const output = trial.output;
      if (output !== undefined) await rm(output, { force: true }).catch((error: unknown) => Promise.reject(storageFault(error, output, 'remove') ?? error));
      log.trial(trial.team, trial.character, trial.file, { ok: false, reason });
      progress.tick(spec.stage, 'failed', label, reason);
    };
    if (trial.output === undefined) {
      await fail(`File name has no extension (the official script would write a hidden "${spec.extension}" file that no later stage reads).`);
      continue;
    }
    try {
      // Official: fs.promises.readFile(path, 'utf-8') — invalid bytes become U+FFFD, a BOM is kept.
      const bytes = await readFile(trial.input);
      const text = bytes.toString('utf8');
      const notText = notUtf8Text(bytes, text);
      // Read the official way all the same (the outcome and the official log are the script's); the user is told why.
      if (notText) progress.note(spec.stage, `${label} is not UTF-8 text (${notText}): read as UTF-8 the official way; save it as UTF-8 text`);
      const outcome = spec.transform(text);
      if (!outcome.ok) {
        await fail(outcome.reason);
        continue;
      }
      // Keyed by content, not by file times: the transform is cheap, so an output that already holds
      // exactly what the input gives now is done (a copied folder, an edited response or a changed
      // drop function are all seen), and only a different or missing one is written.
      if (!options.force && (await readFile(trial.output, 'utf8').catch(() => undefined)) === outcome.output) {
        log.skipped();
        progress.tick(spec.stage, 'skipped', label);
        continue;
      }
      await writeFileAtomic(trial.output, outcome.output);
      log.trial(trial.team, trial.character, trial.file, { ok: true });
      progress.tick(spec.stage, 'ok', label);
    } catch (error) {
      // A full disk, a read-only folder, a forbidden file stop the stage (exit 2, one line; the same
      // command resumes): the trial itself is not at fault. Anything else is this trial's failure.
      throwIfStorageFault(error);
      await fail(describeError(error));
    }
  }
  progress.end(spec.stage);
  return { ...log.result(), stage: spec.stage };
}
