import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { resolveSettings } from '../../orchestrator/config/index.js';
import type { EngineFactory } from '../../orchestrator/pool/index.js';
import { overlapByDefault } from '../../orchestrator/run/context.js';
import { runCompetition } from '../../orchestrator/run/index.js';
import { writeRandomVit } from '../../scripts/make-random-vit.js';
import { exampleCopy, readRunLog, runLogs, snapshot } from './helpers/competition.js';

/**
 * `sbeval run` starts the similarity of each image as the levels write it (the run's classifier,
 * orchestrator/similarity/prefetch.ts) and writes the similarity files after the levels: every file is
 * byte for byte the one of the sequential order (similarity only after every level). The model is a tiny
 * random ViT (2025 rules: the CLS embedding is in the files too).
 */
const tmp = mkdtempSync(join(tmpdir(), 'sbeval-run-overlap-'));
let model: string;
const inProcess: EngineFactory = async (slot, generation) => new HeadlessEngine(`headless-${slot}-${generation}`);

beforeAll(() => {
  model = writeRandomVit(join(tmp, 'vit'), { layers: 1, hidden: 32, heads: 2, intermediate: 64, image: 32, patch: 16, labels: 26, seed: 5 }).onnx;
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('sbeval run: similarity overlapped with the levels', () => {
  it('writes the same files as the sequential order, with images classified while the levels ran', async () => {
    const sequential = exampleCopy({ teams: ['BlockSmith', 'GridThinkers'], config: 'rules: 2025\ntrials: 3\n' });
    const overlapped = join(tmp, 'overlapped');
    cpSync(sequential, overlapped, { recursive: true });

    const a = await runCompetition({ config: resolveSettings(sequential, { model, workers: 2 }), engineFactory: inProcess, overlapSimilarity: false });
    const b = await runCompetition({ config: resolveSettings(overlapped, { model, workers: 2 }), engineFactory: inProcess, overlapSimilarity: true });
    expect(a.stages.map((s) => `${s.stage}:${s.status}`)).toEqual(b.stages.map((s) => `${s.stage}:${s.status}`));
    expect(b.stages.find((s) => s.stage === 'report')?.status).toBe('done');

    // The overlapped run classified images before its similarity stage; the sequential one did not.
    const prefetched = (root: string) =>
      runLogs(root)
        .flatMap(readRunLog)
        .filter((e) => e.type === 'similarity-prefetch');
    expect(prefetched(sequential)).toEqual([]);
    const [record] = prefetched(overlapped);
    expect(record?.classified).toBeGreaterThan(0);

    // Byte for byte: stability, images, similarity, diversity, result files and report (not logs, not caches).
    const files = (root: string) => new Map([...snapshot(root, ['logs', '.sbeval'])].filter(([file]) => !file.endsWith('.lock')));
    const expected = files(sequential);
    const got = files(overlapped);
    expect([...got.keys()]).toEqual([...expected.keys()]);
    expect([...expected.keys()].filter((f) => f.includes('/similarity/')).length).toBeGreaterThan(0);
    for (const [file, hash] of expected) expect(got.get(file), file).toBe(hash);
    rmSync(sequential, { recursive: true, force: true });
  }, 300_000);

  it("overlaps by default only with engines that leave this machine's cores free", () => {
    expect(overlapByDefault('headless')).toBe(false);
    expect(overlapByDefault('headless-ws')).toBe(false);
    expect(overlapByDefault('unity')).toBe(true);
    expect(overlapByDefault('bridge')).toBe(true);
  });
});
