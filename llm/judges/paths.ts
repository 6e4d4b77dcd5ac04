import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { sha256 } from '../../core/hash.js';
import { writeFileAtomic } from '../../orchestrator/layout/atomic.js';
import { resultDir } from '../../orchestrator/layout/competition.js';
import { assertSafeName, modelFolderName } from '../../orchestrator/layout/names.js';
import type { ChatPrompt } from './scoring/rubric-prompt.js';

/**
 * Where the judges' results live, keyed by judge so several judges share one folder without
 * `--force`: a judge is its model (the model name as a folder name, orchestrator/layout/names.ts) or
 * the `--label` given to it (two protocols or views of one model side by side).
 * - rubric: `<root>/<team>/judge-rubric/<judge>/<C>.json`;
 * - ordering: `<root>/result/judge-order/<judge>/<perspective>/…` and `…/<judge>/model.txt`;
 * - prompts: `<root>/result/judge-prompts/<digest>.json`, each distinct rendered prompt once;
 * - journals: `<root>/.sbeval/judges/<judge>/<rubric|order-<perspective>>.jsonl`.
 */
const LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function judgeId(model: string, label: string | undefined): string {
  if (label !== undefined) {
    if (!LABEL.test(label)) throw new SbevalError('config', `--label "${label}" is not 1–64 letters, digits, . _ - (starting with a letter or digit)`);
    return label;
  }
  return modelFolderName(model);
}

function rubricDir(root: string, team: string, judge: string): string {
  return join(root, assertSafeName('team', team), 'judge-rubric', judge);
}

export function rubricFile(root: string, team: string, judge: string, character: string): string {
  return join(rubricDir(root, team, judge), `${assertSafeName('character', character)}.json`);
}

export function orderRoot(root: string): string {
  return join(resultDir(root), 'judge-order');
}

export function orderDir(root: string, judge: string, perspective: string): string {
  return join(orderRoot(root), judge, perspective);
}

export function promptsDir(root: string): string {
  return join(resultDir(root), 'judge-prompts');
}

/**
 * Stores a rendered prompt once under its digest: `{system, user, images: [{sha256, bytes}]}` (the
 * images themselves are the level files in the folder, named by their digest).
 */
export async function storePrompt(root: string, digest: string, prompt: ChatPrompt): Promise<void> {
  const file = join(promptsDir(root), `${digest}.json`);
  if (existsSync(file)) return;
  const record = { digest, system: prompt.system, user: prompt.user, images: prompt.images.map((png) => ({ sha256: sha256(png), bytes: png.length })) };
  await writeFileAtomic(file, `${JSON.stringify(record, null, 2)}\n`);
}
