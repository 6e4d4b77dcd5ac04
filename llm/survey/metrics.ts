import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { SbevalError } from '../../core/errors.js';
import { issueDescriber } from '../../orchestrator/config/load.js';
import { metricsFile, type SurveyMetrics } from './metric-schema.js';

function defaultMetricsPath(): string {
  for (const candidate of ['../judges/defaults/survey-metrics.yaml', '../../../llm/judges/defaults/survey-metrics.yaml']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new SbevalError(
    'config',
    'the default survey metrics (llm/judges/defaults/survey-metrics.yaml) are missing from this installation',
    'pass --metrics <file.yaml>',
  );
}

export function loadMetrics(path: string | undefined): SurveyMetrics {
  const source = path ?? defaultMetricsPath();
  if (!existsSync(source)) throw new SbevalError('config', `metrics file ${source} does not exist`);
  let data: unknown;
  try {
    data = parseYaml(readFileSync(source, 'utf8'));
  } catch (error) {
    throw new SbevalError('config', `${source}: not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  const result = metricsFile.safeParse(data ?? {});
  if (!result.success) throw new SbevalError('config', `${source}: ${result.error.issues.map(issueDescriber(metricsFile, data)).join('; ')}`);
  const ids = result.data.metrics.map((m) => m.id);
  if (new Set(ids).size !== ids.length) throw new SbevalError('config', `${source}: metric ids must differ (${ids.join(', ')})`);
  return result.data;
}
