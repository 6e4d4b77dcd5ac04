import { renameSync, rmSync, writeFileSync, writeSync, openSync, fsyncSync, closeSync } from 'node:fs';
import { rename, rm, open } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { ensureDirSync, storageFault } from '../../core/storage.js';

/**
 * Every file a stage produces is written to a temporary name beside it and renamed into place, so a run
 * killed at any moment leaves either the complete old file, the complete new file, or nothing — never a
 * half-written result that a resumed run would mistake for done. A write the file system refuses (disk
 * full, read-only, permissions: core/storage.ts) removes its temporary and throws a StorageError that
 * names the file.
 */
let counter = 0;
function tempName(path: string): string {
  counter = (counter + 1) % 1_000_000;
  return join(dirname(path), `.${basename(path)}.${process.pid}.${counter}.tmp`);
}

export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  ensureDirSync(dirname(path));
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
    await rm(tmp, { force: true }).catch(() => undefined);
    throw storageFault(error, path) ?? error;
  }
}

/** Synchronous variant; `data` may be a list of pieces (large model files are written without joining them). */
export function writeFileAtomicSync(path: string, data: string | Uint8Array | readonly Uint8Array[]): void {
  ensureDirSync(dirname(path));
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
    try {
      rmSync(tmp, { force: true });
    } catch {
      // The temporary is swept at the next start (layout/root-guard.ts).
    }
    throw storageFault(error, path) ?? error;
  }
}

/** True for the temporary files `writeFileAtomic` leaves behind when a process is killed mid-write. */
export function isAtomicTemp(name: string): boolean {
  return name.startsWith('.') && name.endsWith('.tmp');
}

/**
 * The pid in a temporary's name (`.<name>.<pid>.<n>.tmp`, also the trace recorder's and the generate
 * stage's `.<name>.<pid>.<hex>.tmp`), or undefined for a name that is not one of ours.
 */
export function atomicTempPid(name: string): number | undefined {
  const m = /^\..+\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name);
  if (!m) return undefined;
  const pid = Number(m[1]);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}
