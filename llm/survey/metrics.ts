import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { SbevalError } from '../../core/errors.js';
import { issueDescriber } from '../../orchestrator/config/load.js';

/**
 * The survey's metrics and their instructions, from YAML (the shipped default:
 * llm/judges/defaults/survey-metrics.yaml): three by default — looks like the target
 * letter, structure holds up, creative use of blocks — each with a question, instructions, what is
 * and is not penalised, and a whole-number scale with labels.
 */
const metric = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'an id of lower-case letters, digits and -'),
  name: z.string().min(1),
  question: z.string().min(1),
  instructions: z.string().min(1),
  notPenalised: z.array(z.string().min(1)).default([]),
  penalised: z.array(z.string().min(1)).default([]),
  scale: z
    .strictObject({ min: z.number().int(), max: z.number().int(), labels: z.record(z.string(), z.string()).default({}) })
    .refine((s) => s.max > s.min && s.max - s.min <= 20, 'a scale from min to max, at most 21 points'),
});

const file = z.strictObject({
  title: z.string().min(1).default('Science Birds levels — human ratings'),
  instructions: z.string().default(''),
  metrics: z.array(metric).min(1).max(10),
});

export type SurveyMetrics = z.infer<typeof file>;

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
  const result = file.safeParse(data ?? {});
  if (!result.success) throw new SbevalError('config', `${source}: ${result.error.issues.map(issueDescriber(file, data)).join('; ')}`);
  const ids = result.data.metrics.map((m) => m.id);
  if (new Set(ids).size !== ids.length) throw new SbevalError('config', `${source}: metric ids must differ (${ids.join(', ')})`);
  return result.data;
}
