import { type Dirent, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { ensureDirSync, storageFault } from '../../core/storage.js';
import { confineWrites } from '../../core/write-guard.js';
import { atomicTempPid } from './atomic.js';
import { RESERVED_FOLDERS } from './competition.js';
import { acquireRootLock, type LockOwner } from './root-lock.js';

/**
 * What every command that writes into a competition root does first (cli/main.ts runs it
 * before the command's action; the commands are listed in cli/root-writers.ts):
 *
 * 1. the root must be a folder (`generate` may create it);
 * 2. no symbolic link where sbeval reads or writes: `<root>/{logs,result,.sbeval}`, a team's stage
 *    folders (`raw`, `intermediate`, `levels`, `images`, `traces`, `stability`, `similarity`,
 *    `diversity`), the same in 2025 model folders, and anything inside those folders — each would
 *    carry writes out of the root. Refused before anything is written;
 * 3. the root's lock (layout/root-lock.ts): one writer per root;
 * 4. temporaries left by killed processes (`.<name>.<pid>.<n>.tmp` of layout/atomic.ts, the trace
 *    recorder and the generate stage) are removed: with the lock held nobody else is writing them, and
 *    a temporary of a process that is still alive (a reused pid) is left alone.
 */
export interface RootGuard {
  root: string;
  lockFile: string;
  /** The stale lock taken over, if any. */
  replaced: LockOwner | undefined;
  /** Temporaries of interrupted runs that were removed. */
  removedTemps: number;
  release(): void;
}

export interface GuardOptions {
  /** Create the root when it does not exist (`generate`). */
  create?: boolean;
}

/** Folder depth searched below the root: `<root>/<model>/<team>/<stage>/<C>/<file>` is 5; `.sbeval/simulate/<team>/<C>/<file>` 4. */
const MAX_DEPTH = 6;
/** Reserved names count as such up to `<root>/<model>/<team>/<stage>` (depth 3). */
const RESERVED_DEPTH = 3;

interface RootScan {
  /** Symbolic links where sbeval reads or writes. */
  links: string[];
  /** Temporaries of atomic writes, with the pid in their name. */
  temps: Array<{ path: string; pid: number }>;
}

/** Walks the root without following links: the links that are refused and the temporaries found. */
export function scanRoot(root: string): RootScan {
  const scan: RootScan = { links: [], temps: [] };
  const walk = (dir: string, depth: number, reserved: boolean) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      throw storageFault(error, dir, 'list') ?? error;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      const isReserved = reserved || (depth <= RESERVED_DEPTH && RESERVED_FOLDERS.has(entry.name));
      if (entry.isSymbolicLink()) {
        if (isReserved) scan.links.push(path);
        continue;
      }
      if (entry.isFile()) {
        const pid = atomicTempPid(entry.name);
        if (pid !== undefined) scan.temps.push({ path, pid });
      } else if (entry.isDirectory() && depth < MAX_DEPTH) {
        walk(path, depth + 1, isReserved);
      }
    }
  };
  walk(root, 1, false);
  return scan;
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function guardRoot(rootArg: string, command: string, options: GuardOptions = {}): RootGuard {
  const root = resolve(rootArg);
  let isFolder = false;
  try {
    isFolder = statSync(root).isDirectory(); // the root itself may be reached through a link
  } catch {
    isFolder = false;
  }
  if (!isFolder) {
    if (!options.create) throw new SbevalError('input', `competition root ${root} is not a folder`);
    ensureDirSync(root);
  }

  const scan = scanRoot(root);
  if (scan.links.length > 0) {
    const more = scan.links.length > 1 ? ` (and ${scan.links.length - 1} more)` : '';
    throw new SbevalError(
      'input',
      `${scan.links[0]} is a symbolic link${more}`,
      'sbeval reads and writes only real folders inside the competition root: replace the link with a folder',
    );
  }

  // From here on every write under the root passes the write guard (core/write-guard.ts).
  const withdraw = confineWrites(root);
  let lock: ReturnType<typeof acquireRootLock> | undefined;
  let removedTemps: number;
  try {
    lock = acquireRootLock(root, command);
    removedTemps = removeDeadTemps(scan);
  } catch (error) {
    lock?.release();
    withdraw();
    throw error;
  }
  const release = () => {
    lock.release();
    withdraw();
  };
  return { root, lockFile: lock.file, replaced: lock.replaced, removedTemps, release };
}

/** Removes the temporaries of `scan` whose process is gone (a live one's are left alone); returns how many. */
export function removeDeadTemps(scan: RootScan): number {
  let removed = 0;
  for (const temp of scan.temps) {
    if (alive(temp.pid)) continue;
    try {
      rmSync(temp.path, { force: true });
      removed += 1;
    } catch (error) {
      throw storageFault(error, temp.path, 'remove') ?? error;
    }
  }
  return removed;
}
