import type { ReportSection } from '../../scoring/report/build.js';
import type { RuleSetName } from '../../scoring/score/rules.js';

/**
 * What a tool above the evaluator adds to `result/` (the LLM judges and the raters' survey:
 * llm/result-contributors.ts): the files it reads, which the manifest records as inputs (so `sbeval
 * check` sees them change and `run` scores again), and the report section it builds from them. The
 * evaluator imports none of those tools; the command line hands their contributors to `run`, `score`
 * and `check`, so all three see the same inputs.
 */
export interface ResultContributor {
  /** Its input files (absolute paths) in a root with these competition folders, each with the kind `check` groups it under. */
  inputs(root: string, competitions: readonly string[]): ContributedInput[];
  /** Its report section from those files; undefined when the folder holds none. */
  section(root: string, options: { rules: RuleSetName; trials: number }): ReportSection | undefined;
}

interface ContributedInput {
  kind: string;
  path: string;
}

/** The report sections of the contributors that have one for this folder, in their order. */
export function contributedSections(
  contributors: readonly ResultContributor[],
  root: string,
  options: { rules: RuleSetName; trials: number },
): ReportSection[] {
  return contributors.map((c) => c.section(root, options)).filter((s): s is ReportSection => s !== undefined);
}
