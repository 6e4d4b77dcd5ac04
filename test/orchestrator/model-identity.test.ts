import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunConfig } from '../../orchestrator/config/index.js';
import { runSettingsFacts } from '../../orchestrator/report/settings.js';
import { modelIdentity } from '../../orchestrator/similarity/model-identity.js';
import { COMPETITION_MODEL, HF_BASE_URL } from '../../orchestrator/stages/model.js';

/**
 * The report names the similarity model, not only its digest: from the record `sbeval model fetch`
 * leaves in the model cache, the repository, revision and whether it is the competition's model; a
 * digest no fetch produced (a random or hand-made model) is "not verifiable". Fetch records are written
 * here as model fetch writes them (stages/model.ts ModelManifest), one per case.
 */
const cache = mkdtempSync(join(tmpdir(), 'sbeval-model-identity-'));
afterAll(() => rmSync(cache, { recursive: true, force: true }));

const sha = (c: string) => c.repeat(64);
function record(repo: string, revision: string, onnx: string, options: { baseUrl?: string; verified?: 'sha256' | 'none' } = {}): void {
  const dir = join(cache, 'models', `models--${repo.replace('/', '--')}`, revision);
  mkdirSync(dir, { recursive: true });
  const manifest = {
    repo,
    revision,
    baseUrl: options.baseUrl ?? HF_BASE_URL,
    commit: 'c0ffee1234567890',
    fetchedAt: '2026-01-01T00:00:00.000Z',
    files: {
      'config.json': { size: 1, sha256: sha('1'), verified: 'git-blob-sha1', etag: null },
      'model.safetensors': { size: 2, sha256: sha('2'), verified: options.verified ?? 'sha256', etag: null },
    },
    onnx: { file: 'model.onnx', sha256: onnx, bytes: 3 },
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
}

record(COMPETITION_MODEL, 'main', sha('a'));
record(COMPETITION_MODEL, 'mirror', sha('b'), { baseUrl: 'https://hf-mirror.example.org' });
record('someone/random-vit', 'main', sha('c'));
record(COMPETITION_MODEL, 'unchecked', sha('e'), { verified: 'none' });

describe('the similarity model, named', () => {
  it("names the competition's model only when it came from the hub with its weights checked", () => {
    expect(modelIdentity(sha('a'), cache)).toMatchObject({
      competition: true,
      text: `${COMPETITION_MODEL}@main (commit c0ffee123456), sha256 aaaaaaaaaaaaaaaa…: the competition's model (weights' sha256 checked against the hub)`,
    });
    expect(modelIdentity(sha('b'), cache)).toMatchObject({
      competition: false,
      text: expect.stringMatching(/@mirror .*from https:\/\/hf-mirror\.example\.org.*not verifiable as the competition's model \(fetched from a mirror/),
    });
    expect(modelIdentity(sha('e'), cache)).toMatchObject({
      competition: false,
      text: expect.stringMatching(/not verifiable as the competition's model \(the hub did not confirm/),
    });
    expect(modelIdentity(sha('c'), cache)).toMatchObject({
      competition: false,
      text: expect.stringMatching(/^someone\/random-vit@main .*: not the competition's model/),
    });
    expect(modelIdentity(sha('d'), cache)).toMatchObject({ competition: false, text: expect.stringMatching(/^sha256 dddddddddddddddd…: not verifiable/) });
  });

  it("puts the name in the report's settings", () => {
    const previous = process.env.SBEVAL_CACHE;
    process.env.SBEVAL_CACHE = cache;
    try {
      const config = {
        competitionLetters: ['I'],
        prefix: 'drop_block',
        models: [],
        submissions: [],
        seed: 1,
        engine: 'headless',
        simulationTrials: 3,
        damage: 'evaluator',
      } as unknown as RunConfig;
      const fact = runSettingsFacts(config, [sha('a'), sha('d')]).find((f) => f.name === 'similarity model')!;
      expect(fact.value).toContain(`${COMPETITION_MODEL}@main`);
      expect(fact.value).toContain("the competition's model");
      expect(fact.value).toMatch(/sha256 dddddddddddddddd…: not verifiable/);
    } finally {
      if (previous === undefined) delete process.env.SBEVAL_CACHE;
      else process.env.SBEVAL_CACHE = previous;
    }
  });
});
