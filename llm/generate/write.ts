import { existsSync } from 'node:fs';
import { link, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { storageFault } from '../../core/storage.js';
import { guardWrite } from '../../core/write-guard.js';
import { isAtomicTemp } from '../../orchestrator/layout/atomic.js';

/**
 * Writes a trial file once: the text goes to a temporary name beside the target (the same hidden
 * `.<name>.<pid>.<n>.tmp` pattern as layout/atomic.ts, which listings ignore), is synced, and is then
 * hard-linked to the final name, which fails if the name exists. So a trial file is never half
 * written (a kill leaves only a temporary) and never written twice (not even by a second sbeval
 * running on the same folder). Returns false when the file already existed.
 */
let counter = 0;

export async function writeFileOnce(path: string, data: string): Promise<boolean> {
  try {
    return await writeOnce(path, data);
  } catch (error) {
    throw storageFault(error, path) ?? error;
  }
}

async function writeOnce(path: string, data: string): Promise<boolean> {
  guardWrite(path);
  counter = (counter + 1) % 1_000_000;
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${counter}.tmp`);
  try {
    const handle = await open(tmp, 'wx');
    try {
      await handle.writeFile(data, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(tmp, path);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      // File systems without hard links (some network and FAT mounts): check, then rename — atomic
      // still, exclusive only against this process's own workers (which never share a trial).
      if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS' || code === 'EXDEV') {
        if (existsSync(path)) return false;
        await rename(tmp, path);
        return true;
      }
      throw error;
    }
  } finally {
    await rm(tmp, { force: true }).catch(() => undefined);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes temporaries left in `dir` by killed runs (never those of a live process); a linked folder is refused, not followed. */
export async function removeStaleTemps(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  guardWrite(dir, { folder: true });
  let removed = 0;
  for (const name of names) {
    if (!isAtomicTemp(name)) continue;
    const pid = Number(/\.(\d+)\.\d+\.tmp$/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || alive(pid)) continue;
    await rm(join(dir, name), { force: true });
    removed += 1;
  }
  return removed;
}
