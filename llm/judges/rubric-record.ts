import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { describeIssue } from '../../orchestrator/config/load.js';

/**
 * The rubric judge's letter file, `<root>/<team>/judge-rubric/<judge>/<C>.json` — its shape, written
 * by rubric-stage.ts and read back only through `readRubricFile` (by the stage itself, the report and
 * `survey collect`: one reading, one validation):
 *
 *   {judge: "rubric", id, team, character, settings: {…, fingerprint}, complete,
 *    summary: {trials, judged, refused, missing, inconsistent, meanScore},
 *    trials: [{trial, name, status, score, input, prompt, analysis?, reason?, raw?, model?, seed?,
 *              attempts?, failures?, verdicts?, itemsScore?, consistent?, calls?} …]}
 *
 * `status` is `judged` (the judge's score), `refused` (no usable answer after the retries) or
 * `missing` (nothing to show: no level, or no image for `--view image`); `score` applies the failure
 * rule — refused and missing count 0, the worst score — so every trial is in the mean. `input` is the
 * digest of what the judge was shown (image bytes, or the text of the grid or XML).
 */
const verdicts = z.object({ 100: z.array(z.boolean()), 50: z.array(z.boolean()), 25: z.array(z.boolean()) });
const call = z.object({ seed: z.number(), promptTokens: z.number().optional(), completionTokens: z.number().optional(), digest: z.string().optional() });

const rubricTrialSchema = z.object({
  trial: z.number().int().min(1),
  name: z.string().min(1),
  status: z.enum(['judged', 'refused', 'missing']),
  score: z.number().min(0).max(100),
  input: z.string().nullable(),
  prompt: z.string().nullable(),
  analysis: z.string().optional(),
  reason: z.string().optional(),
  raw: z.string().optional(),
  model: z.string().optional(),
  seed: z.number().optional(),
  attempts: z.number().optional(),
  failures: z.array(z.object({ seed: z.number(), reason: z.string(), raw: z.string() })).optional(),
  verdicts: verdicts.nullable().optional(),
  itemsScore: z.number().nullable().optional(),
  consistent: z.boolean().nullable().optional(),
  calls: z.array(call).optional(),
});

const rubricFileSchema = z.object({
  judge: z.literal('rubric'),
  id: z.string().min(1),
  team: z.string().min(1),
  character: z.string().min(1),
  settings: z
    .object({
      api: z.string(),
      model: z.string(),
      digests: z.array(z.string()),
      view: z.string(),
      protocol: z.string(),
      lowTier: z.number(),
      template: z.string().nullable(),
      temperature: z.number(),
      seed: z.number(),
      retries: z.number(),
      maxTokens: z.number(),
      prompt: z.string(),
      rubric: z.unknown(),
      fingerprint: z.string(),
    })
    .passthrough(),
  complete: z.boolean(),
  summary: z.object({
    trials: z.number(),
    judged: z.number(),
    refused: z.number(),
    missing: z.number(),
    inconsistent: z.number(),
    meanScore: z.number().nullable(),
  }),
  trials: z.array(rubricTrialSchema),
});

export type RubricTrialRecord = z.infer<typeof rubricTrialSchema>;
export type RubricLetterFile = z.infer<typeof rubricFileSchema>;

/** A letter file, or why it cannot be used; undefined when there is none. */
export function readRubricFile(path: string): { file: RubricLetterFile } | { problem: string } | undefined {
  if (!existsSync(path)) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    return { problem: `${path}: not JSON (${(error as Error).message.split('\n')[0]})` };
  }
  const parsed = rubricFileSchema.safeParse(data);
  if (!parsed.success) return { problem: `${path}: not a rubric judge file of this sbeval (${parsed.error.issues.slice(0, 3).map(describeIssue).join('; ')})` };
  return { file: parsed.data };
}

export function summarise(trials: readonly RubricTrialRecord[]): RubricLetterFile['summary'] {
  return {
    trials: trials.length,
    judged: trials.filter((t) => t.status === 'judged').length,
    refused: trials.filter((t) => t.status === 'refused').length,
    missing: trials.filter((t) => t.status === 'missing').length,
    inconsistent: trials.filter((t) => t.consistent === false).length,
    meanScore: trials.length === 0 ? null : trials.reduce((a, t) => a + t.score, 0) / trials.length,
  };
}
