import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { SbevalError } from '../../core/errors.js';
import { issueDescriber } from '../../orchestrator/config/load.js';
import { checkTemplate, type PromptTemplate } from './scoring/prompt-template.js';
import { checkRubric, type Rubric, rubricForLetter } from './scoring/rubric.js';

/**
 * Rubric files (YAML or JSON): one template for every letter (`{letter}` replaced), per-letter
 * rubrics, or both (a letter's own rubric wins):
 *
 *   question: Build a level that looks like "{letter}".
 *   levels: {100: [...], 50: [...], 25: [...]}
 *   letters:
 *     I: {question: ..., levels: {...}}
 *
 * sbeval ships a default for letter-shaped levels: llm/judges/defaults/rubric.yaml.
 */
const items = z.array(z.string().min(1)).max(4, 'a level holds at most 4 items').default([]);
const levels = z.strictObject({ 100: items, 50: items, 25: items });
const letterRubric = z.strictObject({ question: z.string().min(1).optional(), levels });
const rubricFile = z.strictObject({
  question: z.string().min(1).optional(),
  levels: levels.optional(),
  letters: z.record(z.string().regex(/^[A-Z]$/, 'letters are keyed A–Z'), letterRubric).optional(),
});

export interface RubricSpec {
  /** Where it came from: a path, or `default`. */
  source: string;
  template: Rubric | undefined;
  letters: Map<string, Rubric>;
}

function defaultRubricPath(): string {
  for (const candidate of ['./defaults/rubric.yaml', '../../../llm/judges/defaults/rubric.yaml']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new SbevalError('config', 'the default rubric (llm/judges/defaults/rubric.yaml) is missing from this installation', 'pass --rubric <file.yaml>');
}

export function parseRubricText(text: string, source: string): RubricSpec {
  let data: unknown;
  try {
    data = source.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new SbevalError('config', `${source}: not valid ${source.endsWith('.json') ? 'JSON' : 'YAML'}: ${(error as Error).message.split('\n')[0]}`);
  }
  const result = rubricFile.safeParse(data ?? {});
  if (!result.success) throw new SbevalError('config', `${source}: ${result.error.issues.map(issueDescriber(rubricFile, data)).join('; ')}`);
  const file = result.data;
  const question = file.question ?? 'Build a Science Birds level whose structure looks like the upper-case letter "{letter}".';
  const spec: RubricSpec = { source, template: file.levels ? { question, levels: file.levels } : undefined, letters: new Map() };
  for (const [letter, r] of Object.entries(file.letters ?? {})) spec.letters.set(letter, { question: r.question ?? question, levels: r.levels });
  if (!spec.template && spec.letters.size === 0)
    throw new SbevalError('config', `${source}: no rubric: give \`levels\` (a template for every letter) or \`letters\``);
  for (const [name, rubric] of [['the template', spec.template] as const, ...[...spec.letters].map(([l, r]) => [`letter ${l}`, r] as const)]) {
    const problem = rubric && checkRubric(rubric);
    if (problem) throw new SbevalError('config', `${source}: ${name}: ${problem}`);
  }
  return spec;
}

export function loadRubric(path: string | undefined): RubricSpec {
  const file = path ?? defaultRubricPath();
  if (!existsSync(file)) throw new SbevalError('config', `rubric file ${file} does not exist`);
  return parseRubricText(readFileSync(file, 'utf8'), path ?? 'default');
}

/** The rubric of one letter, `{letter}` filled in; throws when the file has none for it. */
export function rubricOf(spec: RubricSpec, letter: string): Rubric {
  const rubric = spec.letters.get(letter) ?? spec.template;
  if (!rubric)
    throw new SbevalError('config', `${spec.source}: no rubric for letter ${letter}`, `add letters.${letter} or a template (levels) to the rubric file`);
  return rubricForLetter(rubric, letter);
}

const templateFile = z.strictObject({ system: z.string().optional(), user: z.string().min(1) });

/**
 * A prompt template (`--prompt-template`, llm/judges/scoring/prompt-template.ts): a `.yaml`/`.yml`/`.json`
 * file with `user` (and optionally `system`), or any other file whose whole text is the user message.
 */
export function loadPromptTemplate(path: string): { source: string; template: PromptTemplate } {
  if (!existsSync(path)) throw new SbevalError('config', `prompt template ${path} does not exist`);
  const text = readFileSync(path, 'utf8');
  let template: PromptTemplate;
  if (/\.(ya?ml|json)$/i.test(path)) {
    let data: unknown;
    try {
      data = path.toLowerCase().endsWith('.json') ? JSON.parse(text) : parseYaml(text);
    } catch (error) {
      throw new SbevalError(
        'config',
        `${path}: not valid ${path.toLowerCase().endsWith('.json') ? 'JSON' : 'YAML'}: ${(error as Error).message.split('\n')[0]}`,
      );
    }
    const parsed = templateFile.safeParse(data ?? {});
    if (!parsed.success)
      throw new SbevalError(
        'config',
        `${path}: ${parsed.error.issues.map(issueDescriber(templateFile, data)).join('; ')}`,
        'a template file holds `user:` (the user message) and optionally `system:`',
      );
    template = parsed.data;
  } else {
    template = { user: text };
  }
  const problem = checkTemplate(template);
  if (problem) throw new SbevalError('config', `${path}: ${problem}`);
  return { source: path, template };
}
