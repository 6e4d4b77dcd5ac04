import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractCode } from '../../levels/extract.js';
import { programToXml } from '../../levels/pipeline.js';
import { parseLevelXml } from '../../levels/xml-read.js';
import { runConvertStage } from '../../orchestrator/stages/convert.js';
import { runExtractStage } from '../../orchestrator/stages/extract.js';
import { Gen, program, response } from '../../test/levels/generators.js';
import type { BenchSuite } from './suite.js';

/**
 * The level pipeline's throughput: pure functions in memory (ours next to the official package, when
 * the devDependency is installed), and the extract + convert stages over a full-size competition on
 * disk (10 teams × 26 letters × 10 trials = 2,600 responses, as in 2024).
 */
function rate(count: number, ms: number): number {
  return Math.round((count / ms) * 1000);
}

function time(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

function tryOfficial(): { extractCode(t: string, p?: string): string | null; convertTextToXML(t: string, p?: string): string } | undefined {
  try {
    return createRequire(import.meta.url)('chatgpt4pcg');
  } catch {
    return undefined;
  }
}

export const levelsSuite: BenchSuite = {
  name: 'levels',
  description: 'response → XML throughput (in memory, vs chatgpt4pcg@1.4.1) and extract + convert stages on 2,600 files',
  async run() {
    const g = new Gen(1);
    const responses = Array.from({ length: 20_000 }, () => response(g, 'drop_block'));
    const programs = Array.from({ length: 20_000 }, () => program(g));
    const references = readdirSync(new URL('../../calibration/reference-levels/v1/levels/I/', import.meta.url))
      .filter((f) => f.endsWith('.xml'))
      .map((f) => readFileSync(new URL(`../../calibration/reference-levels/v1/levels/I/${f}`, import.meta.url), 'utf8'));
    const convert = (text: string) => {
      try {
        programToXml(text);
      } catch {
        /* official errors are outcomes */
      }
    };
    const rows: Array<Record<string, string | number>> = [];
    rows.push({
      what: 'extractCode (sbeval)',
      items: responses.length,
      perSecond: rate(
        responses.length,
        time(() => responses.forEach((r) => extractCode(r))),
      ),
    });
    rows.push({
      what: 'convert program → XML (sbeval)',
      items: programs.length,
      perSecond: rate(
        programs.length,
        time(() => programs.forEach(convert)),
      ),
    });
    const official = tryOfficial();
    if (official) {
      rows.push({
        what: 'extractCode (official 1.4.1)',
        items: responses.length,
        perSecond: rate(
          responses.length,
          time(() => responses.forEach((r) => official.extractCode(r))),
        ),
      });
      const officialConvert = (text: string) => {
        try {
          official.convertTextToXML(text);
        } catch {
          /* same */
        }
      };
      rows.push({
        what: 'convertTextToXML (official 1.4.1)',
        items: programs.length,
        perSecond: rate(
          programs.length,
          time(() => programs.forEach(officialConvert)),
        ),
      });
    }
    const xmls = Array.from({ length: 2_000 }, (_, k) => references[k % references.length]!);
    rows.push({
      what: 'parseLevelXml (reference levels)',
      items: xmls.length,
      perSecond: rate(
        xmls.length,
        time(() => xmls.forEach((x) => parseLevelXml(x))),
      ),
    });

    const root = mkdtempSync(join(tmpdir(), 'sbeval-bench-levels-'));
    try {
      let k = 0;
      for (let t = 0; t < 10; t++) {
        for (const letter of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') {
          const dir = join(root, `team${t}`, 'raw', letter);
          mkdirSync(dir, { recursive: true });
          for (let n = 1; n <= 10; n++) writeFileSync(join(dir, `team${t}_${letter}_${n}.txt`), responses[k++ % responses.length]!);
        }
      }
      let t0 = performance.now();
      const ex = await runExtractStage({ root });
      rows.push({
        what: 'sbeval extract stage (2,600 files)',
        items: ex.succeeded + ex.failed,
        perSecond: rate(ex.succeeded + ex.failed, performance.now() - t0),
      });
      t0 = performance.now();
      const cv = await runConvertStage({ root });
      rows.push({ what: 'sbeval convert stage', items: cv.succeeded + cv.failed, perSecond: rate(cv.succeeded + cv.failed, performance.now() - t0) });
      t0 = performance.now();
      const again = await runConvertStage({ root });
      rows.push({ what: 'sbeval convert stage, resumed (all done)', items: again.skipped, perSecond: rate(again.skipped, performance.now() - t0) });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    return rows;
  },
};
