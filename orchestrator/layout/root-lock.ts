import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, lstatSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { SbevalError } from '../../core/errors.js';
import { storageFault } from '../../core/storage.js';
import { guardWrite } from '../../core/write-guard.js';
import { listDirs, STATE_DIR, stateDir } from './competition.js';

/**
 * One writer per competition root: `<root>/.sbeval/lock` holds the pid, host, command and start time
 * of the sbeval process that writes into the root. A second writer refuses with a message naming the
 * holder; a lock whose holder is gone (a dead pid on this host, or a pid that now belongs to another
 * process: Linux's /proc start time and boot id tell) is stale and taken over. A lock from another
 * host cannot be checked and counts as held (the message says which file to remove).
 *
 * Creation is atomic: the lock is written complete to a temporary and hard-linked to its name, which
 * fails if the name exists (a plain exclusive create where hard links are not supported). Taking
 * over renames the stale lock aside first, so of two processes taking over the same stale lock only
 * one succeeds; the other then finds the winner's live lock.
 *
 * The 2025 layout nests competitions (`<root>/<model>/`): a lock on a root also refuses while its
 * parent or one of its sub-folders is locked by a live process.
 */
const LOCK_FILE = 'lock';

export interface LockOwner {
  pid: number;
  host: string;
  command: string;
  started: string;
  /** Random, to tell our lock from a successor's after a take-over. */
  nonce: string;
  /** Linux: /proc/sys/kernel/random/boot_id and the process start time in clock ticks (/proc/<pid>/stat field 22). */
  boot?: string;
  startTicks?: string;
}

interface RootLock {
  file: string;
  owner: LockOwner;
  /** The stale lock this one replaced, if any (for a note to the user). */
  replaced: LockOwner | undefined;
  release(): void;
}

/** Locks this process holds (a lock naming our pid that is not here was left by an earlier process with the same pid). */
const held = new Set<string>();

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

const BOOT_ID = '/proc/sys/kernel/random/boot_id';

/** Field 22 of /proc/<pid>/stat (after the parenthesised command name, which may hold spaces). */
function startTicks(pid: number): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

function selfOwner(command: string): LockOwner {
  const owner: LockOwner = { pid: process.pid, host: hostname(), command, started: new Date().toISOString(), nonce: randomBytes(8).toString('hex') };
  const boot = readText(BOOT_ID);
  const ticks = startTicks(process.pid);
  if (boot && ticks) {
    owner.boot = boot;
    owner.startTicks = ticks;
  }
  return owner;
}

function parseOwner(text: string | undefined): LockOwner | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (typeof value.pid !== 'number' || !Number.isSafeInteger(value.pid) || value.pid <= 0 || typeof value.host !== 'string') return undefined;
    return {
      pid: value.pid,
      host: value.host,
      command: typeof value.command === 'string' ? value.command : 'sbeval',
      started: typeof value.started === 'string' ? value.started : '?',
      nonce: typeof value.nonce === 'string' ? value.nonce : '',
      ...(typeof value.boot === 'string' ? { boot: value.boot } : {}),
      ...(typeof value.startTicks === 'string' ? { startTicks: value.startTicks } : {}),
    };
  } catch {
    return undefined;
  }
}

/** 'live', 'dead' (stale: may be taken over) or 'unknown' (another host: counts as live). */
function holderState(owner: LockOwner, file: string): 'live' | 'dead' | 'unknown' {
  if (owner.host !== hostname()) return 'unknown';
  if (owner.pid === process.pid) return held.has(file) ? 'live' : 'dead';
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return 'dead';
  }
  // The pid is in use: by the holder, or by a process that got the same pid after a crash or reboot.
  if (owner.boot && owner.startTicks) {
    const boot = readText(BOOT_ID);
    if (boot && boot !== owner.boot) return 'dead';
    const ticks = startTicks(owner.pid);
    if (ticks && ticks !== owner.startTicks) return 'dead';
  }
  return 'live';
}

function describeOwner(owner: LockOwner): string {
  return `sbeval ${owner.command} (pid ${owner.pid} on ${owner.host}, since ${owner.started})`;
}

function inUse(root: string, owner: LockOwner, file: string, state: 'live' | 'unknown'): SbevalError {
  const hint =
    state === 'unknown' ? `wait for it to finish; if that process is gone, remove ${file}` : `wait for it to finish, or stop it with kill ${owner.pid}`;
  return new SbevalError('storage', `${root} is in use by ${describeOwner(owner)}`, hint);
}

const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/** Creates `file` holding `text` if it does not exist; false if it does. */
function createExclusive(file: string, text: string, nonce: string): boolean {
  const tmp = join(dirname(file), `.${LOCK_FILE}.${process.pid}.${nonce}.tmp`);
  const fd = openSync(tmp, 'wx');
  try {
    writeAll(fd, text);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') return false;
    if (!NO_HARD_LINKS.has(code)) throw error;
  } finally {
    unlinkSync(tmp);
  }
  // No hard links here: an exclusive create (a reader may see it empty for a moment: readOwner waits).
  let direct: number;
  try {
    direct = openSync(file, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeAll(direct, text);
  } finally {
    closeSync(direct);
  }
  return true;
}

function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
  fsyncSync(fd);
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** A lock that cannot be parsed: being written right now (plain-create file systems), or left broken by a crash. */
const UNREADABLE_GRACE_MS = 2_000;

/**
 * Takes the lock of `root` for `command`, or throws a SbevalError (phase `storage`) naming the live
 * holder. The lock is released by `release()` and, as a last resort, when the process exits.
 */
export function acquireRootLock(root: string, command: string): RootLock {
  const dir = stateDir(root);
  const file = join(dir, LOCK_FILE);
  const owner = selfOwner(command);
  const text = `${JSON.stringify(owner)}\n`;
  let replaced: LockOwner | undefined;
  try {
    guardWrite(file);
    for (let attempt = 0; ; attempt += 1) {
      if (attempt > 50)
        throw new SbevalError('storage', `cannot take the lock ${file}: other processes keep changing it`, 'run one sbeval at a time on a folder');
      if (createExclusive(file, text, owner.nonce)) break;
      const seen = readText(file);
      if (seen === undefined) continue; // released meanwhile: try again
      const holder = parseOwner(seen);
      if (!holder) {
        const age = Date.now() - (statMtime(file) ?? Date.now());
        if (age < UNREADABLE_GRACE_MS) {
          pause(100);
          continue;
        }
      } else {
        const state = holderState(holder, file);
        if (state !== 'dead') throw inUse(root, holder, file, state);
      }
      // Stale: move it aside (only one taker can), check it is the one we judged, then try again.
      const aside = join(dir, `.${LOCK_FILE}.stale.${process.pid}.${owner.nonce}.tmp`);
      try {
        renameSync(file, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      const moved = readText(aside);
      if (moved !== seen) {
        // A live lock taken meanwhile by another process: put it back unless a third one is there.
        try {
          linkSync(aside, file);
        } catch {
          // The lock name is taken again: the next attempt reads that one.
        }
      } else if (holder) replaced = holder;
      unlinkSync(aside);
    }
  } catch (error) {
    throw storageFault(error, file, 'write the lock') ?? error;
  }
  held.add(file);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    held.delete(file);
    process.off('exit', release);
    // Only our own lock: after a take-over by another process (ours was judged stale), theirs stays.
    if (parseOwner(readText(file))?.nonce === owner.nonce) {
      try {
        unlinkSync(file);
      } catch {
        // A lock left behind is stale once this process is gone, and taken over then.
      }
    }
  };
  process.on('exit', release);
  const lock: RootLock = { file, owner, replaced, release };
  try {
    checkNested(root, file);
  } catch (error) {
    release();
    throw error;
  }
  return lock;
}

function statMtime(path: string): number | undefined {
  try {
    return lstatSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** A live lock on the parent folder or on a sub-folder (2025 model folders) also writes into this root. */
function checkNested(root: string, own: string): void {
  const parent = dirname(root);
  const candidates = parent === root ? [] : [join(parent, STATE_DIR, LOCK_FILE)];
  let children: string[] = [];
  try {
    children = listDirs(root);
  } catch {
    children = []; // a symbolic link among them is reported by the root guard's scan
  }
  for (const child of children) candidates.push(join(root, child, STATE_DIR, LOCK_FILE));
  for (const file of candidates) {
    if (file === own) continue;
    const holder = parseOwner(readText(file));
    if (!holder) continue;
    const state = holderState(holder, file);
    if (state !== 'dead') throw inUse(dirname(dirname(file)), holder, file, state);
  }
}
