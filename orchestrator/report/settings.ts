/**
 * The settings of a run's stages before scoring, as report lines (the score stage adds its own: rules,
 * T, line ends, baseline). The similarity model is named by file name, size and content digest, so two
 * reports can be compared without knowing the machines' paths.
 */
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { ReportFact } from '../../scoring/report/index.js';
import type { RunConfig } from '../config/index.js';

/** sha256 of a file, streamed (a ViT-B model is 340 MB). */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export async function modelFact(path: string | undefined): Promise<ReportFact> {
  if (path === undefined) return { name: 'similarity model', value: 'none' };
  try {
    const size = statSync(path).size;
    return { name: 'similarity model', value: `${basename(path)} (${size} bytes, sha256 ${(await fileSha256(path)).slice(0, 16)}…)` };
  } catch (error) {
    return { name: 'similarity model', value: `${basename(path)} (unreadable: ${(error as Error).message})` };
  }
}

/**
 * The similarity model the folder's similarity files came from, by their records (sha256 of the model
 * file), so the report says the same whether or not this run had the model at hand.
 */
export function recordedModelFact(models: readonly string[]): ReportFact {
  return { name: 'similarity model', value: models.length === 0 ? 'none recorded' : models.map((sha) => `sha256 ${sha.slice(0, 16)}…`).join(', ') };
}

/**
 * The run's settings before scoring. The letters are the competition's (the config's, or every letter
 * with files), never a `--chars` subset: the report describes the whole folder. With `recordedModels`
 * (orchestrator/result/manifest.ts identity) the model is the one the similarity files came from.
 */
export async function runSettingsFacts(config: RunConfig, recordedModels?: readonly string[]): Promise<ReportFact[]> {
  return [
    { name: 'letters', value: config.competitionLetters === undefined ? 'every letter with files in the folder' : config.competitionLetters.join('') },
    { name: 'drop function', value: config.prefix },
    ...(config.models.length > 0 ? [{ name: 'LLM models', value: config.models.map((m) => m.name).join(', ') }] : []),
    ...(config.submissions.length > 0 ? [{ name: 'generation seed', value: String(config.seed) }] : []),
    { name: 'engine', value: config.engine },
    { name: 'evaluator trials per level', value: `up to ${config.simulationTrials} (stop at 1.0)` },
    { name: 'damage formula', value: config.damage },
    recordedModels ? recordedModelFact(recordedModels) : await modelFact(config.model),
  ];
}
