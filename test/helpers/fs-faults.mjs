// A file-system fault injector for real sbeval child processes: `node --import <this file> …` with
// SBEVAL_FS_FAULT set to JSON `{ "code": "ENOSPC", "under": "/abs/dir", "afterBytes": 12345 }`, or
// `setFault(spec)` in a process that runs many commands (test/helpers/cli-batch.mjs).
//
// Every byte written to a file under `under` is counted; once `afterBytes` have been written (default
// 0: at once) the fault is active:
// - ENOSPC, EDQUOT, EFBIG, EIO: writes fail as on a full disk — the write that crosses the limit
//   writes the bytes that still fit and then fails (as write(2) does), later writes fail at once;
//   opening, creating folders and renaming still work (a full tmpfs allows them too).
// - EROFS, EACCES, EPERM: every change under `under` fails — opening for writing, writes, creating
//   and removing files and folders, renames, links, truncation — as on a folder that turned read-only.
// Errors look like Node's own (code, errno, syscall, path), so the code under test cannot tell.
//
// It patches the `fs` and `fs/promises` module objects and FileHandle.prototype, then syncs the ES
// module bindings (`import { writeSync } from 'node:fs'` sees the patched function). It is the CI
// stand-in for a real tiny tmpfs in a private mount namespace (test/orchestrator/storage-faults.test.ts
// uses both when it can).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { constants as os } from 'node:os';
import { resolve, sep } from 'node:path';

/** The fault in force (none: every call goes through untouched). */
let fault;
let installed = false;

/**
 * Arms `spec` (`{code, under, afterBytes}`, its byte count from 0) or, with null, disarms: a process
 * that runs many commands (test/helpers/cli-batch.mjs) gives each its own fault.
 */
export function setFault(spec) {
  if (spec && !installed) {
    installed = true;
    install();
  }
  fault = spec
    ? {
        code: spec.code,
        root: resolve(spec.under),
        afterBytes: spec.afterBytes ?? 0,
        quotaMode: ['ENOSPC', 'EDQUOT', 'EFBIG', 'EIO'].includes(spec.code),
        written: 0,
      }
    : undefined;
}

setFault(JSON.parse(process.env.SBEVAL_FS_FAULT ?? 'null'));

function install() {
  const inside = (path) => {
    if (!fault) return false;
    if (typeof path !== 'string' && !(path instanceof URL) && !Buffer.isBuffer(path)) return false;
    const p = resolve(String(path instanceof URL ? path.pathname : path));
    return p === fault.root || p.startsWith(fault.root + sep);
  };
  const active = () => fault !== undefined && fault.written >= fault.afterBytes;
  const fail = (syscall, path) => {
    const code = fault.code;
    const desc =
      {
        ENOSPC: 'no space left on device',
        EDQUOT: 'disk quota exceeded',
        EFBIG: 'file too large',
        EIO: 'i/o error',
        EROFS: 'read-only file system',
        EACCES: 'permission denied',
        EPERM: 'operation not permitted',
      }[code] ?? code;
    const error = new Error(`${code}: ${desc}, ${syscall}${path ? ` '${path}'` : ''}`);
    return Object.assign(error, { errno: -(os.errno[code] ?? 1), code, syscall, ...(path ? { path: String(path) } : {}) });
  };
  const writable = (flags) => {
    if (flags === undefined || flags === null) return false;
    if (typeof flags === 'number')
      return (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_APPEND)) !== 0;
    return /[wa+]/.test(flags);
  };
  /** fd → path, FileHandle → path, for files opened under the root. */
  const fds = new Map();
  const handles = new WeakMap();
  /** How many of `length` bytes may be written now; throws when none may. */
  const allowance = (length) => {
    if (!fault) return length;
    if (!active() && fault.written + length <= fault.afterBytes) {
      fault.written += length;
      return length;
    }
    if (!fault.quotaMode) {
      if (!active()) {
        const part = fault.afterBytes - fault.written;
        fault.written += part;
        return part;
      }
      throw fail('write');
    }
    const room = Math.max(0, fault.afterBytes - fault.written);
    if (room === 0) throw fail('write');
    fault.written += room;
    return room;
  };
  const denyChange = (syscall, path) => {
    if (fault && !fault.quotaMode && active() && inside(path)) throw fail(syscall, path);
  };
  const bytesOf = (data, encoding) =>
    typeof data === 'string'
      ? Buffer.from(data, typeof encoding === 'string' ? encoding : (encoding?.encoding ?? 'utf8'))
      : Buffer.from(data.buffer, data.byteOffset, data.byteLength);

  // --- sync ---------------------------------------------------------------------------------------
  const o = { ...fs };
  fs.openSync = (path, flags, mode) => {
    if (writable(flags)) denyChange('open', path);
    const fd = o.openSync(path, flags, mode);
    if (inside(path)) fds.set(fd, String(path));
    return fd;
  };
  fs.closeSync = (fd) => {
    fds.delete(fd);
    return o.closeSync(fd);
  };
  fs.writeSync = (fd, buffer, ...rest) => {
    if (!fds.has(fd)) return o.writeSync(fd, buffer, ...rest);
    if (typeof buffer === 'string') {
      const bytes = Buffer.from(buffer, typeof rest[1] === 'string' ? rest[1] : 'utf8');
      const n = allowance(bytes.length);
      return o.writeSync(fd, bytes, 0, n);
    }
    const offset = typeof rest[0] === 'number' ? rest[0] : 0;
    const length = typeof rest[1] === 'number' ? rest[1] : buffer.byteLength - offset;
    const n = allowance(length);
    const wrote = o.writeSync(fd, buffer, offset, n, rest[2]);
    return wrote;
  };
  const wholeSync = (name, syscall) => {
    fs[name] = (file, data, options) => {
      const path = typeof file === 'number' ? fds.get(file) : inside(file) ? String(file) : undefined;
      if (path === undefined) return o[name](file, data, options);
      if (typeof file !== 'number') denyChange('open', file);
      const bytes = bytesOf(data, options);
      const n = allowance(bytes.length);
      o[name](file, bytes.subarray(0, n), typeof options === 'object' ? { ...options, encoding: undefined } : undefined);
      if (n < bytes.length) throw fail(syscall);
    };
  };
  wholeSync('writeFileSync', 'write');
  wholeSync('appendFileSync', 'write');
  for (const [name, syscall, paths] of [
    ['mkdirSync', 'mkdir', 1],
    ['rmSync', 'rm', 1],
    ['unlinkSync', 'unlink', 1],
    ['rmdirSync', 'rmdir', 1],
    ['truncateSync', 'open', 1],
    ['renameSync', 'rename', 2],
    ['linkSync', 'link', 2],
    ['symlinkSync', 'symlink', 2],
    ['copyFileSync', 'copyfile', 2],
  ]) {
    fs[name] = (...args) => {
      for (let i = 0; i < paths; i += 1) denyChange(syscall, args[i]);
      return o[name](...args);
    };
  }
  fs.ftruncateSync = (fd, len) => {
    if (fds.has(fd)) denyChange('ftruncate', fds.get(fd));
    return o.ftruncateSync(fd, len);
  };

  // --- callbacks (fs.WriteStream uses open, write, writev, close) -----------------------------------
  fs.open = (path, flags, mode, cb) => {
    const callback = [flags, mode, cb].find((x) => typeof x === 'function');
    const f = typeof flags === 'function' ? undefined : flags;
    try {
      if (writable(f ?? 'r')) denyChange('open', path);
    } catch (error) {
      process.nextTick(callback, error);
      return;
    }
    o.open(path, f ?? 'r', typeof mode === 'function' ? undefined : mode, (error, fd) => {
      if (!error && inside(path)) fds.set(fd, String(path));
      callback(error, fd);
    });
  };
  fs.close = (fd, cb) => {
    fds.delete(fd);
    return o.close(fd, cb);
  };
  fs.write = (fd, buffer, ...rest) => {
    const callback = rest.find((x) => typeof x === 'function');
    if (!fds.has(fd) || typeof buffer === 'string') return o.write(fd, buffer, ...rest);
    const offset = typeof rest[0] === 'number' ? rest[0] : 0;
    const length = typeof rest[1] === 'number' ? rest[1] : buffer.byteLength - offset;
    let n;
    try {
      n = allowance(length);
    } catch (error) {
      process.nextTick(callback, error);
      return;
    }
    o.write(fd, buffer, offset, n, typeof rest[2] === 'number' ? rest[2] : null, callback);
  };
  fs.writev = (fd, buffers, position, cb) => {
    const callback = typeof position === 'function' ? position : cb;
    const pos = typeof position === 'function' ? null : position;
    if (!fds.has(fd)) return o.writev(fd, buffers, pos, callback);
    const total = buffers.reduce((n, b) => n + b.byteLength, 0);
    let n;
    try {
      n = allowance(total);
    } catch (error) {
      process.nextTick(callback, error);
      return;
    }
    const joined = Buffer.concat(buffers.map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength))).subarray(0, n);
    // writev's callback gets the list of buffers (fs.WriteStream reads it), write's the one buffer.
    o.write(fd, joined, 0, joined.length, pos, (error, written) => callback(error, written, buffers));
  };
  for (const [name, syscall, paths] of [
    ['mkdir', 'mkdir', 1],
    ['rename', 'rename', 2],
    ['unlink', 'unlink', 1],
    ['rm', 'rm', 1],
  ]) {
    fs[name] = (...args) => {
      const callback = args.find((x) => typeof x === 'function');
      try {
        for (let i = 0; i < paths; i += 1) denyChange(syscall, args[i]);
      } catch (error) {
        process.nextTick(callback, error);
        return;
      }
      return o[name](...args);
    };
  }

  // --- promises ----------------------------------------------------------------------------------
  const p = { ...fsp };
  fsp.open = async (path, flags, mode) => {
    if (writable(flags ?? 'r')) denyChange('open', path);
    const handle = await p.open(path, flags, mode);
    if (inside(path)) handles.set(handle, String(path));
    return handle;
  };
  for (const [name, syscall, paths] of [
    ['mkdir', 'mkdir', 1],
    ['rename', 'rename', 2],
    ['rm', 'rm', 1],
    ['unlink', 'unlink', 1],
    ['link', 'link', 2],
    ['truncate', 'open', 1],
    ['copyFile', 'copyfile', 2],
  ]) {
    fsp[name] = async (...args) => {
      for (let i = 0; i < paths; i += 1) denyChange(syscall, args[i]);
      return p[name](...args);
    };
  }
  for (const name of ['writeFile', 'appendFile']) {
    fsp[name] = async (file, data, options) => {
      if (typeof file !== 'string' || !inside(file)) return p[name](file, data, options);
      denyChange('open', file);
      const bytes = bytesOf(data, options);
      const n = allowance(bytes.length);
      await p[name](file, bytes.subarray(0, n));
      if (n < bytes.length) throw fail('write');
    };
  }

  patchFileHandles(handles, allowance, fail, denyChange, bytesOf);
  syncBuiltinESMExports();
}

/** FileHandle methods live on its prototype, reached through a handle: patched when the first one opens. */
function patchFileHandles(handles, allowance, fail, denyChange, bytesOf) {
  const patched = new WeakSet();
  const originalOpen = fsp.open;
  fsp.open = async (...args) => {
    const handle = await originalOpen(...args);
    const proto = Object.getPrototypeOf(handle);
    if (!patched.has(proto)) {
      patched.add(proto);
      const orig = { writeFile: proto.writeFile, appendFile: proto.appendFile, write: proto.write, truncate: proto.truncate };
      for (const name of ['writeFile', 'appendFile']) {
        proto[name] = async function (data, options) {
          const path = handles.get(this);
          if (path === undefined) return orig[name].call(this, data, options);
          const bytes = bytesOf(data, options);
          const n = allowance(bytes.length);
          await orig[name].call(this, bytes.subarray(0, n));
          if (n < bytes.length) throw fail('write');
        };
      }
      proto.write = async function (buffer, ...rest) {
        const path = handles.get(this);
        if (path === undefined || typeof buffer === 'string') return orig.write.call(this, buffer, ...rest);
        const offset = typeof rest[0] === 'number' ? rest[0] : 0;
        const length = typeof rest[1] === 'number' ? rest[1] : buffer.byteLength - offset;
        const n = allowance(length);
        return orig.write.call(this, buffer, offset, n, rest[2]);
      };
      proto.truncate = async function (len) {
        const path = handles.get(this);
        if (path !== undefined) denyChange('ftruncate', path);
        return orig.truncate.call(this, len);
      };
    }
    return handle;
  };
}
