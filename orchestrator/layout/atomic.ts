import {
  close as closeCb,
  closeSync,
  fsync as fsyncCb,
  fsyncSync,
  open as openCb,
  openSync,
  rename as renameCb,
  renameSync,
  rmSync,
  write as writeCb,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { storageFault } from '../../core/storage.js';
import { guardWrite } from '../../core/write-guard.js';

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

interface AtomicWriteOptions {
  /** fsync the file before it is renamed into place (default true; see above). */
  durable?: boolean;
}

const call = <T>(start: (done: (error: NodeJS.ErrnoException | null, value?: T) => void) => void): Promise<T> =>
  new Promise((resolve, reject) => start((error, value) => (error ? reject(error) : resolve(value as T))));

/**
 * Temporaries are created exclusively (O_EXCL: a link planted under the name is not followed); a name
 * taken already (a temporary of a killed process that had this pid) is skipped for the next one.
 */
const TEMP_NAME_TRIES = 8;

async function openTemp(path: string): Promise<{ fd: number; tmp: string }> {
  for (let attempt = 1; ; attempt += 1) {
    const tmp = tempName(path);
    try {
      return { fd: await call<number>((done) => openCb(tmp, 'wx', done)), tmp };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= TEMP_NAME_TRIES) throw error;
    }
  }
}

function openTempSync(path: string): { fd: number; tmp: string } {
  for (let attempt = 1; ; attempt += 1) {
    const tmp = tempName(path);
    try {
      return { fd: openSync(tmp, 'wx'), tmp };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= TEMP_NAME_TRIES) throw error;
    }
  }
}

/**
 * Every system call goes through fs's callback functions, so it runs on libuv's thread pool (a create
 * or rename can wait seconds for the file system's journal on a busy disk; the main thread must not),
 * and without the promise-based FileHandle's bookkeeping, which cost the simulate stage's main thread
 * ~1 ms per file in `npm run bench -- simulate-scaling` profiles. Large data is written in as many
 * `write` calls as the kernel asks for.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const durable = options.durable ?? true;
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let tmp: string | undefined;
  let fd: number | undefined;
  try {
    guardWrite(path);
    const opened = await openTemp(path);
    ({ fd, tmp } = opened);
    const file = opened.fd;
    for (let off = 0; off < bytes.byteLength; ) off += await call<number>((done) => writeCb(file, bytes, off, bytes.byteLength - off, null, done));
    if (durable) await call<void>((done) => fsyncCb(file, done));
    fd = undefined;
    await call<void>((done) => closeCb(file, done));
    await call<void>((done) => renameCb(opened.tmp, path, done));
  } catch (error) {
    if (fd !== undefined) {
      const file = fd;
      await call<void>((done) => closeCb(file, done)).catch(() => undefined);
    }
    if (tmp !== undefined) await rm(tmp, { force: true }).catch(() => undefined);
    throw storageFault(error, path) ?? error;
  }
}

/** Synchronous variant; `data` may be a list of pieces (large model files are written without joining them). */
export function writeFileAtomicSync(path: string, data: string | Uint8Array | readonly Uint8Array[]): void {
  let tmp: string | undefined;
  try {
    guardWrite(path);
    const opened = openTempSync(path);
    tmp = opened.tmp;
    const fd = opened.fd;
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
      if (tmp !== undefined) rmSync(tmp, { force: true });
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
