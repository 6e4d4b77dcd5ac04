import { SbevalError } from '../../core/errors.js';

/**
 * The safetensors format (huggingface/safetensors, docs "format"): an 8-byte little-endian header length N,
 * N bytes of JSON `{name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__"?: {…}}`, then the byte
 * buffer the offsets index (relative to its start). Pure: bytes in, tensors out (and back).
 */

type SafetensorsDtype = 'F64' | 'F32' | 'F16' | 'BF16' | 'I64' | 'I32' | 'I16' | 'I8' | 'U8' | 'BOOL';

const DTYPE_BYTES: Record<SafetensorsDtype, number> = { F64: 8, F32: 4, F16: 2, BF16: 2, I64: 8, I32: 4, I16: 2, I8: 1, U8: 1, BOOL: 1 };

interface TensorInfo {
  name: string;
  dtype: SafetensorsDtype;
  shape: number[];
  /** Bytes of this tensor inside the file's data buffer. */
  bytes: Uint8Array;
}

interface Safetensors {
  metadata: Record<string, string>;
  tensors: Map<string, TensorInfo>;
}

/** Header size cap (the reference implementation refuses headers over 100 MB). */
const MAX_HEADER = 100_000_000;

export function parseSafetensors(file: Uint8Array): Safetensors {
  if (file.byteLength < 8) throw new SbevalError('similarity', 'file shorter than the 8-byte header length');
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  if (headerLength > MAX_HEADER || 8 + headerLength > file.byteLength) {
    throw new SbevalError('similarity', `header length ${headerLength} does not fit the ${file.byteLength}-byte file (truncated download?)`);
  }
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(file.subarray(8, 8 + headerLength)));
  } catch (error) {
    throw new SbevalError('similarity', `header is not valid JSON: ${(error as Error).message}`);
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) throw new SbevalError('similarity', 'header is not a JSON object');
  const data = file.subarray(8 + headerLength);
  const tensors = new Map<string, TensorInfo>();
  let metadata: Record<string, string> = {};
  const spans: Array<[number, number, string]> = [];
  for (const [name, entry] of Object.entries(header as Record<string, unknown>)) {
    if (name === '__metadata__') {
      metadata = (entry ?? {}) as Record<string, string>;
      continue;
    }
    const e = entry as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
    if (typeof e?.dtype !== 'string' || !(e.dtype in DTYPE_BYTES))
      throw new SbevalError('similarity', `${name}: unsupported dtype ${JSON.stringify(e?.dtype)}`);
    const dtype = e.dtype as SafetensorsDtype;
    if (!Array.isArray(e.shape) || !e.shape.every((d) => Number.isInteger(d) && d >= 0)) throw new SbevalError('similarity', `${name}: bad shape`);
    const offsets = e.data_offsets;
    if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isInteger(o) && o >= 0)) {
      throw new SbevalError('similarity', `${name}: bad data_offsets`);
    }
    const [begin, end] = offsets as [number, number];
    const shape = e.shape as number[];
    const expected = shape.reduce((a, b) => a * b, 1) * DTYPE_BYTES[dtype];
    if (end < begin || end - begin !== expected)
      throw new SbevalError('similarity', `${name}: ${end - begin} bytes for shape [${shape}] ${dtype} (expected ${expected})`);
    if (end > data.byteLength) throw new SbevalError('similarity', `${name}: data runs past the end of the file (truncated download?)`);
    spans.push([begin, end, name]);
    tensors.set(name, { name, dtype, shape, bytes: data.subarray(begin, end) });
  }
  // The format forbids overlapping tensors (and holes); overlap would mean a corrupt or hostile file.
  spans.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < spans.length; i++) {
    if (spans[i]![0] < spans[i - 1]![1]) throw new SbevalError('similarity', `${spans[i]![2]} overlaps ${spans[i - 1]![2]}`);
  }
  return { metadata, tensors };
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** A floating tensor's values as float32 (F16/BF16 widen exactly; F64 rounds to nearest float32). */
export function toFloat32(t: TensorInfo): Float32Array {
  const n = t.shape.reduce((a, b) => a * b, 1);
  const view = new DataView(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength);
  const out = new Float32Array(n);
  switch (t.dtype) {
    case 'F32':
      // One memcpy into a fresh, aligned buffer (Uint8Array's slice copies; a Node Buffer's would not).
      if (LITTLE_ENDIAN) return new Float32Array(Uint8Array.prototype.slice.call(t.bytes).buffer, 0, n);
      for (let i = 0; i < n; i++) out[i] = view.getFloat32(i * 4, true);
      return out;
    case 'F64':
      for (let i = 0; i < n; i++) out[i] = view.getFloat64(i * 8, true);
      return out;
    case 'F16':
      for (let i = 0; i < n; i++) out[i] = halfToFloat(view.getUint16(i * 2, true));
      return out;
    case 'BF16': {
      const u = new Uint32Array(out.buffer);
      for (let i = 0; i < n; i++) u[i] = view.getUint16(i * 2, true) << 16;
      return out;
    }
    default:
      throw new SbevalError('similarity', `${t.name}: ${t.dtype} is not a floating-point tensor`);
  }
}

/**
 * Encodes float32 tensors as a safetensors file (names sorted, 8-byte aligned data as the reference
 * implementation writes it). Used by the random-weights model maker; returns the pieces to write in order.
 */
export function encodeSafetensors(
  tensors: ReadonlyMap<string, { shape: number[]; data: Float32Array }>,
  metadata: Record<string, string> = { format: 'pt' },
): Uint8Array[] {
  const names = [...tensors.keys()].sort();
  const header: Record<string, unknown> = { __metadata__: metadata };
  let offset = 0;
  for (const name of names) {
    const t = tensors.get(name)!;
    const count = t.shape.reduce((a, b) => a * b, 1);
    if (count !== t.data.length) throw new SbevalError('similarity', `${name}: ${t.data.length} values for shape [${t.shape}]`);
    header[name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + count * 4] };
    offset += count * 4;
  }
  const raw = new TextEncoder().encode(JSON.stringify(header));
  const padded = raw.length + ((8 - ((raw.length + 8) % 8)) % 8);
  const head = new Uint8Array(8 + padded).fill(0x20);
  new DataView(head.buffer).setBigUint64(0, BigInt(padded), true);
  head.set(raw, 8);
  const pieces: Uint8Array[] = [head];
  for (const name of names) {
    const d = tensors.get(name)!.data;
    if (LITTLE_ENDIAN) {
      pieces.push(new Uint8Array(d.buffer, d.byteOffset, d.byteLength));
    } else {
      const b = new Uint8Array(d.length * 4);
      const v = new DataView(b.buffer);
      d.forEach((x, i) => v.setFloat32(i * 4, x, true));
      pieces.push(b);
    }
  }
  return pieces;
}
