/**
 * `npm run bench -- publish`: the size of `sbeval publish`'s site for a full-size competition — 10 teams
 * × 26 letters × 10 trials (2,600 trials) — and how long writing it takes. The competition is the report
 * suite's (./report.ts: real evaluator images, seeded stability and similarity files in the official
 * formats, one trial in six without an image), scored by the score stage, with a level XML beside each
 * image: the shipped reference levels' XMLs, cycled (the site carries each level's XML for its replay).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publishSite } from '../../orchestrator/publish/site.js';
import { runScoreStage } from '../../orchestrator/stages/score-stage.js';
import { writeReportCompetition } from './report.js';
import type { BenchSuite } from './suite.js';

const REFERENCE = fileURLToPath(new URL('../../calibration/reference-levels/', import.meta.url));

function referenceXmls(): string[] {
  const out: string[] = [];
  for (const version of readdirSync(REFERENCE).sort())
    for (const letter of readdirSync(join(REFERENCE, version, 'levels')).sort())
      for (const file of readdirSync(join(REFERENCE, version, 'levels', letter)).sort())
        out.push(readFileSync(join(REFERENCE, version, 'levels', letter, file), 'utf8'));
  return out;
}

/** A level XML beside every image of the competition; gives the number written. */
function writeLevels(root: string): number {
  const xmls = referenceXmls();
  let n = 0;
  for (const team of readdirSync(root).filter((t) => t.startsWith('team')))
    for (const letter of readdirSync(join(root, team, 'images'))) {
      const dir = join(root, team, 'levels', letter);
      mkdirSync(dir, { recursive: true });
      for (const image of readdirSync(join(root, team, 'images', letter))) writeFileSync(join(dir, image.replace(/\.png$/, '.xml')), xmls[n++ % xmls.length]!);
    }
  return n;
}

export const publishSuite: BenchSuite = {
  name: 'publish',
  description: 'sbeval publish of a 10 teams × 26 letters × 10 trials competition: the size of the site',
  async run() {
    const root = mkdtempSync(join(tmpdir(), 'sbeval-bench-publish-'));
    try {
      writeReportCompetition(root);
      const levels = writeLevels(root);
      await runScoreStage({ root, rules: '2024', trials: 10 });
      const seconds: number[] = [];
      let site = { files: 0, bytes: 0, trials: 0 };
      for (const out of ['site-1', 'site']) {
        const start = performance.now();
        site = await publishSite(root, join(root, out));
        seconds.push((performance.now() - start) / 1000);
      }
      const dataBytes = readdirSync(join(root, 'site', 'data')).reduce((sum, f) => sum + readFileSync(join(root, 'site', 'data', f)).length, 0);
      return [
        { measure: 'trials / levels', value: `${site.trials} / ${levels}` },
        { measure: 'site files', value: site.files },
        { measure: 'site (MB)', value: Number((site.bytes / 1e6).toFixed(2)) },
        { measure: 'index.html (MB)', value: Number((readFileSync(join(root, 'site', 'index.html')).length / 1e6).toFixed(2)) },
        { measure: 'data/ scripts (MB)', value: Number((dataBytes / 1e6).toFixed(2)) },
        { measure: 'trial.js, the bundled page (kB)', value: Math.round(readFileSync(join(root, 'site', 'trial.js')).length / 1e3) },
        { measure: 'publish, thumbnails not yet cached (s)', value: Number(seconds[0]!.toFixed(2)) },
        { measure: 'publish again, thumbnails cached (s)', value: Number(seconds[1]!.toFixed(2)) },
      ];
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
};
