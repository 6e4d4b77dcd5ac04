import { createHash } from 'node:crypto';
import { createReadStream, readFileSync, statSync } from 'node:fs';

/** sha256 (hex) of text or bytes: the content key of every cache, record and manifest entry. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** sha256 of a file's bytes, or undefined when it cannot be read (missing, a folder). */
export function fileSha256Sync(path: string): string | undefined {
  try {
    return sha256(readFileSync(path));
  } catch {
    return undefined;
  }
}

const streamed = new Map<string, { size: number; mtimeMs: number; sha: Promise<string> }>();

/**
 * sha256 of a large file, streamed (a ViT-B model is 340 MB) and remembered for this process while the
 * file's size and modification time stay the same, so a run that names its model several times hashes
 * it once.
 */
export function largeFileSha256(path: string): Promise<string> {
  const { size, mtimeMs } = statSync(path);
  const known = streamed.get(path);
  if (known && known.size === size && known.mtimeMs === mtimeMs) return known.sha;
  const sha = (async () => {
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
    return hash.digest('hex');
  })();
  streamed.set(path, { size, mtimeMs, sha });
  sha.catch(() => streamed.delete(path));
  return sha;
}
