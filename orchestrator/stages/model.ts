/**
 * Model files at the edges: convert a Hugging Face ViT folder into one ONNX file, and fetch such a folder
 * from the Hugging Face hub (`<base>/<repo>/resolve/<revision>/<file>`, the URL scheme huggingface_hub
 * uses) into a cache — resumable with HTTP Range, verified against the hub's checksums, recorded in a
 * manifest — then convert it.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  existsSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { convertHfVit, safetensorsWeights, torchWeights } from '../../scoring/similarity/convert.js';
import { modelInfoFromMetadata, type VitModelInfo } from '../../scoring/similarity/model-info.js';
import { scanOnnxMetadata } from '../../scoring/similarity/onnx-metadata.js';
import { onnxByteLength } from '../../scoring/similarity/onnx-writer.js';
import type { VitConfig } from '../../scoring/similarity/vit-config.js';
import { writeFileAtomicSync } from '../layout/atomic.js';
import type { ProgressSink } from '../progress/types.js';
import { SILENT_PROGRESS } from '../progress/types.js';

/** The competition's classifier (2024–2025; reference/official-pipeline.md §5). */
export const COMPETITION_MODEL = 'pittawat/vit-base-uppercase-english-characters';
export const HF_BASE_URL = 'https://huggingface.co';

/** A killed run never leaves half a model: the pieces go to a temporary file that is renamed into place. */
export function writePiecesAtomic(path: string, pieces: readonly Uint8Array[]): void {
  writeFileAtomicSync(path, pieces);
}

function readJson(path: string, what: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new SbevalError('config', `${what} ${path} is not readable JSON: ${(error as Error).message}`);
  }
}

interface ConvertResult {
  out: string;
  bytes: number;
  config: VitConfig;
  info: VitModelInfo;
}

/** Weight files a folder may hold, in order of preference (safetensors cannot run code; a pickle could). */
const WEIGHT_FILES = ['model.safetensors', 'pytorch_model.bin'] as const;

/**
 * `sbeval model convert <dir> --out <file>`: config.json + model.safetensors (or pytorch_model.bin, read by
 * a restricted unpickler) + optional preprocessor_config.json → one ONNX file.
 */
export function convertModelFolder(dir: string, out: string, source?: string): ConvertResult {
  const configPath = join(dir, 'config.json');
  const prePath = join(dir, 'preprocessor_config.json');
  if (!existsSync(configPath)) throw new SbevalError('config', `${dir} has no config.json`, 'point at a Hugging Face ViTForImageClassification folder');
  const weightsFile = WEIGHT_FILES.find((f) => existsSync(join(dir, f)));
  if (!weightsFile) throw new SbevalError('config', `${dir} has no ${WEIGHT_FILES.join(' or ')}`, 'the folder needs the model weights');
  const config = readJson(configPath, 'config');
  const preprocessor = existsSync(prePath) ? readJson(prePath, 'preprocessor config') : undefined;
  try {
    const bytes = readFileSync(join(dir, weightsFile));
    const weights = weightsFile === 'model.safetensors' ? safetensorsWeights(bytes) : torchWeights(bytes);
    const { pieces, config: parsed, info } = convertHfVit({ config, preprocessor, weights, ...(source ? { source } : {}) });
    writePiecesAtomic(out, pieces);
    return { out, bytes: onnxByteLength(pieces), config: parsed, info };
  } catch (error) {
    if (error instanceof SbevalError) throw error;
    throw new SbevalError('config', `cannot convert ${dir} (${weightsFile}): ${(error as Error).message}`, undefined, { cause: error });
  }
}

/** The labels/preprocessing recorded in an ONNX model (competition defaults for a foreign ONNX file). */
export function readModelInfo(path: string): VitModelInfo {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw new SbevalError(
      'similarity',
      `cannot open model ${path}: ${(error as Error).message}`,
      'convert one with `sbeval model convert` or `sbeval model fetch`',
    );
  }
  try {
    const size = fstatSync(fd).size;
    const meta = scanOnnxMetadata((position, length) => {
      const b = Buffer.alloc(length);
      const n = readSync(fd, b, 0, length, position);
      return b.subarray(0, n);
    }, size);
    return modelInfoFromMetadata(meta);
  } catch (error) {
    throw new SbevalError('similarity', `${path} is not a usable ONNX model: ${(error as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

// ---- hub fetch ----

export interface FetchOptions {
  repo: string;
  revision?: string;
  baseUrl?: string;
  /** Cache root; default $SBEVAL_CACHE or ~/.cache/sbeval. */
  cacheDir?: string;
  /** Re-download even when the cache has every file. */
  refresh?: boolean;
  /** Attempts per file when the connection drops (each resumes where the last stopped). */
  retries?: number;
  /** Bearer token (gated repos); sent only to the base URL's origin. Default $HF_TOKEN. */
  token?: string;
  progress?: ProgressSink;
  /** Pause between attempts, ms (tests shorten it). */
  retryDelayMs?: number;
}

interface FetchedFile {
  size: number;
  sha256: string;
  /** What the hub's ETag let us check: the LFS sha256, the git blob sha1, or nothing (weak/absent ETag). */
  verified: 'sha256' | 'git-blob-sha1' | 'none';
  etag: string | null;
}

export interface ModelManifest {
  repo: string;
  revision: string;
  baseUrl: string;
  commit: string | null;
  fetchedAt: string;
  files: Record<string, FetchedFile>;
  onnx: { file: string; sha256: string; bytes: number } | null;
}

const OPTIONAL = ['preprocessor_config.json'] as const;

/**
 * The ways to a model when this machine cannot reach the hub (docs/similarity.md, "No network"): what
 * `model fetch` says then, so an offline server is not a dead end.
 */
export function offlineRoutes(repo: string): string {
  return [
    'without network, put the model in place by hand (docs/similarity.md#no-network-offline-routes-to-a-model):',
    `  - on a machine with network run \`sbeval model fetch ${repo} --cache <dir>\`, copy <dir> here and set SBEVAL_CACHE=<dir>: every command then finds the model;`,
    `  - or copy the Hugging Face folder of ${repo} (config.json, model.safetensors or pytorch_model.bin, preprocessor_config.json) here, run \`sbeval model convert <folder> --out vit.onnx\`, then pass --model vit.onnx (or set model: vit.onnx in sbeval.config.yaml);`,
    '  - or fetch from a mirror of the hub that this machine reaches: --base-url <url>.',
  ].join('\n');
}

export function defaultCacheDir(): string {
  return process.env.SBEVAL_CACHE ?? join(homedir(), '.cache', 'sbeval');
}

function assertRepoId(repo: string): string {
  if (!/^[A-Za-z0-9][\w.-]*\/[\w.-]+$/.test(repo) || repo.includes('..')) {
    throw new SbevalError('config', `"${repo}" is not a hub repository id`, `expected owner/name, e.g. ${COMPETITION_MODEL}`);
  }
  return repo;
}

function cacheFolder(cacheDir: string, repo: string, revision: string): string {
  // models--owner--name like huggingface_hub, one folder per revision (a revision name may contain '/').
  return join(cacheDir, 'models', `models--${repo.replace('/', '--')}`, encodeURIComponent(revision));
}

/** Where `sbeval model fetch` leaves the converted model (default: the competition's, revision main). */
export function cachedModelPath(repo: string = COMPETITION_MODEL, revision = 'main', cacheDir: string = defaultCacheDir()): string {
  return join(cacheFolder(cacheDir, repo, revision), 'model.onnx');
}

function fileUrl(baseUrl: string, repo: string, revision: string, file: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${repo}/resolve/${encodeURIComponent(revision)}/${file}`;
}

/** The checksum an ETag carries: quoted 64 hex = sha256 (LFS files), 40 hex = git blob sha1 (small files). */
export function parseEtag(etag: string | null): { kind: 'sha256' | 'git-blob-sha1'; hex: string } | undefined {
  if (!etag || etag.startsWith('W/')) return undefined;
  const v = etag.replace(/^"|"$/g, '').toLowerCase();
  if (/^[0-9a-f]{64}$/.test(v)) return { kind: 'sha256', hex: v };
  if (/^[0-9a-f]{40}$/.test(v)) return { kind: 'git-blob-sha1', hex: v };
  return undefined;
}

async function hashFile(path: string, algorithm: 'sha256' | 'sha1', prefix?: Buffer): Promise<string> {
  const h = createHash(algorithm);
  if (prefix) h.update(prefix);
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

interface Head {
  status: number;
  etag: string | null;
  size: number | null;
  commit: string | null;
  location: string;
}

function authHeaders(url: string, baseUrl: string, token: string | undefined): Record<string, string> {
  return token && new URL(url).origin === new URL(baseUrl).origin ? { authorization: `Bearer ${token}` } : {};
}

/** HEAD without following redirects: the hub answers LFS files with a 302 carrying X-Linked-Etag/-Size. */
async function head(url: string, baseUrl: string, token: string | undefined): Promise<Head> {
  let current = url;
  let etag: string | null = null;
  let size: number | null = null;
  let commit: string | null = null;
  for (let hop = 0; hop < 5; hop++) {
    const res = await fetch(current, {
      method: 'HEAD',
      redirect: 'manual',
      headers: { ...authHeaders(current, baseUrl, token), 'accept-encoding': 'identity' },
    });
    etag ??= res.headers.get('x-linked-etag') ?? res.headers.get('etag');
    const linked = res.headers.get('x-linked-size');
    size ??= linked !== null ? Number(linked) : null;
    commit ??= res.headers.get('x-repo-commit');
    if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
      current = new URL(res.headers.get('location')!, current).toString();
      continue;
    }
    if (size === null && res.ok && res.headers.get('content-length') !== null) size = Number(res.headers.get('content-length'));
    return { status: res.status, etag, size, commit, location: current };
  }
  throw new SbevalError('network', `too many redirects for ${url}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** GET into `<dest>.part`, resuming with Range after a dropped connection; renames to `dest` when complete. */
async function download(
  url: string,
  dest: string,
  expectedSize: number | null,
  o: { baseUrl: string; token: string | undefined; retries: number; retryDelayMs: number; progress: ProgressSink; label: string },
): Promise<void> {
  const part = `${dest}.part`;
  for (let attempt = 0; attempt <= o.retries; attempt++) {
    let have = existsSync(part) ? statSync(part).size : 0;
    if (expectedSize !== null && have > expectedSize) {
      rmSync(part);
      have = 0;
    }
    try {
      if (expectedSize !== null && have === expectedSize) break;
      const headers: Record<string, string> = { ...authHeaders(url, o.baseUrl, o.token), 'accept-encoding': 'identity' };
      if (have > 0) headers.range = `bytes=${have}-`;
      const res = await fetch(url, { headers, redirect: 'follow' });
      if (res.status === 416 && expectedSize === null) break; // nothing left to send: the part is complete
      if (!(res.status === 200 || res.status === 206)) throw new SbevalError('network', `GET ${url} answered ${res.status} ${res.statusText}`);
      const append = res.status === 206;
      if (have > 0 && append) o.progress.note('model', `${o.label}: resuming at byte ${have}`);
      const fd = openSync(part, append ? 'a' : 'w');
      try {
        if (!res.body) throw new Error('empty body');
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          let off = 0;
          while (off < chunk.length) off += writeSync(fd, chunk, off, chunk.length - off);
        }
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      const now = statSync(part).size;
      if (expectedSize !== null && now < expectedSize) throw new Error(`connection ended at byte ${now} of ${expectedSize}`);
      break;
    } catch (error) {
      if (error instanceof SbevalError) throw error;
      if (attempt === o.retries) {
        throw new SbevalError(
          'network',
          `download of ${url} failed after ${o.retries + 1} attempts: ${(error as Error).message}`,
          'run the same command again: it resumes where it stopped',
        );
      }
      o.progress.note('model', `${o.label}: ${(error as Error).message}; retrying`);
      await sleep(o.retryDelayMs * (attempt + 1));
    }
  }
  renameSync(part, dest);
}

async function verify(path: string, etag: string | null, label: string): Promise<FetchedFile> {
  const size = statSync(path).size;
  const sha256 = await hashFile(path, 'sha256');
  const expected = parseEtag(etag);
  let verified: FetchedFile['verified'] = 'none';
  if (expected?.kind === 'sha256') {
    if (sha256 !== expected.hex)
      throw new SbevalError(
        'network',
        `${label}: checksum mismatch (sha256 ${sha256}, the hub says ${expected.hex})`,
        'the download is corrupt; run again with --refresh',
      );
    verified = 'sha256';
  } else if (expected?.kind === 'git-blob-sha1') {
    const sha1 = await hashFile(path, 'sha1', Buffer.from(`blob ${size}\0`));
    if (sha1 !== expected.hex)
      throw new SbevalError(
        'network',
        `${label}: checksum mismatch (git blob sha1 ${sha1}, the hub says ${expected.hex})`,
        'the download is corrupt; run again with --refresh',
      );
    verified = 'git-blob-sha1';
  }
  return { size, sha256, verified, etag };
}

export interface FetchResult {
  folder: string;
  manifest: ModelManifest;
  onnxPath: string;
  /** True when everything came from the cache (no network request at all). */
  cacheHit: boolean;
}

function readManifest(path: string): ModelManifest | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as ModelManifest;
  } catch {
    return undefined;
  }
}

/** True when every file the manifest lists is on disk with its recorded size. */
function cacheComplete(folder: string, m: ModelManifest | undefined): m is ModelManifest {
  if (!m?.onnx) return false;
  if (!m.files['config.json'] || !WEIGHT_FILES.some((w) => m.files[w])) return false;
  for (const [name, f] of Object.entries(m.files)) {
    const p = join(folder, name);
    if (!existsSync(p) || statSync(p).size !== f.size) return false;
  }
  const onnx = join(folder, m.onnx.file);
  return existsSync(onnx) && statSync(onnx).size === m.onnx.bytes;
}

/** One fetch of a repository revision into its cache folder. */
interface ModelFetch {
  options: FetchOptions;
  repo: string;
  revision: string;
  baseUrl: string;
  token: string | undefined;
  progress: ProgressSink;
  folder: string;
  /** The cache's manifest from an earlier fetch (its files are reused when the hub's ETag is the same). */
  previous: ModelManifest | undefined;
  /** The revision's commit, from the first HEAD answer that names it. */
  commit: string | null;
}

/** HEAD, download unless the cache has the same file, verify. 'missing' on 404. */
async function fetchOne(f: ModelFetch, name: string): Promise<FetchedFile | 'missing'> {
  const { options, baseUrl, token } = f;
  const url = fileUrl(baseUrl, f.repo, f.revision, name);
  const dest = join(f.folder, name);
  let h: Head;
  try {
    h = await head(url, baseUrl, token);
  } catch (error) {
    if (error instanceof SbevalError) throw error;
    throw new SbevalError('network', `cannot reach ${url}: ${(error as Error).message}\n${offlineRoutes(f.repo)}`);
  }
  if (h.status === 404) {
    rmSync(dest, { force: true });
    return 'missing';
  }
  if (h.status === 401 || h.status === 403)
    throw new SbevalError('network', `${url}: access denied (${h.status})`, 'set HF_TOKEN for a gated or private repository');
  if (h.status >= 400) throw new SbevalError('network', `HEAD ${url} answered ${h.status}`);
  f.commit ??= h.commit;
  const old = f.previous?.files[name];
  const reusable = !options.refresh && old && existsSync(dest) && statSync(dest).size === old.size && (old.etag === h.etag || h.etag === null);
  if (!reusable) {
    rmSync(dest, { force: true });
    // A leftover .part from another ETag would be resumed into the wrong file: keep it only if the ETag matches.
    if (old?.etag !== undefined && old.etag !== h.etag) rmSync(`${dest}.part`, { force: true });
    await download(h.location, dest, h.size, {
      baseUrl,
      token,
      retries: options.retries ?? 5,
      retryDelayMs: options.retryDelayMs ?? 500,
      progress: f.progress,
      label: name,
    });
  }
  try {
    return await verify(dest, h.etag, `${f.repo}/${name}`);
  } catch (error) {
    rmSync(dest, { force: true });
    throw error;
  }
}

/** config.json, the weights (safetensors when the revision has it, else the older pytorch_model.bin) and the optional files; returns the weights' name. */
async function fetchFiles(f: ModelFetch, files: Record<string, FetchedFile>): Promise<string> {
  const { repo, revision, progress } = f;
  const config = await fetchOne(f, 'config.json');
  if (config === 'missing') throw new SbevalError('config', `${repo}@${revision} has no config.json (404)`, 'is this a Hugging Face model repository?');
  files['config.json'] = config;
  progress.tick('model', 'ok', 'config.json');
  // Weights: safetensors when the revision has it, else the older pytorch_model.bin (restricted unpickler).
  let weightsFile: string | undefined;
  for (const name of WEIGHT_FILES) {
    const got = await fetchOne(f, name);
    if (got === 'missing') continue;
    files[name] = got;
    weightsFile = name;
    for (const other of WEIGHT_FILES) if (other !== name) rmSync(join(f.folder, other), { force: true });
    break;
  }
  if (!weightsFile)
    throw new SbevalError(
      'config',
      `${repo}@${revision} has neither ${WEIGHT_FILES.join(' nor ')} (404)`,
      'is this a PyTorch ViTForImageClassification repository?',
    );
  progress.tick('model', 'ok', weightsFile);
  for (const name of OPTIONAL) {
    const got = await fetchOne(f, name);
    if (got === 'missing') progress.tick('model', 'skipped', name, 'not in the repository');
    else {
      files[name] = got;
      progress.tick('model', 'ok', name);
    }
  }
  return weightsFile;
}

/** `sbeval model fetch <repo>`: download (or reuse) the HF files, verify, convert to `<cache>/…/model.onnx`. */
export async function fetchModel(options: FetchOptions): Promise<FetchResult> {
  const repo = assertRepoId(options.repo);
  const revision = options.revision ?? 'main';
  const baseUrl = options.baseUrl ?? HF_BASE_URL;
  const token = options.token ?? process.env.HF_TOKEN;
  const progress = options.progress ?? SILENT_PROGRESS;
  const folder = cacheFolder(options.cacheDir ?? defaultCacheDir(), repo, revision);
  const manifestPath = join(folder, 'manifest.json');
  const previous = readManifest(manifestPath);
  if (!options.refresh && cacheComplete(folder, previous)) {
    return { folder, manifest: previous, onnxPath: join(folder, previous.onnx!.file), cacheHit: true };
  }
  mkdirSync(folder, { recursive: true });
  const files: Record<string, FetchedFile> = {};
  const f: ModelFetch = { options, repo, revision, baseUrl, token, progress, folder, previous, commit: null };
  progress.start('model', 3);
  const weightsFile = await fetchFiles(f, files);
  progress.end('model');
  const { commit } = f;
  const source = `${baseUrl.replace(/\/+$/, '')}/${repo}@${revision}${commit ? ` (commit ${commit})` : ''} ${weightsFile} sha256 ${files[weightsFile]!.sha256}`;
  const onnxPath = join(folder, 'model.onnx');
  const converted = convertModelFolder(folder, onnxPath, source);
  const manifest: ModelManifest = {
    repo,
    revision,
    baseUrl,
    commit,
    fetchedAt: new Date().toISOString(),
    files,
    onnx: { file: 'model.onnx', sha256: await hashFile(onnxPath, 'sha256'), bytes: converted.bytes },
  };
  writeFileAtomicSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return { folder, manifest, onnxPath, cacheHit: false };
}
