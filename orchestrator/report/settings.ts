/**
 * The settings of a run's stages before scoring, as report lines (the score stage adds its own: rules,
 * T, line ends, baseline). The similarity model is named from the sha256 the similarity files' records
 * hold (orchestrator/stages/derivation.ts), never by a path, with what the fetch record in the model
 * cache says of it (its repository and whether it is the competition's model).
 */
import type { ReportFact } from '../../scoring/report/index.js';
import type { RunConfig } from '../config/index.js';
import { modelIdentity } from '../similarity/model-identity.js';

/**
 * The similarity model(s) the folder's similarity files came from: each sha256 named — repository,
 * revision, whether it is the competition's model, or "not verifiable" (similarity/model-identity.ts).
 */
function recordedModelFact(models: readonly string[]): ReportFact {
  return { name: 'similarity model', value: recordedModelText(models) };
}

/** The same words for the command summaries, beside the winner (a random model's ranking looks like any other). */
export function recordedModelText(models: readonly string[]): string {
  return models.length === 0 ? 'none recorded' : models.map((sha) => modelIdentity(sha).text).join('; ');
}

/**
 * The run's settings before scoring. The letters are the competition's (the config's, or every letter
 * with files), never a `--chars` subset: the report describes the whole folder.
 */
export function runSettingsFacts(config: RunConfig, recordedModels: readonly string[]): ReportFact[] {
  return [
    { name: 'letters', value: config.competitionLetters === undefined ? 'every letter with files in the folder' : config.competitionLetters.join('') },
    { name: 'drop function', value: config.prefix },
    ...(config.models.length > 0 ? [{ name: 'LLM models', value: config.models.map((m) => m.name).join(', ') }] : []),
    ...(config.submissions.length > 0 ? [{ name: 'generation seed', value: String(config.seed) }] : []),
    { name: 'engine', value: config.engine },
    { name: 'evaluator trials per level', value: `up to ${config.simulationTrials} (stop at 1.0)` },
    { name: 'damage formula', value: config.damage },
    recordedModelFact(recordedModels),
  ];
}
