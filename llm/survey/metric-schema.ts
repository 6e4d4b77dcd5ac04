// The schema of a survey metrics file, alone so that the survey page's types (llm/survey/page-data.ts)
// can name it: only zod here, nothing of Node.
import { z } from 'zod';

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

export const metricsFile = z.strictObject({
  title: z.string().min(1).default('Science Birds levels — human ratings'),
  instructions: z.string().default(''),
  metrics: z.array(metric).min(1).max(10),
});

export type SurveyMetrics = z.infer<typeof metricsFile>;
