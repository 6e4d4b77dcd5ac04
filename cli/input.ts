import { readFile, stat } from 'node:fs/promises';
import { SbevalError } from '../core/errors.js';
import { shownPath } from '../orchestrator/layout/root-check.js';

/**
 * Input files named on the command line: a missing or unreadable file is one line that names it
 * (`sbeval: [input] level file nope.xml does not exist`), never a raw ENOENT with a stack.
 */
async function assertInputFile(path: string, what: string): Promise<void> {
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new SbevalError('input', `${what} file ${shownPath(path)} does not exist`);
    if (code === 'EACCES' || code === 'EPERM') throw new SbevalError('input', `${what} file ${shownPath(path)} cannot be read (permission denied)`);
    throw error;
  }
  if (info.isDirectory()) throw new SbevalError('input', `${shownPath(path)} is a folder, not a ${what} file`);
}

export async function readInputFile(path: string, what: string): Promise<string> {
  await assertInputFile(path, what);
  return readFile(path, 'utf8');
}
