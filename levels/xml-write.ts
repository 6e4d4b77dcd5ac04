import { BLOCK_SHAPES, GRID_WIDTH, type PlacedStructure } from './drop.js';
import type { Level, LevelBlock } from './level.js';

/**
 * The level XML of a dropped structure, byte-identical to `convertTextToXML` of `chatgpt4pcg@1.4.1`
 * (`converter/xml.ts`; reference/official-pipeline.md §1b). The official code computes with
 * bignumber.js and prints with `toFixed()`; every value here is an integer number of 1e-5 units, so
 * the arithmetic is exact and the printing is plain integer formatting — never float printing.
 *
 * Constants (official `converter.ts`): one cell = 0.2401, structure origin (2, −3.5), level width
 * divisor 18, camera aspect 1.6, minimum camera width 17, zoom margin 5, slingshot (−9, −2.5), one
 * BirdRed, material always wood.
 */

/** 1e-5 world units per integer unit. */
const UNIT = 100_000;
const CELL = 24_010; // 0.2401
const HALF_CELL = 12_005;
const ORIGIN_X = 200_000; // 2
const ORIGIN_Y = -350_000; // -3.5
const LEVEL_WIDTH_DIVISOR = 1_800_000; // 18
const MIN_CAMERA_WIDTH = 1_700_000; // 17
const ZOOM_MARGIN = 500_000; // 5

/** An integer count of 1e-5 units as BigNumber's `toFixed()` prints it: plain, no trailing zeros. */
export function formatUnits(units: number): string {
  if (!Number.isSafeInteger(units)) throw new RangeError(`not an integer number of 1e-5 units: ${units}`);
  if (units === 0) return '0';
  const negative = units < 0;
  const abs = negative ? -units : units;
  const whole = Math.floor(abs / UNIT);
  let fraction = abs - whole * UNIT;
  let text = String(whole);
  if (fraction !== 0) {
    let digits = 5;
    while (fraction % 10 === 0) {
      fraction /= 10;
      digits--;
    }
    text += `.${String(fraction).padStart(digits, '0')}`;
  }
  return negative ? `-${text}` : text;
}

/** Centre of a placed block in 1e-5 units. Official: x = col·c + w·c/2 + 2 − (w > 1 ? c : 0) = 2 + c·(col + ½). */
export function blockCentreUnits(column: number, row: number, height: number): { x: number; y: number } {
  return { x: ORIGIN_X + CELL * column + HALF_CELL, y: ORIGIN_Y + CELL * row + HALF_CELL * height };
}

export interface LevelFrame {
  /** `<Level width>`: int((2 + maxRowCells·0.2401) / 18) + 3, always 3 for a 20-column grid. */
  width: number;
  /** Camera minWidth/maxWidth in 1e-5 units. */
  cameraMinWidth: number;
  cameraMaxWidth: number;
}

/**
 * The official width and camera formulas: W = 2 + maxRowCells·0.2401, H = 3.5 + (topRow + 1)·0.2401
 * (topRow counts as 0 when empty), minWidth = max(2·max(1.6·H, W), 17), maxWidth = minWidth + 5.
 */
export function levelFrame(structure: PlacedStructure): LevelFrame {
  let maxRow = 0;
  for (const count of structure.rowCounts) if (count > maxRow) maxRow = count;
  const contentWidth = ORIGIN_X + maxRow * CELL;
  const contentHeight = -ORIGIN_Y + (Math.max(structure.topRow, 0) + 1) * CELL;
  // 1.6·H is exact: H is a multiple of 10 units.
  const camera = Math.max(2 * Math.max((contentHeight * 16) / 10, contentWidth), MIN_CAMERA_WIDTH);
  return { width: Math.floor(contentWidth / LEVEL_WIDTH_DIVISOR) + 3, cameraMinWidth: camera, cameraMaxWidth: camera + ZOOM_MARGIN };
}

/** The official XML text (UTF-16 declaration although written as UTF-8, `\n` newlines, no final newline). */
export function structureToXml(structure: PlacedStructure): string {
  const frame = levelFrame(structure);
  let xml =
    '<?xml version="1.0" encoding="utf-16"?>\n' +
    `<Level width="${frame.width}">\n` +
    `  <Camera x="2" y="0" minWidth="${formatUnits(frame.cameraMinWidth)}" maxWidth="${formatUnits(frame.cameraMaxWidth)}" />\n` +
    '  <Birds>\n    <Bird type="BirdRed" />\n  </Birds>\n' +
    '  <Slingshot x="-9" y="-2.5" />\n' +
    '  <GameObjects>\n';
  for (const b of structure.blocks) {
    const shape = BLOCK_SHAPES[b.block];
    const { x, y } = blockCentreUnits(b.column, b.row, b.height);
    xml += `    <Block type="${shape.type}" material="wood" x="${formatUnits(x)}" y="${formatUnits(y)}" rotation="${shape.rotation}" />\n`;
  }
  return `${xml}  </GameObjects>\n</Level>`;
}

/**
 * The same level as data, without going through text: exactly what {@link parseLevelXml} returns for
 * {@link structureToXml}'s output (an integer of 1e-5 units divided by 1e5 is the double nearest to
 * the printed decimal, as `Number("2.12005")` is).
 */
export function structureToLevel(structure: PlacedStructure): Level {
  const frame = levelFrame(structure);
  const objects: LevelBlock[] = structure.blocks.map((b) => {
    const shape = BLOCK_SHAPES[b.block];
    const { x, y } = blockCentreUnits(b.column, b.row, b.height);
    return { kind: 'block', type: shape.type, material: 'wood', x: x / UNIT, y: y / UNIT, rotation: shape.rotation };
  });
  return {
    width: frame.width,
    camera: { x: 2, y: 0, minWidth: frame.cameraMinWidth / UNIT, maxWidth: frame.cameraMaxWidth / UNIT },
    birds: ['BirdRed'],
    slingshot: { x: -9, y: -2.5 },
    objects,
  };
}

/** XML attribute value escaping (the reader decodes these five). */
function escapeAttribute(value: string): string {
  return /[&<>"']/.test(value)
    ? value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;')
    : value;
}

/**
 * Any {@link Level} as XML in the official converter's layout (same declaration, indentation,
 * attribute order and self-closing style; objects in their given order, one per line, so Unity's
 * LevelLoader reads every one). Numbers are printed as JavaScript's shortest round-trip decimal, so
 * `parseLevelXml(levelToXml(level))` gives back exactly `level`, and a competition level read from
 * its file is written back byte for byte.
 */
export function levelToXml(level: Level): string {
  const n = (value: number) => {
    if (!Number.isFinite(value)) throw new RangeError(`cannot write the non-finite number ${value} into a level`);
    return String(value);
  };
  let xml = `<?xml version="1.0" encoding="utf-16"?>\n<Level width="${n(level.width)}">\n`;
  if (level.camera) {
    const c = level.camera;
    xml += `  <Camera x="${n(c.x)}" y="${n(c.y)}" minWidth="${n(c.minWidth)}" maxWidth="${n(c.maxWidth)}" />\n`;
  }
  xml += '  <Birds>\n';
  for (const bird of level.birds) xml += `    <Bird type="${escapeAttribute(bird)}" />\n`;
  xml += '  </Birds>\n';
  if (level.slingshot) xml += `  <Slingshot x="${n(level.slingshot.x)}" y="${n(level.slingshot.y)}" />\n`;
  xml += '  <GameObjects>\n';
  for (const o of level.objects) {
    const type = escapeAttribute(o.type);
    const at = `x="${n(o.x)}" y="${n(o.y)}" rotation="${n(o.rotation)}"`;
    if (o.kind === 'block') xml += `    <Block type="${type}" material="${o.material}" ${at} />\n`;
    else if (o.kind === 'pig') xml += `    <Pig type="${type}" ${at} />\n`;
    else if (o.kind === 'tnt') xml += `    <TNT type="${type}" ${at} />\n`;
    else xml += `    <Platform type="${type}" ${at} scaleX="${n(o.scaleX)}" scaleY="${n(o.scaleY)}" />\n`;
  }
  return `${xml}  </GameObjects>\n</Level>`;
}

/** Grid width in world units, for renderers: 20 cells of 0.2401 starting at x = 2. */
export const GRID_WORLD = { originX: ORIGIN_X / UNIT, originY: ORIGIN_Y / UNIT, cell: CELL / UNIT, columns: GRID_WIDTH } as const;
