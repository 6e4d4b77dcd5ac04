import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileSha256Sync } from '../../core/hash.js';
import { writeFileAtomic } from '../layout/atomic.js';
import { stateDir } from '../layout/competition.js';

/**
 * What a per-letter stage file was computed from, kept with sbeval's other state at
 * `<root>/.sbeval/<stage>/<team>/<C>.json` (hidden from the official scripts): the hash of every input
 * file in order, the settings that shape the output (model, rules, T), and the hash of the file written.
 * A stage redoes a letter unless the record matches what the letter's inputs and settings are now and the
 * file still holds the recorded bytes — keyed by content, never by file times (a copied folder
 * has new times, an edited image may keep its time, a similarity file may be replaced by hand).
 *
 * A stage file without a record was not written by this sbeval (the official scripts, an older
 * version): the stages recompute it; `sbeval score` takes it as it is (see orchestrator/result/readiness.ts).
 */
type DerivedStage = 'similarity' | 'diversity';

interface Derivation {
  format: 1;
  /** Input file names (inside the letter's input folder) with their sha256, in the order read. */
  inputs: Array<[string, string]>;
  /** The settings that shape the output, as one string (e.g. model sha256 and rules). */
  settings: string;
  /** sha256 of the file written. */
  output: string;
}

function derivationPath(root: string, stage: DerivedStage, team: string, character: string): string {
  return join(stateDir(root, stage, team), `${character}.json`);
}

export function readDerivation(root: string, stage: DerivedStage, team: string, character: string): Derivation | undefined {
  try {
    const record = JSON.parse(readFileSync(derivationPath(root, stage, team, character), 'utf8')) as Derivation;
    return record.format === 1 && Array.isArray(record.inputs) && typeof record.output === 'string' ? record : undefined;
  } catch {
    return undefined;
  }
}

export async function writeDerivation(root: string, stage: DerivedStage, team: string, character: string, record: Omit<Derivation, 'format'>): Promise<void> {
  // Not fsynced: a torn record does not parse, and the letter is then simply done again.
  await writeFileAtomic(derivationPath(root, stage, team, character), `${JSON.stringify({ format: 1, ...record })}\n`, { durable: false });
}

export async function removeDerivation(root: string, stage: DerivedStage, team: string, character: string): Promise<void> {
  await rm(derivationPath(root, stage, team, character), { force: true });
}

const sameInputs = (a: ReadonlyArray<readonly [string, string]>, b: ReadonlyArray<readonly [string, string]>) =>
  a.length === b.length && a.every(([name, sha], i) => b[i]![0] === name && b[i]![1] === sha);

/**
 * Whether `output` is what its record says it was computed from: the same inputs, the same settings
 * (skipped when `settings` is undefined, e.g. checking a similarity file without the model at hand) and
 * the recorded bytes still in the file.
 */
export function isCurrent(
  record: Derivation | undefined,
  inputs: ReadonlyArray<readonly [string, string]>,
  settings: string | undefined,
  output: string,
): boolean {
  if (!record) return false;
  if (settings !== undefined && record.settings !== settings) return false;
  return sameInputs(record.inputs, inputs) && fileSha256Sync(output) === record.output;
}
