import { lstatSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { SbevalError } from './errors.js';

/**
 * Storage faults: the disk is full, the folder is read-only, a file sits where a folder should be…
 * These are not a trial's failure (the same trial would succeed on a working disk) and not a bug:
 * they stop the command with one line that names the path and the cause, exit 2, and the same
 * command run again after the fix resumes (every result file is written atomically, so nothing is
 * left half-written).
 *
 * The causes are the POSIX errno values a file operation can fail with for reasons outside sbeval
 * (Linux errno(3), Node's `error.code`). ENOENT is not among them: a missing input is the caller's
 * business, and a folder that cannot be created is diagnosed again (`ensureDirSync`) because Node's
 * recursive mkdir reports EROFS and EACCES as ENOENT.
 */
const CAUSES: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exceeded',
  EFBIG: 'the file is too large for the file system',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'a folder is where a file should be',
  ENOTDIR: 'a file is where a folder should be',
  EEXIST: 'a file is where a folder should be',
  ENAMETOOLONG: 'the path is too long for the file system',
  ELOOP: 'too many symbolic links in the path',
  EMFILE: 'too many open files in this process (raise `ulimit -n`)',
  ENFILE: 'too many open files on this system',
  EIO: 'input/output error (the disk or the network share failed)',
  EBUSY: 'the file or folder is busy',
  ETXTBSY: 'the file is busy',
  ESTALE: 'stale network file handle (the share was remounted)',
  ENXIO: 'no such device',
  ENODEV: 'no such device',
  // Not an errno: core/write-guard.ts refuses a link between a competition root and a file it writes.
  SYMLINK: 'a symbolic link is there, which could carry the write outside the competition root',
};

/** File-system calls (Node's `error.syscall`): a socket's EACCES (`listen`) is not a storage fault. */
const FS_SYSCALLS: ReadonlySet<string> = new Set([
  'open',
  'read',
  'write',
  'writev',
  'close',
  'fsync',
  'fdatasync',
  'ftruncate',
  'truncate',
  'mkdir',
  'mkdtemp',
  'rmdir',
  'rm',
  'unlink',
  'rename',
  'link',
  'symlink',
  'copyfile',
  'cp',
  'scandir',
  'opendir',
  'stat',
  'lstat',
  'fstat',
  'access',
  'utime',
  'futime',
  'chmod',
  'fchmod',
  'chown',
  'realpath',
  'readlink',
  'statfs',
]);

const HINTS: Readonly<Record<string, string>> = {
  ENOSPC: 'free some space, then run the same command again: finished work is kept',
  EDQUOT: 'free some space, then run the same command again: finished work is kept',
  EFBIG: 'use a file system without that size limit, then run the same command again',
  EROFS: 'use a writable copy of the folder, then run the same command again',
  EACCES: 'make it writable for this user (or use a copy), then run the same command again',
  EPERM: 'make it writable for this user (or use a copy), then run the same command again',
  EMFILE: 'raise the limit of open files (`ulimit -n`), then run the same command again',
  ENFILE: 'close other programs, then run the same command again',
  SYMLINK: 'sbeval writes only real folders inside the competition root: replace the link with a folder, then run the same command again',
};

const DEFAULT_HINT = 'fix the path, then run the same command again: finished work is kept';

/** What the process was doing, from the system call that failed. */
const ACTIONS: Readonly<Record<string, string>> = {
  open: 'open',
  read: 'read',
  scandir: 'list',
  opendir: 'list',
  mkdir: 'create the folder',
  mkdtemp: 'create a folder in',
  unlink: 'remove',
  rmdir: 'remove',
  rm: 'remove',
  stat: 'inspect',
  lstat: 'inspect',
  access: 'inspect',
};

export class StorageError extends SbevalError {
  readonly code: string;
  readonly path: string;
  constructor(code: string, path: string, action: string, options?: { cause?: unknown }) {
    super('storage', `cannot ${action} ${path}: ${CAUSES[code] ?? code} (${code})`, HINTS[code] ?? DEFAULT_HINT, options);
    this.name = 'StorageError';
    this.code = code;
    this.path = path;
  }
}

/**
 * The storage fault behind `error`, as a StorageError naming `path` (default: the path in the error),
 * or undefined when `error` is something else (a missing input, a bug, a socket error). `action` says
 * what sbeval was doing (default: from the failing system call, else `write`).
 */
export function storageFault(error: unknown, path?: string, action?: string): StorageError | undefined {
  if (error instanceof StorageError) return error;
  if (error instanceof SbevalError) return storageFault(error.cause, path, action);
  const e = error as NodeJS.ErrnoException | null;
  if (!e || typeof e !== 'object' || typeof e.code !== 'string' || !(e.code in CAUSES)) return undefined;
  if (e.syscall !== undefined && !FS_SYSCALLS.has(e.syscall)) return undefined;
  if (e.code === 'EEXIST' && e.syscall !== 'mkdir') return undefined;
  const where = path ?? e.path;
  if (where === undefined) return undefined;
  return new StorageError(e.code, where, action ?? ACTIONS[e.syscall ?? ''] ?? 'write', { cause: error });
}

/** Rethrows `error` as a StorageError when it is a storage fault (stages call this before recording a trial's failure). */
export function throwIfStorageFault(error: unknown, path?: string, action?: string): void {
  const fault = storageFault(error, path, action);
  if (fault) throw fault;
}

/**
 * `mkdir -p` with a true diagnosis: Node's recursive mkdir reports a read-only or forbidden parent as
 * ENOENT ("no such file or directory, mkdir '<root>/logs'"). On failure, the first missing folder is
 * created alone to get the real cause, which is thrown as a StorageError naming that folder.
 */
export function ensureDirSync(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    const direct = storageFault(error, dir, 'create the folder');
    if (direct && direct.code !== 'EEXIST') throw direct;
    const missing = firstMissing(dir);
    if (missing === undefined) throw direct ?? error;
    const parent = dirname(missing);
    if (!lstatSync(parent).isDirectory()) throw new StorageError('ENOTDIR', parent, 'create a folder in', { cause: error });
    try {
      mkdirSync(missing);
    } catch (again) {
      throw storageFault(again, missing, 'create the folder') ?? direct ?? error;
    }
    // The first missing folder could be made after all (another process made its parent meanwhile): go on.
    mkdirSync(dir, { recursive: true });
  }
}

/** The outermost folder of `dir` that does not exist yet (its parent exists), or undefined when `dir` exists. */
function firstMissing(dir: string): string | undefined {
  const exists = (path: string) => {
    try {
      lstatSync(path);
      return true;
    } catch {
      return false;
    }
  };
  if (exists(dir)) return undefined;
  let missing = dir;
  for (let parent = dirname(missing); parent !== missing && !exists(parent); parent = dirname(missing)) missing = parent;
  return missing;
}
