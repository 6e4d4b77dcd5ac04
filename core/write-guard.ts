import { channel } from 'node:diagnostics_channel';
import { lstatSync, mkdirSync, realpathSync, type Stats } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { ensureDirSync, StorageError, storageFault } from './storage.js';

/**
 * The one gate every write under a competition root passes: stage files, logs, `result/`,
 * judges, survey, caches, temporaries, traces, the lock and the bridge token. A received competition
 * folder may hold symbolic links anywhere; a write through one would land outside the root. A list of
 * folders to check always misses the next folder, so the check is made per write instead:
 *
 * - every folder between the root and the file must be a real folder (created here, one level at a
 *   time, when it is missing — `mkdir -p` would follow a link);
 * - the file itself must not be a symbolic link (an append would follow it).
 *
 * Anything else is a StorageError naming the link (code SYMLINK), which stops the command with one
 * `[storage]` line and exit 2 like any other storage fault.
 *
 * Roots are declared by `confineWrites` (the root guard of every writing command, `survey serve`, the
 * folders `qualify --copy-to` and `record --out` write into); a path under no declared root (`level
 * --image`, the model cache) only gets its folder created.
 *
 * Limits: the check and the write are two system calls, so a link made *between* them (a concurrent
 * attacker with write access to the folder) is not caught; Node offers no `openat(O_NOFOLLOW)` walk.
 * Temporaries are created with O_EXCL, so a link planted under a temporary's name is never followed.
 *
 * Every guarded path is published on the diagnostics channel `sbeval:write` (`{path, folder}`), at no
 * cost when nobody listens: the write-guard test records through it which folders each command writes.
 */
export const WRITE_CHANNEL = 'sbeval:write';
const writes = channel(WRITE_CHANNEL);

export interface GuardedWrite {
  path: string;
  folder: boolean;
}

/** Declared roots (both the path as given and its real path) → how many declarations hold them. */
const roots = new Map<string, number>();

/** Declares `root` a competition root for this process; returns the function that withdraws it. */
export function confineWrites(root: string): () => void {
  const paths = new Set([resolve(root)]);
  try {
    paths.add(realpathSync(root));
  } catch {
    // Not created yet: the path as given is the root.
  }
  for (const path of paths) roots.set(path, (roots.get(path) ?? 0) + 1);
  let withdrawn = false;
  return () => {
    if (withdrawn) return;
    withdrawn = true;
    for (const path of paths) {
      const count = (roots.get(path) ?? 1) - 1;
      if (count <= 0) roots.delete(path);
      else roots.set(path, count);
    }
  };
}

/** The outermost declared root strictly above `path` (a 2025 parent before its model folders). */
function rootOf(path: string): string | undefined {
  let found: string | undefined;
  for (const root of roots.keys()) {
    if (!path.startsWith(root.endsWith(sep) ? root : root + sep)) continue;
    if (found === undefined || root.length < found.length) found = root;
  }
  return found;
}

function symlinkFault(link: string): StorageError {
  return new StorageError('SYMLINK', link, 'write through');
}

/** The entry at `path` itself (a link is not followed), or undefined when there is none. */
function inspect(path: string): Stats | undefined {
  try {
    // No exception for a missing entry: most files a guarded write names do not exist yet.
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (error) {
    throw storageFault(error, path, 'inspect') ?? error;
  }
}

/** A real folder at `path`, created when missing; a link or a file there is refused. */
function realFolder(path: string): void {
  let stat = inspect(path);
  if (stat === undefined) {
    try {
      mkdirSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw storageFault(error, path, 'create the folder') ?? error;
    }
    stat = inspect(path);
  }
  if (stat?.isSymbolicLink()) throw symlinkFault(path);
  if (!stat?.isDirectory()) throw new StorageError('ENOTDIR', path, 'create the folder');
}

/**
 * Makes `path` safe to write: the folders between its root and it real (created when missing), the
 * file not a link. With `folder`, `path` is a folder to create or use. Returns the absolute path.
 */
export function guardWrite(path: string, options: { folder?: boolean } = {}): string {
  const target = resolve(path);
  const folder = options.folder === true;
  const root = rootOf(target);
  if (root === undefined) {
    ensureDirSync(folder ? target : dirname(target));
  } else {
    // A declared folder that does not exist yet (a survey's --out) is made; it may be reached through a link.
    if (inspect(root) === undefined) ensureDirSync(root);
    const parts = relative(root, target).split(sep);
    const folders = folder ? parts : parts.slice(0, -1);
    let at = root;
    for (const part of folders) {
      at = join(at, part);
      realFolder(at);
    }
    if (!folder && inspect(target)?.isSymbolicLink()) throw symlinkFault(target);
  }
  if (writes.hasSubscribers) writes.publish({ path: target, folder } satisfies GuardedWrite);
  return target;
}
