import { appendFileSync, lstatSync, truncateSync } from 'node:fs';
import { storageFault } from '../../core/storage.js';
import { guardWrite } from '../../core/write-guard.js';
import { writeFileAtomicSync } from './atomic.js';

/**
 * A text file that grows by whole lines, appended synchronously (the stage logs, the generate and
 * judge logs, the judges' journal): a killed process keeps every line written before the kill. The
 * file passes the write guard (core/write-guard.ts) when it is opened; a line the disk refuses is cut
 * off again, so the file ends with its last whole line, and the fault is thrown as a StorageError
 * naming the file (core/storage.ts).
 */
export class LineFile {
  /** Bytes of whole lines in the file; undefined until the file was guarded. */
  private size: number | undefined;

  constructor(readonly file: string) {}

  /** Guards the file (creating its folders) without writing to it. */
  open(): void {
    if (this.size !== undefined) return;
    try {
      guardWrite(this.file);
      this.size = sizeOf(this.file);
    } catch (error) {
      throw storageFault(error, this.file) ?? error;
    }
  }

  append(text: string): void {
    this.open();
    try {
      appendFileSync(this.file, text);
      this.size! += Buffer.byteLength(text);
    } catch (error) {
      try {
        truncateSync(this.file, this.size);
      } catch {
        // Nothing more can be done about the file; the fault below says why.
      }
      throw storageFault(error, this.file) ?? error;
    }
  }

  /**
   * Replaces the whole file with `text` (whole lines), atomically: a killed process leaves the old lines
   * or the new ones. For the rare take-back of lines already written (stage-log.ts `forget`).
   */
  replace(text: string): void {
    this.open();
    writeFileAtomicSync(this.file, text);
    this.size = Buffer.byteLength(text);
  }
}

function sizeOf(file: string): number {
  try {
    return lstatSync(file).size;
  } catch {
    return 0;
  }
}
