import { DropError, type DropFailure, dropBlocks, type PlacedStructure } from './drop.js';
import { CODE_NOT_FOUND, DROP_BLOCK, extractCode } from './extract.js';
import { type DropCall, parseDropProgram } from './program.js';
import { structureToXml } from './xml-write.js';

/**
 * The two official level stages composed: response → (extraction) → drop program → (conversion) →
 * level XML. Failures are values carrying the official reason.
 */
export interface LevelOptions {
  /** Function name: `drop_block` (2024–2025, default) or `ab_drop` (2023). */
  prefix?: string;
}

export type ConvertResult =
  | { ok: true; xml: string; structure: PlacedStructure; calls: DropCall[] }
  | { ok: false; stage: 'convert'; reason: DropFailure; call: DropCall };

/**
 * The official `convertTextToXML(text, prefix + '(')`: the XML, or the official error message
 * (`Height boundary is intruded.`, `Width boundary is intruded.`, `BlockType does not exist.`).
 */
export function convertProgram(program: string, options: LevelOptions = {}): ConvertResult {
  const calls = parseDropProgram(program, options.prefix ?? DROP_BLOCK);
  try {
    const structure = dropBlocks(calls);
    return { ok: true, xml: structureToXml(structure), structure, calls };
  } catch (error) {
    if (error instanceof DropError) return { ok: false, stage: 'convert', reason: error.reason, call: error.call };
    throw error;
  }
}

/** The official converter's contract: XML text, or a thrown `Error` whose message is the official reason. */
export function programToXml(program: string, options: LevelOptions = {}): string {
  return structureToXml(dropBlocks(parseDropProgram(program, options.prefix ?? DROP_BLOCK)));
}

export type ResponseResult =
  | { ok: true; code: string; xml: string; structure: PlacedStructure; calls: DropCall[] }
  | { ok: false; stage: 'extract'; reason: typeof CODE_NOT_FOUND }
  | { ok: false; stage: 'convert'; reason: DropFailure; code: string; call: DropCall };

/** An LLM response all the way to its level, as extraction + conversion would produce it. */
export function responseToLevel(response: string, options: LevelOptions = {}): ResponseResult {
  const code = extractCode(response, options.prefix ?? DROP_BLOCK);
  if (code === null) return { ok: false, stage: 'extract', reason: CODE_NOT_FOUND };
  const converted = convertProgram(code, options);
  if (!converted.ok) return { ok: false, stage: 'convert', reason: converted.reason, code, call: converted.call };
  return { ok: true, code, xml: converted.xml, structure: converted.structure, calls: converted.calls };
}
