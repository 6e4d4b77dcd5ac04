import { mkdirSync, renameSync, rmSync, writeFileSync, writeSync, openSync, fsyncSync, closeSync } from 'node:fs';
import { mkdir, rename, rm, open } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';

/**
 * Every file a stage produces is written to a temporary name beside it and renamed into place, so a run
 * killed at any moment leaves either the complete old file, the complete new file, or nothing — never a
 * half-written result that a resumed run would mistake for done.
 */
let counter = 0;
function tempName(path: string): string {
  counter = (counter + 1) % 1_000_000;
  return join(dirname(path), `.${basename(path)}.${process.pid}.${counter}.tmp`);
}

export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = tempName(path);
  try {
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

/** Synchronous variant; `data` may be a list of pieces (large model files are written without joining them). */
export function writeFileAtomicSync(path: string, data: string | Uint8Array | readonly Uint8Array[]): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = tempName(path);
  try {
    const fd = openSync(tmp, 'w');
    try {
      if (typeof data === 'string' || data instanceof Uint8Array) writeFileSync(fd, data);
      else for (const piece of data) for (let off = 0; off < piece.length; ) off += writeSync(fd, piece, off, piece.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

/** True for the temporary files `writeFileAtomic` leaves behind when a process is killed mid-write. */
export function isAtomicTemp(name: string): boolean {
  return name.startsWith('.') && name.endsWith('.tmp');
}
