/**
 * Exit codes of every command: 0 the command ran (trials may have failed and are recorded), 1 a
 * verdict or check failed (or work is left unfinished), 2 usage or setup error. An interrupted command
 * exits 130 or 143 (interrupt.ts).
 */
export const EXIT_OK = 0;
export const EXIT_CHECK_FAILED = 1;
export const EXIT_USAGE = 2;
