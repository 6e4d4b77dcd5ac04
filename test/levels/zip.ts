import { inflateRawSync } from 'node:zlib';

/**
 * A minimal reader for the golden `prompts.zip` (stored or deflated entries, no zip64), so tests do not
 * depend on an `unzip` binary. Reads the central directory, then each local header.
 */
export function readZip(data: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let eocd = data.length - 22;
  while (eocd >= 0 && data.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  if (eocd < 0) throw new Error('not a zip file (no end of central directory record)');
  const count = data.readUInt16LE(eocd + 10);
  let p = data.readUInt32LE(eocd + 16);
  for (let n = 0; n < count; n++) {
    if (data.readUInt32LE(p) !== 0x02014b50) throw new Error('bad central directory entry');
    const method = data.readUInt16LE(p + 10);
    const compressed = data.readUInt32LE(p + 20);
    const nameLength = data.readUInt16LE(p + 28);
    const extraLength = data.readUInt16LE(p + 30);
    const commentLength = data.readUInt16LE(p + 32);
    const local = data.readUInt32LE(p + 42);
    const name = data.toString('utf8', p + 46, p + 46 + nameLength);
    p += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith('/')) continue;
    const start = local + 30 + data.readUInt16LE(local + 26) + data.readUInt16LE(local + 28);
    const body = data.subarray(start, start + compressed);
    if (method === 0) files.set(name, Buffer.from(body));
    else if (method === 8) files.set(name, inflateRawSync(body));
    else throw new Error(`unsupported zip method ${method} for ${name}`);
  }
  return files;
}
