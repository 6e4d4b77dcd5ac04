import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMPETITION_MODEL, defaultCacheDir, HF_BASE_URL, type ModelManifest } from '../stages/model.js';

/**
 * What a similarity model is, named from the sha256 of its ONNX file (the one thing a similarity
 * file records): the record `sbeval model fetch` left beside the model it converted
 * (`<cache>/models/models--owner--name/<revision>/manifest.json`) gives the repository, revision,
 * commit and where the weights came from. The model counts as the competition's only when it is
 * COMPETITION_MODEL fetched from the hub itself with the weights' sha256 checked against the hub's
 * (the ETag of an LFS file is its sha256: stages/model.ts). A sha256 no fetch record on this machine
 * names (a `--model` file, a hand conversion, a copy from elsewhere) is "not verifiable" — its digest
 * alone says nothing about which weights it holds, and a random model's digest looks like any other.
 */
interface ModelIdentity {
  sha256: string;
  /** The fetch record that produced this file, when this machine has one. */
  source?: { repo: string; revision: string; commit: string | null; baseUrl: string; weightsVerified: boolean };
  /** true: the competition's model, verified; false: known not to be (or not verifiable as) it. */
  competition: boolean;
  text: string;
}

function fetchRecords(cacheDir: string): ModelManifest[] {
  const models = join(cacheDir, 'models');
  if (!existsSync(models)) return [];
  const out: ModelManifest[] = [];
  for (const repo of readdirSync(models).filter((n) => n.startsWith('models--'))) {
    for (const revision of readdirSync(join(models, repo))) {
      const path = join(models, repo, revision, 'manifest.json');
      if (!existsSync(path)) continue;
      try {
        out.push(JSON.parse(readFileSync(path, 'utf8')) as ModelManifest);
      } catch {
        // A torn record names nothing; the model is then "not verifiable", which is what it is.
      }
    }
  }
  return out;
}

export function modelIdentity(sha256: string, cacheDir: string = defaultCacheDir()): ModelIdentity {
  const short = `sha256 ${sha256.slice(0, 16)}…`;
  const record = fetchRecords(cacheDir).find((m) => m.onnx?.sha256 === sha256);
  if (!record)
    return {
      sha256,
      competition: false,
      text: `${short}: not verifiable (no \`sbeval model fetch\` on this machine produced it; a --model file or a hand conversion can hold any weights)`,
    };
  const weights = Object.entries(record.files ?? {}).find(([name]) => /\.(safetensors|bin)$/.test(name))?.[1];
  const weightsVerified = weights?.verified === 'sha256';
  const fromHub = record.baseUrl.replace(/\/+$/, '') === HF_BASE_URL;
  const source = { repo: record.repo, revision: record.revision, commit: record.commit, baseUrl: record.baseUrl, weightsVerified };
  const where = `${record.repo}@${record.revision}${record.commit ? ` (commit ${record.commit.slice(0, 12)})` : ''}${fromHub ? '' : ` from ${record.baseUrl}`}`;
  const competition = record.repo === COMPETITION_MODEL && fromHub && weightsVerified;
  const verdict = competition
    ? "the competition's model (weights' sha256 checked against the hub)"
    : record.repo !== COMPETITION_MODEL
      ? `not the competition's model (${COMPETITION_MODEL})`
      : `not verifiable as the competition's model (${fromHub ? "the hub did not confirm the weights' sha256" : 'fetched from a mirror, not the hub'})`;
  return { sha256, source, competition, text: `${where}, ${short}: ${verdict}` };
}
