import { SbevalError } from '../../core/errors.js';

/**
 * Reads `metadata_props` (ModelProto field 14) out of an ONNX file without loading the graph: top-level
 * fields are walked and length-delimited ones other than 14 skipped, so a 350 MB model costs a few small
 * reads. The converter stores there what inference needs besides the graph (labels, preprocessing).
 */

type ReadAt = (position: number, length: number) => Uint8Array;

function varintAt(read: ReadAt, pos: number, size: number): [value: number, next: number] {
  const bytes = read(pos, Math.min(10, size - pos));
  let value = 0;
  let scale = 1;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    value += (b & 0x7f) * scale;
    if (b < 0x80) return [value, pos + i + 1];
    scale *= 128;
  }
  throw new SbevalError('similarity', `truncated varint at byte ${pos}`);
}

function parseEntry(bytes: Uint8Array): [string, string] {
  let key = '';
  let value = '';
  let p = 0;
  const decoder = new TextDecoder();
  while (p < bytes.length) {
    const [tag, afterTag] = varintAt((o, l) => bytes.subarray(o, o + l), p, bytes.length);
    if ((tag & 7) !== 2) throw new SbevalError('similarity', 'unexpected field in a metadata entry');
    const [len, start] = varintAt((o, l) => bytes.subarray(o, o + l), afterTag, bytes.length);
    const text = decoder.decode(bytes.subarray(start, start + len));
    if (tag >> 3 === 1) key = text;
    else if (tag >> 3 === 2) value = text;
    p = start + len;
  }
  return [key, value];
}

export function scanOnnxMetadata(read: ReadAt, size: number): Record<string, string> {
  const out: Record<string, string> = {};
  let pos = 0;
  while (pos < size) {
    const [tag, afterTag] = varintAt(read, pos, size);
    const field = tag >> 3;
    const wire = tag & 7;
    if (wire === 0) {
      pos = varintAt(read, afterTag, size)[1];
    } else if (wire === 2) {
      const [len, start] = varintAt(read, afterTag, size);
      if (start + len > size) throw new SbevalError('similarity', 'length-delimited field runs past the end of the file');
      if (field === 14) {
        const [k, v] = parseEntry(read(start, len));
        out[k] = v;
      }
      pos = start + len;
    } else if (wire === 5) {
      pos = afterTag + 4;
    } else if (wire === 1) {
      pos = afterTag + 8;
    } else {
      throw new SbevalError('similarity', `unsupported protobuf wire type ${wire} at byte ${pos}: not an ONNX model?`);
    }
  }
  return out;
}
