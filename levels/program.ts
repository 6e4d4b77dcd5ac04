import { assertFunctionName, DROP_BLOCK } from './extract.js';

/**
 * A drop program (the `intermediate` text: one call per line) read into typed calls exactly as the
 * official `convertTextToXML` of `chatgpt4pcg@1.4.1` reads it (reference/official-pipeline.md §1b):
 *
 * - the whole text is lower-cased, then split on `\n` (a `\r` stays at the end of its line);
 * - only lines that **start with** `<prefix>(` are calls; every other line is ignored;
 * - block type = the characters from one past the `(` (skipping the opening quote) up to one before
 *   the line's first `,` (dropping the closing quote), upper-cased, which must be `B11`, `B13` or
 *   `B31` (JavaScript `substring` semantics: swapped or negative bounds behave as in the original);
 * - slot = `parseInt` of the text after the first `,` up to the first `)`, trimmed — so `' 3'` → 3,
 *   `'3x'` → 3, `'-1'` → −1, `''` → NaN, and no comma at all → NaN.
 *
 * Nothing is rejected here: an unknown type or an unusable slot becomes the official error when the
 * call is dropped (see drop.ts), in program order, so the first failing call decides the message.
 */
export type BlockId = 'b11' | 'b13' | 'b31';

export interface DropCall {
  /** 0-based position among the program's calls. */
  index: number;
  /** 1-based line number in the program text. */
  line: number;
  /** The (lower-cased) line as read. */
  text: string;
  /** The block, or `undefined` when the type text is not b11/b13/b31 (→ `BlockType does not exist.`). */
  block: BlockId | undefined;
  /** The upper-cased type text the official reader looks up. */
  typeText: string;
  /** `parseInt` of the slot text: an integer, or NaN; may be negative or far out of the grid. */
  slot: number;
}

/** Reads a drop program; `functionName` is `drop_block` (2024–2025) or `ab_drop` (2023). */
export function parseDropProgram(text: string, functionName: string = DROP_BLOCK): DropCall[] {
  const prefix = `${assertFunctionName(functionName)}(`;
  const lines = text.toLowerCase().split('\n');
  const calls: DropCall[] = [];
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    if (!line.startsWith(prefix)) continue;
    const comma = line.indexOf(',');
    const typeText = line.substring(prefix.length + 1, comma - 1).toUpperCase();
    const block: BlockId | undefined = typeText === 'B11' ? 'b11' : typeText === 'B13' ? 'b13' : typeText === 'B31' ? 'b31' : undefined;
    const rest = line.substring(comma + 1);
    const close = rest.indexOf(')');
    const slot = Number.parseInt((close < 0 ? rest : rest.slice(0, close)).trim(), 10);
    calls.push({ index: calls.length, line: n + 1, text: line, block, typeText, slot });
  }
  return calls;
}
