import { levelsSuite } from './levels.js';
import { generateSuite } from './generate.js';
import { modelCallsSuite } from './model-calls.js';
import { simulateScalingSuite, simulateSuite } from './simulate.js';
import { vitSuite } from './vit.js';
import { similaritySuite } from './similarity.js';
import { robustnessSuite } from './robustness.js';
import { pipelineSuite } from './pipeline.js';
import { bridgeSuite } from './bridge.js';
import { explainSuite } from './explain.js';
import { reportSuite } from './report.js';
import { box2dSuite } from './box2d.js';
import { hostileSuite } from './hostile.js';
import { judgesSuite } from './judges.js';
import { uncertaintySuite } from './uncertainty.js';
import { readinessSuite } from './readiness.js';
/** A benchmark suite returns rows of measured numbers (printed as a table, saved as JSON). */
export interface BenchSuite {
  name: string;
  description: string;
  run(): Promise<Array<Record<string, string | number>>>;
  /** Runs only when named (`npm run bench -- <name>`): a quick subset of another suite. */
  onlyWhenNamed?: boolean;
}

export const SUITES: BenchSuite[] = [
  levelsSuite,
  generateSuite,
  modelCallsSuite,
  simulateSuite,
  simulateScalingSuite,
  box2dSuite,
  vitSuite,
  similaritySuite,
  robustnessSuite,
  pipelineSuite,
  bridgeSuite,
  explainSuite,
  reportSuite,
  hostileSuite,
  judgesSuite,
  uncertaintySuite,
  readinessSuite,
];
