import { endianness } from 'node:os';
import { Packr, Unpackr } from 'msgpackr';

/**
 * The bridge's msgpack codec: plain msgpack maps that any msgpack library reads (no msgpackr records,
 * no extensions), encoded canonically so that the TypeScript side and the C# plugin produce the same
 * bytes for the same message (PROTOCOL.md, "Canonical encoding"):
 * - maps use the smallest header (fixmap / map16 / map32), keys are strings in the documented order;
 * - a number that is an integer in [-2^31, 2^32 - 1] uses the smallest integer format, any other
 *   number is a float64 (this is msgpackr's rule; -0 is written as the integer 0);
 * - strings are UTF-8 with the smallest header; byte arrays are `bin`; nil is never written (optional
 *   fields are left out).
 */
const packr = new Packr({ useRecords: false, variableMapSize: true });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

/** Encodes a plain value tree (objects, arrays, strings, finite numbers, booleans, Uint8Array). */
export function packValue(value: unknown): Uint8Array {
  return packr.pack(value);
}

/** Decodes one msgpack value; throws on truncated or invalid input. */
export function unpackValue(bytes: Uint8Array): unknown {
  return unpackr.unpack(bytes);
}

/**
 * Decodes a concatenation of msgpack values (a trace file). `truncated` is true when the last value
 * was cut off; the complete values before it are returned.
 */
export function unpackValues(bytes: Uint8Array): { values: unknown[]; truncated: boolean } {
  if (bytes.byteLength === 0) return { values: [], truncated: false };
  try {
    return { values: unpackr.unpackMultiple(bytes) as unknown[], truncated: false };
  } catch (error) {
    const e = error as { incomplete?: boolean; values?: unknown[] };
    if (e.incomplete === true) return { values: e.values ?? [], truncated: true };
    throw error;
  }
}

const LITTLE_ENDIAN_HOST = endianness() === 'LE';

/** Float32 values as little-endian bytes (the wire layout of `frames.states`). */
export function float32ToBytes(values: Float32Array): Uint8Array {
  if (LITTLE_ENDIAN_HOST) return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  const out = new Uint8Array(values.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i += 1) view.setFloat32(i * 4, values[i] as number, true);
  return out;
}

/** Little-endian bytes back to a Float32Array that owns its (aligned) memory. */
export function bytesToFloat32(bytes: Uint8Array): Float32Array {
  if (bytes.byteLength % 4 !== 0) throw new RangeError(`float32 data of ${bytes.byteLength} bytes is not a multiple of 4`);
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  if (LITTLE_ENDIAN_HOST) return new Float32Array(copy.buffer);
  const view = new DataView(copy.buffer);
  const out = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < out.length; i += 1) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/** A copy of a byte array that owns its memory (decoded `bin` values are views into the message). */
export function ownBytes(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy;
}
