import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SILENT_PROGRESS } from '../../orchestrator/progress/types.js';
import { fetchModel, parseEtag } from '../../orchestrator/stages/model.js';
import { runSbeval } from '../helpers/cli.js';
import { randomPixels, randomWeights, referenceForward, type TinyVitSpec, writeHfFolder } from './tiny-vit.js';

/**
 * A stand-in for the Hugging Face hub on a real socket: `/<repo>/resolve/<rev>/<file>` answers small files
 * with their git blob sha1 as ETag and LFS files with a 302 to a CDN path carrying X-Linked-Etag (sha256)
 * and X-Linked-Size, as the hub does. The CDN honours Range and can cut the connection mid-file.
 */
interface HubFile {
  body: Buffer;
  lfs: boolean;
}

class FakeHub {
  server!: Server;
  baseUrl = '';
  readonly files = new Map<string, HubFile>();
  readonly log: Array<{ method: string; url: string; range: string | undefined }> = [];
  /** Cut the connection after this many body bytes on the next N CDN GETs. */
  dropAfter: number | undefined;
  dropsLeft = 0;
  /** Advertise a wrong sha256 for LFS files. */
  lieAboutSha = false;
  readonly commit = 'c0ffee'.padEnd(40, '0');

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '';
    this.log.push({ method: req.method ?? '', url, range: req.headers.range });
    const cdn = /^\/cdn\/([0-9a-f]{64})$/.exec(url);
    if (cdn) {
      this.serveCdn(req, res, cdn[1]!);
      return;
    }
    const m = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url);
    const file = m ? this.files.get(`${m[1]}/${decodeURIComponent(m[2]!)}/${m[3]}`) : undefined;
    if (!file) {
      res.writeHead(404, { 'x-error-code': 'EntryNotFound' }).end();
      return;
    }
    if (file.lfs) {
      const sha = createHash('sha256').update(file.body).digest('hex');
      res.writeHead(302, {
        location: `/cdn/${sha}`,
        'x-linked-etag': `"${this.lieAboutSha ? 'f'.repeat(64) : sha}"`,
        'x-linked-size': String(file.body.length),
        'x-repo-commit': this.commit,
      });
      res.end();
      return;
    }
    const sha1 = createHash('sha1').update(`blob ${file.body.length}\0`).update(file.body).digest('hex');
    res.writeHead(200, { etag: `"${sha1}"`, 'content-length': String(file.body.length), 'x-repo-commit': this.commit });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  }

  private serveCdn(req: IncomingMessage, res: ServerResponse, sha: string): void {
    const file = [...this.files.values()].find((f) => createHash('sha256').update(f.body).digest('hex') === sha);
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    const body = file.body.subarray(start);
    res.writeHead(range ? 206 : 200, {
      'content-length': String(body.length),
      ...(range ? { 'content-range': `bytes ${start}-${file.body.length - 1}/${file.body.length}` } : {}),
      'accept-ranges': 'bytes',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    if (this.dropAfter !== undefined && this.dropsLeft > 0) {
      this.dropsLeft -= 1;
      res.write(body.subarray(0, this.dropAfter), () => {
        // Mid-file: the socket dies without finishing the response.
        setTimeout(() => req.socket.destroy(), 20);
      });
      return;
    }
    res.end(body);
  }
}

const spec: TinyVitSpec = { hidden: 16, layers: 2, heads: 2, intermediate: 24, image: 16, patch: 4, labels: 26, act: 'gelu' };
const weights = randomWeights(spec, 77);
const tmp = mkdtempSync(join(tmpdir(), 'sbeval-fetch-'));
const hub = new FakeHub();
const REPO = 'someone/tiny-vit';

beforeAll(async () => {
  const src = join(tmp, 'src');
  writeHfFolder(src, spec, weights, { size: { height: 16, width: 16 }, image_mean: [0.5, 0.5, 0.5], image_std: [0.5, 0.5, 0.5], resample: 2 });
  for (const name of ['config.json', 'preprocessor_config.json', 'model.safetensors']) {
    hub.files.set(`${REPO}/main/${name}`, { body: readFileSync(join(src, name)), lfs: name.endsWith('.safetensors') });
  }
  await hub.start();
});
afterAll(async () => {
  await hub.stop();
  rmSync(tmp, { recursive: true, force: true });
});

describe('sbeval model fetch against a local hub', () => {
  const cacheDir = join(tmp, 'cache');

  it('resumes a download whose connection dropped mid-file, verifies, converts', async () => {
    const size = hub.files.get(`${REPO}/main/model.safetensors`)!.body.length;
    hub.dropAfter = Math.floor(size / 3);
    hub.dropsLeft = 2;
    hub.log.length = 0;
    const result = await fetchModel({ repo: REPO, baseUrl: hub.baseUrl, cacheDir, progress: SILENT_PROGRESS, retryDelayMs: 10 });
    expect(result.cacheHit).toBe(false);
    const gets = hub.log.filter((l) => l.method === 'GET' && l.url.startsWith('/cdn/'));
    // first attempt from 0, then two resumes at the bytes already on disk
    expect(gets.map((g) => g.range)).toEqual([undefined, `bytes=${hub.dropAfter}-`, `bytes=${2 * hub.dropAfter}-`]);
    const body = hub.files.get(`${REPO}/main/model.safetensors`)!.body;
    expect(readFileSync(join(result.folder, 'model.safetensors')).equals(body)).toBe(true);
    expect(result.manifest.files['model.safetensors']).toMatchObject({ size, sha256: createHash('sha256').update(body).digest('hex'), verified: 'sha256' });
    expect(result.manifest.files['config.json']!.verified).toBe('git-blob-sha1');
    expect(result.manifest.commit).toBe(hub.commit);
    expect(readdirSync(result.folder).filter((f) => f.endsWith('.part') || f.endsWith('.tmp'))).toEqual([]);
    // The converted model runs and computes the checkpoint's function.
    const session = await ort.InferenceSession.create(result.onnxPath);
    const img = randomPixels(spec, 3);
    const out = await session.run({ pixel_values: new ort.Tensor('float32', img, [1, 3, 16, 16]) });
    await session.release();
    const ref = referenceForward(spec, weights, img);
    (out.logits!.data as Float32Array).forEach((v, i) => expect(Math.abs(v - ref.logits[i]!)).toBeLessThanOrEqual(1e-4));
  });

  it('a complete cache makes no request at all', async () => {
    hub.log.length = 0;
    const result = await fetchModel({ repo: REPO, baseUrl: hub.baseUrl, cacheDir, progress: SILENT_PROGRESS });
    expect(result.cacheHit).toBe(true);
    expect(hub.log).toEqual([]);
    // through the CLI as well
    const cli = await runSbeval(['model', 'fetch', REPO, '--base-url', hub.baseUrl, '--cache', cacheDir]);
    expect(cli.exitCode).toBe(0);
    expect(cli.stdout).toMatch(/^cached someone\/tiny-vit@main/);
    expect(hub.log).toEqual([]);
  });

  it("rejects a file whose sha256 differs from the hub's and keeps nothing of it", async () => {
    const fresh = join(tmp, 'cache-bad');
    hub.lieAboutSha = true;
    try {
      const cli = await runSbeval(['model', 'fetch', REPO, '--base-url', hub.baseUrl, '--cache', fresh]);
      expect(cli.exitCode).toBe(2);
      expect(cli.stderr).toMatch(/checksum mismatch/);
      const folder = join(fresh, 'models', 'models--someone--tiny-vit', 'main');
      expect(existsSync(join(folder, 'model.safetensors'))).toBe(false);
      expect(existsSync(join(folder, 'model.onnx'))).toBe(false);
    } finally {
      hub.lieAboutSha = false;
    }
  });

  it('falls back to pytorch_model.bin, tolerates a missing preprocessor config, says when there are no weights', async () => {
    const torchBin = fileURLToPath(new URL('./fixtures/torch-bin/', import.meta.url));
    hub.files.set('other/bin-only/main/config.json', { body: readFileSync(join(torchBin, 'config.json')), lfs: false });
    await expect(fetchModel({ repo: 'other/bin-only', baseUrl: hub.baseUrl, cacheDir, progress: SILENT_PROGRESS })).rejects.toThrow(
      /neither model\.safetensors nor pytorch_model\.bin/,
    );
    hub.files.set('other/bin-only/main/pytorch_model.bin', { body: readFileSync(join(torchBin, 'pytorch_model.bin')), lfs: true });
    const r = await fetchModel({ repo: 'other/bin-only', baseUrl: hub.baseUrl, cacheDir, progress: SILENT_PROGRESS });
    expect(Object.keys(r.manifest.files).sort()).toEqual(['config.json', 'pytorch_model.bin']);
    expect(r.manifest.files['pytorch_model.bin']!.verified).toBe('sha256');
    expect(existsSync(r.onnxPath)).toBe(true);
    await expect(fetchModel({ repo: '../etc', baseUrl: hub.baseUrl, cacheDir })).rejects.toThrow(/not a hub repository id/);
  });

  it('reads checksums from ETags the way the hub sends them', () => {
    expect(parseEtag(`"${'a'.repeat(64)}"`)).toEqual({ kind: 'sha256', hex: 'a'.repeat(64) });
    expect(parseEtag(`"${'B'.repeat(40)}"`)).toEqual({ kind: 'git-blob-sha1', hex: 'b'.repeat(40) });
    expect(parseEtag('W/"abc"')).toBeUndefined();
    expect(parseEtag(null)).toBeUndefined();
  });
});
