import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Packr } from 'msgpackr';
import { unpackValues } from '../../bridge/codec.js';
import { DEFAULT_SIMULATION } from '../../bridge/engine.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { runRecorded } from '../../bridge/trace.js';
import { programToXml } from '../../levels/pipeline.js';
import { verifyCorpus } from '../../orchestrator/stages/verify.js';
import type { BenchSuite } from './suite.js';

/**
 * Hostile input bounded: `sbeval verify` on the red team's trace — a 4-block level whose
 * header claims `windowSteps: 20000000` (unchecked, that header means a 73 s replay at 4.3 GB). The
 * refusal is timed in this thread, from the corpus to the summary; the resident size is sampled after.
 */
export const hostileSuite: BenchSuite = {
  name: 'hostile',
  description: 'sbeval verify on a trace whose header claims 20,000,000 steps: time to refuse it, resident memory',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'sbeval-bench-hostile-'));
    try {
      const xml = programToXml(["drop_block('b13', 4)", "drop_block('b13', 8)", "drop_block('b31', 6)", "drop_block('b11', 12)"].join('\n'));
      const engine = new HeadlessEngine('bench');
      const recorded = join(dir, 'four.sbtrace');
      await runRecorded(engine, { levelId: 'four', xml, settings: { ...DEFAULT_SIMULATION } }, recorded, undefined, { recordedAt: null });
      await engine.close();
      const [header, ...records] = unpackValues(readFileSync(recorded)).values as Array<Record<string, any>>;
      header!.settings.windowSteps = 20_000_000;
      const packr = new Packr({ useRecords: false, variableMapSize: true });
      const bytes = Buffer.concat([header, ...records].map((v) => packr.pack(v)));
      rmSync(recorded);
      writeFileSync(join(dir, 'hostile.sbtrace'), bytes);
      const rows = [];
      for (let run = 1; run <= 5; run += 1) {
        const started = performance.now();
        const summary = await verifyCorpus({ corpus: dir });
        const ms = performance.now() - started;
        rows.push({
          run,
          trace_bytes: bytes.length,
          refused: summary.counts.failed,
          refuse_ms: Math.round(ms * 100) / 100,
          rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
        });
      }
      return rows;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
