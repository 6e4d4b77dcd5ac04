import { box2dSuite } from './box2d.js';
import { bridgeSuite } from './bridge.js';
import { cliStartSuite } from './cli-start.js';
import { coverageSuite } from './coverage.js';
import { explainSuite } from './explain.js';
import { generateSuite } from './generate.js';
import { hostileSuite } from './hostile.js';
import { judgesSuite } from './judges.js';
import { levelsSuite } from './levels.js';
import { modelCallsSuite } from './model-calls.js';
import { pipelineSuite } from './pipeline.js';
import { publishSuite } from './publish.js';
import { readinessSuite } from './readiness.js';
import { reportSuite } from './report.js';
import { robustnessSuite } from './robustness.js';
import { similaritySuite } from './similarity.js';
import { simulateScalingSuite, simulateSuite } from './simulate.js';
import type { BenchSuite } from './suite.js';
import { uncertaintySuite } from './uncertainty.js';
import { vitSuite } from './vit.js';
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
  publishSuite,
  hostileSuite,
  judgesSuite,
  uncertaintySuite,
  coverageSuite,
  readinessSuite,
  cliStartSuite,
];
