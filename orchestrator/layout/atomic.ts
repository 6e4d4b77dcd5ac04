import { renameSync, rmSync, writeFileSync, writeSync, openSync, fsyncSync, closeSync, fsync } from 'node:fs';
import { rename, rm, open } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { ensureDirSync, storageFault } from '../../core/storage.js';

/**
 * Every file a stage produces is written to a temporary name beside it and renamed into place, so a run
 * killed at any moment leaves either the complete old file, the complete new file, or nothing — never a
 * half-written result that a resumed run would mistake for done. A write the file system refuses (disk
 * full, read-only, permissions: core/storage.ts) removes its temporary and throws a StorageError that
 * names the file.
 *
 * The rename protects against a killed process; the fsync before it against a crash of the machine
 * (without it the renamed file may come back empty or torn after a power cut). A caller whose file is
 * checked when it is read back (a cache that is parsed, and redone when it does not parse) may skip
 * the fsync (`durable: false`).
 */
let counter = 0;
function tempName(path: string): string {
  counter = (counter + 1) % 1_000_000;
  return join(dirname(path), `.${basename(path)}.${process.pid}.${counter}.tmp`);
}

export interface AtomicWriteOptions {
  /** fsync the file before it is renamed into place (default true; see above). */
  durable?: boolean;
}

/**
 * Folders this process created or found (`mkdir -p` once per folder, not once per file: the simulate
 * stage writes two files per level into a handful of folders). A folder removed meanwhile is noticed
 * when the temporary cannot be created (ENOENT) and made again.
 */
const knownDirs = new Set<string>();

function ensureDirOnce(dir: string): void {
  if (knownDirs.has(dir)) return;
  ensureDirSync(dir);
  knownDirs.add(dir);
}

function openTemp(tmp: string, dir: string): number {
  try {
    return openSync(tmp, 'w');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !knownDirs.delete(dir)) throw error;
    ensureDirOnce(dir);
    return openSync(tmp, 'w');
  }
}

function fsyncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));
}

/**
 * Results up to this size are written with synchronous calls (open, write, close, rename take
 * microseconds on a local disk; the promise-based FileHandle path cost the simulate stage's main
 * thread ~1 ms per file in `npm run bench -- simulate-scaling` profiles). Only the fsync, which waits
 * for the disk, runs on libuv's thread pool. Larger files take the fully asynchronous path.
 */
const SYNC_WRITE_LIMIT = 1 << 20;

export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const durable = options.durable ?? true;
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  if (bytes.byteLength > SYNC_WRITE_LIMIT) return writeLargeFileAtomic(path, bytes, durable);
  const dir = dirname(path);
  const tmp = tempName(path);
  let fd: number | undefined;
  try {
    ensureDirOnce(dir);
    fd = openTemp(tmp, dir);
    for (let off = 0; off < bytes.byteLength; ) off += writeSync(fd, bytes, off, bytes.byteLength - off);
    if (durable) await fsyncFd(fd);
    const open = fd;
    fd = undefined;
    closeSync(open);
    renameSync(tmp, path);
  } catch (error) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // Already failing; the fault below says why.
      }
    }
    await rm(tmp, { force: true }).catch(() => undefined);
    throw storageFault(error, path) ?? error;
  }
}

async function writeLargeFileAtomic(path: string, data: Uint8Array, durable: boolean): Promise<void> {
  ensureDirOnce(dirname(path));
  const tmp = tempName(path);
  try {
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(data);
      if (durable) await handle.sync();
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
