import type { BlockId, DropCall } from './program.js';

/**
 * The official drop simulation of `chatgpt4pcg@1.4.1` (`getBlocksWithPosition`, `shiftBlocksOnGrid`;
 * reference/official-pipeline.md §1b), as a height map over a 20 × 16 grid (row 0 = bottom):
 *
 * - a call whose type is not b11/b13/b31 fails with `BlockType does not exist.`;
 * - the centre column's top cell must exist and be free, else `Height boundary is intruded.` (this
 *   covers slots outside 0…19, NaN and a full column);
 * - a b31 (3 wide, centred on the slot) needs both neighbour columns: slot 0 or 19 fails with
 *   `Width boundary is intruded.`;
 * - the block lands on the lowest row it can reach from the top with its whole footprint free, i.e.
 *   one above the highest occupied cell under its footprint — except that the official scan starts
 *   at the top row, so a b31 whose neighbour column is full to the top is still placed in the top row;
 * - a b13 (3 tall) whose top would pass row 15 fails with `Height boundary is intruded.`;
 * - any error aborts the whole program; afterwards everything is shifted left so the leftmost
 *   occupied column becomes column 0 (rows never move).
 */
export const GRID_WIDTH = 20;
export const GRID_HEIGHT = 16;

/** Footprints in cells (width × height) and the Science Birds block each id becomes (official `Block`). */
export const BLOCK_SHAPES: Readonly<Record<BlockId, { width: number; height: number; type: 'SquareTiny' | 'RectSmall'; rotation: 0 | 90 }>> = {
  b11: { width: 1, height: 1, type: 'SquareTiny', rotation: 0 },
  b31: { width: 3, height: 1, type: 'RectSmall', rotation: 0 },
  b13: { width: 1, height: 3, type: 'RectSmall', rotation: 90 },
};

/** The three official failure messages, verbatim. */
export const HEIGHT_BOUNDARY = 'Height boundary is intruded.';
export const WIDTH_BOUNDARY = 'Width boundary is intruded.';
export const UNKNOWN_BLOCK = 'BlockType does not exist.';
export const DROP_FAILURES = [HEIGHT_BOUNDARY, WIDTH_BOUNDARY, UNKNOWN_BLOCK] as const;
export type DropFailure = (typeof DROP_FAILURES)[number];

/** A drop program that the official converter refuses; `message` is the official text. */
export class DropError extends Error {
  readonly reason: DropFailure;
  readonly call: DropCall;
  constructor(reason: DropFailure, call: DropCall) {
    super(reason);
    this.name = 'DropError';
    this.reason = reason;
    this.call = call;
  }
}

export interface PlacedBlock {
  block: BlockId;
  /** The call that dropped it (0-based among the program's calls). */
  callIndex: number;
  /** Centre column as called, before the left shift (what the official `convertTextToBlocks` reports). */
  slot: number;
  /** Centre column after the left shift (what the XML uses). */
  column: number;
  /** Bottom row of the block (0 = on the ground). */
  row: number;
  width: number;
  height: number;
}

export interface PlacedStructure {
  /** Blocks in drop order (= XML order). */
  blocks: PlacedBlock[];
  /** Columns the structure moved left (the leftmost occupied column before the shift; 20 if empty). */
  shift: number;
  /** Occupancy after the shift, `cells[row * GRID_WIDTH + column]` = 1 when occupied, row 0 at the bottom. */
  cells: Uint8Array;
  /** Occupied cells per row (the official level-width formula uses the largest). */
  rowCounts: Uint8Array;
  /** Highest occupied row, or −1 when empty. */
  topRow: number;
}

/** Drops the calls in order; throws {@link DropError} with the official message on the first failure. */
export function dropBlocks(calls: readonly DropCall[]): PlacedStructure {
  const cells = new Uint8Array(GRID_WIDTH * GRID_HEIGHT);
  const rowCounts = new Uint8Array(GRID_HEIGHT);
  /** One above the highest occupied cell of each column (0 = empty column). */
  const heights = new Uint8Array(GRID_WIDTH);
  const blocks: PlacedBlock[] = [];
  let topRow = -1;
  let minColumn = GRID_WIDTH;
  const mark = (row: number, column: number) => {
    const k = row * GRID_WIDTH + column;
    if (cells[k] === 0) {
      cells[k] = 1;
      rowCounts[row]! += 1;
    }
    if (row + 1 > heights[column]!) heights[column] = row + 1;
    if (row > topRow) topRow = row;
  };

  for (const call of calls) {
    if (call.block === undefined) throw new DropError(UNKNOWN_BLOCK, call);
    const shape = BLOCK_SHAPES[call.block];
    const slot = call.slot;
    // Official: `grid[15][slot] !== 0` — an out-of-grid or NaN slot reads `undefined`, which also fails.
    if (!(Number.isInteger(slot) && slot >= 0 && slot < GRID_WIDTH) || heights[slot] === GRID_HEIGHT) {
      throw new DropError(HEIGHT_BOUNDARY, call);
    }
    const column = slot | 0; // -0 indexes column 0, as an array index does.
    let row = heights[column]!;
    if (shape.width === 3) {
      if (column - 1 < 0 || column + 1 > GRID_WIDTH - 1) throw new DropError(WIDTH_BOUNDARY, call);
      row = Math.min(GRID_HEIGHT - 1, Math.max(row, heights[column - 1]!, heights[column + 1]!));
      mark(row, column - 1);
      mark(row, column);
      mark(row, column + 1);
      if (column - 1 < minColumn) minColumn = column - 1;
    } else {
      if (row + shape.height - 1 > GRID_HEIGHT - 1) throw new DropError(HEIGHT_BOUNDARY, call);
      for (let r = row; r < row + shape.height; r++) mark(r, column);
      if (column < minColumn) minColumn = column;
    }
    blocks.push({ block: call.block, callIndex: call.index, slot: column, column, row, width: shape.width, height: shape.height });
  }

  const shift = minColumn;
  if (shift > 0 && shift < GRID_WIDTH) {
    cells.copyWithin(0, shift); // rows are contiguous: shift every row left, then clear the vacated tail.
    for (let r = 0; r < GRID_HEIGHT; r++) cells.fill(0, r * GRID_WIDTH + GRID_WIDTH - shift, (r + 1) * GRID_WIDTH);
    for (const b of blocks) b.column -= shift;
  }
  return { blocks, shift, cells, rowCounts, topRow };
}

export type DropResult = { ok: true; structure: PlacedStructure } | { ok: false; reason: DropFailure; call: DropCall };

/** {@link dropBlocks} with the failure as a value. */
export function tryDropBlocks(calls: readonly DropCall[]): DropResult {
  try {
    return { ok: true, structure: dropBlocks(calls) };
  } catch (error) {
    if (error instanceof DropError) return { ok: false, reason: error.reason, call: error.call };
    throw error;
  }
}

/** The structure as text rows, top row first, `#` occupied and `.` free (for logs and reports). */
export function structureToText(structure: PlacedStructure): string {
  const rows: string[] = [];
  for (let r = GRID_HEIGHT - 1; r >= 0; r--) {
    let line = '';
    for (let c = 0; c < GRID_WIDTH; c++) line += structure.cells[r * GRID_WIDTH + c] ? '#' : '.';
    rows.push(line);
  }
  return rows.join('\n');
}
