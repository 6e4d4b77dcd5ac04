import { SbevalError } from '../../core/errors.js';
import type { Submission } from './submission.js';

/**
 * Programs only by consent: a competition folder received from someone else may list a
 * program submission in its config, and evaluating the folder must not run their code. A program
 * named by the config runs only when the command line says so (`--allow-programs`); otherwise the
 * command stops before generation (exit 2) and names every program it would have run. A program the
 * user names on the command line (`generate --submission exec:…`) is consent in itself.
 */
export interface ConfiguredSubmission {
  team: string;
  submission: Submission;
}

/** How a program submission runs, as one line: `<team>: <command> <args…> (from <spec>)`. */
function describeProgram(job: ConfiguredSubmission): string | undefined {
  const s = job.submission;
  if (s.kind !== 'program') return undefined;
  const command = [s.command, ...s.args].map((part) => (/[\s"']/.test(part) ? JSON.stringify(part) : part)).join(' ');
  return `${job.team}: ${command}${s.source.startsWith('exec:') ? '' : ` (from ${s.source})`}`;
}

export function requireProgramConsent(jobs: readonly ConfiguredSubmission[], allowed: boolean): void {
  if (allowed) return;
  const programs = jobs.map(describeProgram).filter((line): line is string => line !== undefined);
  if (programs.length === 0) return;
  throw new SbevalError(
    'config',
    `the config would run ${programs.length === 1 ? 'a program' : `${programs.length} programs`} on this machine: ${programs.join('; ')}`,
    'read them first; to run them, pass --allow-programs',
  );
}
