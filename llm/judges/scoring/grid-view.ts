import { GRID_HEIGHT, GRID_WIDTH, type PlacedStructure } from '../../../levels/drop.js';

/**
 * The level as a text-only judge sees it (`--view grid`): the official 20 × 16 drop grid after the
 * left shift (levels/drop.ts), top row first, one character per cell, each block drawn with its own
 * shape so that neighbouring blocks stay distinguishable:
 *   `#` a 1×1 block (b11), `<=>` a 3-wide block (b31), `^ | v` a 3-tall block (b13, top to bottom),
 *   `.` an empty cell. Row numbers on the left (0 = on the ground), column numbers below.
 * This is the level as placed, before physics.
 */
export const GRID_LEGEND =
  "'#' = 1×1 block (b11), '<=>' = one 3-wide block (b31), '^' over '|' over 'v' = one 3-tall block (b13), '.' = empty; row 0 is the ground row, column 0 the leftmost";

export function gridView(structure: PlacedStructure): string {
  const cells: string[][] = Array.from({ length: GRID_HEIGHT }, () => Array<string>(GRID_WIDTH).fill('.'));
  for (const b of structure.blocks) {
    if (b.width === 3) {
      cells[b.row]![b.column - 1] = '<';
      cells[b.row]![b.column] = '=';
      cells[b.row]![b.column + 1] = '>';
    } else if (b.height === 3) {
      cells[b.row + 2]![b.column] = '^';
      cells[b.row + 1]![b.column] = '|';
      cells[b.row]![b.column] = 'v';
    } else {
      cells[b.row]![b.column] = '#';
    }
  }
  const lines: string[] = [];
  for (let r = GRID_HEIGHT - 1; r >= 0; r -= 1) lines.push(`${String(r).padStart(2)} ${cells[r]!.join('')}`);
  const tens = Array.from({ length: GRID_WIDTH }, (_, c) => (c >= 10 ? String(Math.floor(c / 10)) : ' ')).join('');
  const ones = Array.from({ length: GRID_WIDTH }, (_, c) => String(c % 10)).join('');
  lines.push(`   ${tens}`, `   ${ones}`);
  return lines.join('\n');
}
