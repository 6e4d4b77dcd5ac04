import type { ResultContributor } from '../orchestrator/result/contributors.js';
import { judgesReportSection } from './judges/report.js';
import { judgeFiles, surveyFiles } from './judges/results.js';

/**
 * What the LLM tooling adds to `result/`: the judges' and the raters' files as inputs of the manifest
 * (the judges' of the root and of every model folder; the survey's of the root) and the report's
 * "Judges" section built from them (judges/report.ts). The command line hands this list to `run`,
 * `score` and `check` (orchestrator/result/contributors.ts).
 */
const JUDGES_AND_SURVEY: ResultContributor = {
  inputs: (root, competitions) => [
    ...[...new Set([root, ...competitions])].flatMap((dir) => judgeFiles(dir)).map((path) => ({ kind: 'judge', path })),
    ...surveyFiles(root).map((path) => ({ kind: 'survey', path })),
  ],
  section: (root, options) => judgesReportSection(root, options),
};

export const LLM_RESULT_CONTRIBUTORS: readonly ResultContributor[] = [JUDGES_AND_SURVEY];
