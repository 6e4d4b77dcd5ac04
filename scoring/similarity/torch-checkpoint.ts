/**
 * PyTorch checkpoints (`pytorch_model.bin`, `torch.save` zip format, PyTorch ≥ 1.6) read without Python,
 * for hub repositories that predate safetensors (the competition model was trained with transformers
 * 4.26, whose `save_pretrained` wrote `pytorch_model.bin`).
 *
 * Layout (torch/serialization.py `_save`): a zip archive of stored (uncompressed) entries
 * `<archive>/data.pkl` — a pickle of the state dict in which every tensor is
 * `torch._utils._rebuild_tensor_v2(storage, offset, size, stride, …)` and every storage a persistent id
 * `('storage', torch.<Type>Storage, key, location, numel)` — and `<archive>/data/<key>` holding that
 * storage's raw little-endian bytes.
 *
 * The unpickler here is restricted: it knows the opcodes `pickle` emits for such files and only the
 * handful of globals a state dict needs; anything else is refused (a pickle can otherwise run code).
 */
import { inflateRawSync } from 'node:zlib';

export class TorchCheckpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TorchCheckpointError';
  }
}

// ---- zip ----

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

function u16(b: Uint8Array, o: number): number {
  return b[o]! | (b[o + 1]! << 8);
}
function u32(b: Uint8Array, o: number): number {
  return (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16)) + b[o + 3]! * 0x1000000;
}
function u64(b: Uint8Array, o: number): number {
  return u32(b, o) + u32(b, o + 4) * 0x100000000;
}

function readZipDirectory(zip: Uint8Array): Map<string, ZipEntry> {
  // End of central directory record: signature 0x06054b50 within the last 64 KiB + 22 bytes.
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 65535); i--) {
    if (u32(zip, i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new TorchCheckpointError('not a zip archive (no end-of-central-directory record; a pre-1.6 torch.save file?)');
  let count = u16(zip, eocd + 10);
  let cdOffset = u32(zip, eocd + 16);
  // ZIP64: the locator sits right before the EOCD and points at the ZIP64 EOCD record.
  if ((count === 0xffff || cdOffset === 0xffffffff) && eocd >= 20 && u32(zip, eocd - 20) === 0x07064b50) {
    const z64 = u64(zip, eocd - 20 + 8);
    if (u32(zip, z64) !== 0x06064b50) throw new TorchCheckpointError('corrupt ZIP64 end record');
    count = u64(zip, z64 + 32);
    cdOffset = u64(zip, z64 + 48);
  }
  const entries = new Map<string, ZipEntry>();
  let p = cdOffset;
  const decoder = new TextDecoder();
  for (let i = 0; i < count; i++) {
    if (u32(zip, p) !== 0x02014b50) throw new TorchCheckpointError('corrupt zip central directory');
    const method = u16(zip, p + 10);
    let compressedSize = u32(zip, p + 20);
    let size = u32(zip, p + 24);
    const nameLen = u16(zip, p + 28);
    const extraLen = u16(zip, p + 30);
    const commentLen = u16(zip, p + 32);
    let localHeaderOffset = u32(zip, p + 42);
    const name = decoder.decode(zip.subarray(p + 46, p + 46 + nameLen));
    // ZIP64 extended information extra field (0x0001): 64-bit values for the fields that overflowed.
    let e = p + 46 + nameLen;
    const end = e + extraLen;
    while (e + 4 <= end) {
      const id = u16(zip, e);
      const len = u16(zip, e + 2);
      if (id === 0x0001) {
        let q = e + 4;
        if (size === 0xffffffff) {
          size = u64(zip, q);
          q += 8;
        }
        if (compressedSize === 0xffffffff) {
          compressedSize = u64(zip, q);
          q += 8;
        }
        if (localHeaderOffset === 0xffffffff) localHeaderOffset = u64(zip, q);
      }
      e += 4 + len;
    }
    entries.set(name, { name, method, compressedSize, size, localHeaderOffset });
    p = end + commentLen;
  }
  return entries;
}

function zipEntryData(zip: Uint8Array, entry: ZipEntry): Uint8Array {
  const h = entry.localHeaderOffset;
  if (u32(zip, h) !== 0x04034b50) throw new TorchCheckpointError(`corrupt local header of ${entry.name}`);
  const start = h + 30 + u16(zip, h + 26) + u16(zip, h + 28);
  if (start + entry.compressedSize > zip.length) throw new TorchCheckpointError(`${entry.name} runs past the end of the file (truncated download?)`);
  const raw = zip.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) return raw;
  if (entry.method === 8) return inflateRawSync(raw);
  throw new TorchCheckpointError(`${entry.name}: unsupported zip compression method ${entry.method}`);
}

// ---- restricted unpickler ----

class Global {
  constructor(
    readonly module: string,
    readonly name: string,
  ) {}
  get id(): string {
    return `${this.module}.${this.name}`;
  }
}

interface StorageRef {
  kind: 'storage';
  dtype: TorchDtype;
  key: string;
  numel: number;
}

interface TorchTensorRef {
  kind: 'tensor';
  storage: StorageRef;
  offset: number;
  shape: number[];
  stride: number[];
}

type TorchDtype = 'float32' | 'float16' | 'bfloat16' | 'float64' | 'int64' | 'int32' | 'uint8' | 'int8' | 'bool';

const STORAGE_TYPES: Record<string, TorchDtype> = {
  FloatStorage: 'float32',
  HalfStorage: 'float16',
  BFloat16Storage: 'bfloat16',
  DoubleStorage: 'float64',
  LongStorage: 'int64',
  IntStorage: 'int32',
  ByteStorage: 'uint8',
  CharStorage: 'int8',
  BoolStorage: 'bool',
};

const ALLOWED_GLOBALS = new Set([
  'collections.OrderedDict',
  'torch._utils._rebuild_tensor_v2',
  'torch._utils._rebuild_parameter',
  ...Object.keys(STORAGE_TYPES).map((s) => `torch.${s}`),
]);

const MARK = Symbol('mark');
type PickleValue = unknown;

function reduce(fn: PickleValue, args: PickleValue): PickleValue {
  if (!(fn instanceof Global)) throw new TorchCheckpointError('REDUCE on something that is not a known function');
  const a = args as PickleValue[];
  switch (fn.id) {
    case 'collections.OrderedDict':
      return new Map();
    case 'torch._utils._rebuild_tensor_v2': {
      const [storage, offset, shape, stride] = a as [StorageRef, number, number[], number[]];
      if (storage?.kind !== 'storage') throw new TorchCheckpointError('tensor without a storage');
      return { kind: 'tensor', storage, offset, shape: [...shape], stride: [...stride] } satisfies TorchTensorRef;
    }
    case 'torch._utils._rebuild_parameter':
      return a[0];
    default:
      throw new TorchCheckpointError(`${fn.id} is not allowed in a state dict`);
  }
}

/** Unpickles `data.pkl` of a state dict: returns name → tensor reference (storages are resolved by the caller). */
export function unpickleStateDict(pkl: Uint8Array): Map<string, TorchTensorRef> {
  const stack: PickleValue[] = [];
  const memo = new Map<number, PickleValue>();
  const view = new DataView(pkl.buffer, pkl.byteOffset, pkl.byteLength);
  const decoder = new TextDecoder();
  let p = 0;
  const popMark = (): PickleValue[] => {
    const items: PickleValue[] = [];
    for (;;) {
      if (stack.length === 0) throw new TorchCheckpointError('pickle MARK missing');
      const v = stack.pop();
      if (v === MARK) break;
      items.push(v);
    }
    return items.reverse();
  };
  const readLine = (): string => {
    const nl = pkl.indexOf(0x0a, p);
    if (nl < 0) throw new TorchCheckpointError('truncated pickle');
    const s = decoder.decode(pkl.subarray(p, nl));
    p = nl + 1;
    return s;
  };
  const setItems = (target: PickleValue, items: PickleValue[]) => {
    if (!(target instanceof Map)) throw new TorchCheckpointError('SETITEMS on a non-dict');
    for (let i = 0; i < items.length; i += 2) target.set(items[i], items[i + 1]);
  };
  while (p < pkl.length) {
    const op = pkl[p++]!;
    switch (op) {
      case 0x80: // PROTO
        p += 1;
        break;
      case 0x95: // FRAME
        p += 8;
        break;
      case 0x2e: {
        // STOP
        const top = stack.pop();
        if (!(top instanceof Map)) throw new TorchCheckpointError('the pickle does not hold a state dict (a mapping of names to tensors)');
        const out = new Map<string, TorchTensorRef>();
        for (const [k, v] of top) if ((v as TorchTensorRef)?.kind === 'tensor') out.set(String(k), v as TorchTensorRef);
        return out;
      }
      case 0x28: // MARK
        stack.push(MARK);
        break;
      case 0x7d: // EMPTY_DICT (a Map: pickle keys must not reach object prototypes)
        stack.push(new Map());
        break;
      case 0x5d: // EMPTY_LIST
        stack.push([]);
        break;
      case 0x29: // EMPTY_TUPLE
        stack.push([]);
        break;
      case 0x4e: // NONE
        stack.push(null);
        break;
      case 0x88: // NEWTRUE
        stack.push(true);
        break;
      case 0x89: // NEWFALSE
        stack.push(false);
        break;
      case 0x4b: // BININT1
        stack.push(pkl[p]!);
        p += 1;
        break;
      case 0x4d: // BININT2
        stack.push(view.getUint16(p, true));
        p += 2;
        break;
      case 0x4a: // BININT
        stack.push(view.getInt32(p, true));
        p += 4;
        break;
      case 0x8a: {
        // LONG1
        const n = pkl[p]!;
        let v = 0n;
        for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(pkl[p + 1 + i]!);
        if (n > 0 && pkl[p + n]! & 0x80) v -= 1n << BigInt(8 * n);
        stack.push(Number(v));
        p += 1 + n;
        break;
      }
      case 0x47: // BINFLOAT (big-endian)
        stack.push(view.getFloat64(p, false));
        p += 8;
        break;
      case 0x58: {
        // BINUNICODE
        const n = view.getUint32(p, true);
        stack.push(decoder.decode(pkl.subarray(p + 4, p + 4 + n)));
        p += 4 + n;
        break;
      }
      case 0x8c: {
        // SHORT_BINUNICODE
        const n = pkl[p]!;
        stack.push(decoder.decode(pkl.subarray(p + 1, p + 1 + n)));
        p += 1 + n;
        break;
      }
      case 0x63: {
        // GLOBAL "module\nname\n"
        const g = new Global(readLine(), readLine());
        if (!ALLOWED_GLOBALS.has(g.id)) throw new TorchCheckpointError(`refusing pickle global ${g.id}`);
        stack.push(g);
        break;
      }
      case 0x93: {
        // STACK_GLOBAL
        const name = stack.pop() as string;
        const module = stack.pop() as string;
        const g = new Global(module, name);
        if (!ALLOWED_GLOBALS.has(g.id)) throw new TorchCheckpointError(`refusing pickle global ${g.id}`);
        stack.push(g);
        break;
      }
      case 0x71: // BINPUT
        memo.set(pkl[p]!, stack[stack.length - 1]);
        p += 1;
        break;
      case 0x72: // LONG_BINPUT
        memo.set(view.getUint32(p, true), stack[stack.length - 1]);
        p += 4;
        break;
      case 0x94: // MEMOIZE
        memo.set(memo.size, stack[stack.length - 1]);
        break;
      case 0x68: // BINGET
        stack.push(memo.get(pkl[p]!));
        p += 1;
        break;
      case 0x6a: // LONG_BINGET
        stack.push(memo.get(view.getUint32(p, true)));
        p += 4;
        break;
      case 0x74: // TUPLE
        stack.push(popMark());
        break;
      case 0x85: // TUPLE1
        stack.push([stack.pop()]);
        break;
      case 0x86: {
        // TUPLE2
        const b = stack.pop();
        const a = stack.pop();
        stack.push([a, b]);
        break;
      }
      case 0x87: {
        // TUPLE3
        const c = stack.pop();
        const b = stack.pop();
        const a = stack.pop();
        stack.push([a, b, c]);
        break;
      }
      case 0x61: {
        // APPEND
        const v = stack.pop();
        (stack[stack.length - 1] as PickleValue[]).push(v);
        break;
      }
      case 0x65: {
        // APPENDS
        const items = popMark();
        (stack[stack.length - 1] as PickleValue[]).push(...items);
        break;
      }
      case 0x73: {
        // SETITEM
        const v = stack.pop();
        const k = stack.pop();
        setItems(stack[stack.length - 1], [k, v]);
        break;
      }
      case 0x75: {
        // SETITEMS
        const items = popMark();
        setItems(stack[stack.length - 1], items);
        break;
      }
      case 0x52: {
        // REDUCE
        const args = stack.pop();
        const fn = stack.pop();
        stack.push(reduce(fn, args));
        break;
      }
      case 0x81: {
        // NEWOBJ (cls.__new__(cls, *args)): only OrderedDict
        const args = stack.pop();
        const cls = stack.pop();
        stack.push(reduce(cls, args));
        break;
      }
      case 0x62: // BUILD: object state (the state dict's `_metadata`), not needed
        stack.pop();
        break;
      case 0x51: {
        // BINPERSID: ('storage', storage_type, key, location, numel)
        const pid = stack.pop() as PickleValue[];
        if (!Array.isArray(pid) || pid[0] !== 'storage' || !(pid[1] instanceof Global)) throw new TorchCheckpointError('unknown persistent id');
        const dtype = STORAGE_TYPES[(pid[1] as Global).name];
        if (!dtype) throw new TorchCheckpointError(`unsupported storage ${(pid[1] as Global).id}`);
        stack.push({ kind: 'storage', dtype, key: String(pid[2]), numel: Number(pid[4]) } satisfies StorageRef);
        break;
      }
      default:
        throw new TorchCheckpointError(`unsupported pickle opcode 0x${op.toString(16)} at byte ${p - 1}`);
    }
  }
  throw new TorchCheckpointError('pickle ended without STOP');
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

const DTYPE_BYTES: Record<TorchDtype, number> = { float32: 4, float16: 2, bfloat16: 2, float64: 8, int64: 8, int32: 4, uint8: 1, int8: 1, bool: 1 };

function elementReader(dtype: TorchDtype, view: DataView): (i: number) => number {
  switch (dtype) {
    case 'float32':
      return (i) => view.getFloat32(i * 4, true);
    case 'float64':
      return (i) => view.getFloat64(i * 8, true);
    case 'float16':
      return (i) => {
        const h = view.getUint16(i * 2, true);
        const e = (h >> 10) & 0x1f;
        const f = h & 0x3ff;
        const s = h & 0x8000 ? -1 : 1;
        if (e === 0) return s * f * 2 ** -24;
        if (e === 31) return f ? Number.NaN : s * Infinity;
        return s * (1 + f / 1024) * 2 ** (e - 15);
      };
    case 'bfloat16': {
      const tmp = new DataView(new ArrayBuffer(4));
      return (i) => {
        tmp.setUint32(0, view.getUint16(i * 2, true) << 16, true);
        return tmp.getFloat32(0, true);
      };
    }
    default:
      throw new TorchCheckpointError(`${dtype} tensors are not floating point`);
  }
}

interface TorchStateDict {
  tensors: Map<string, TorchTensorRef>;
  /** A tensor's values as a contiguous float32 array (views and strides resolved). */
  read(name: string): { shape: number[]; data: Float32Array } | undefined;
}

/** Reads a `torch.save` zip checkpoint of a state dict. */
export function readTorchCheckpoint(file: Uint8Array): TorchStateDict {
  const entries = readZipDirectory(file);
  const pklEntry = [...entries.values()].find((e) => e.name.endsWith('/data.pkl') || e.name === 'data.pkl');
  if (!pklEntry) throw new TorchCheckpointError('no data.pkl in the archive: not a torch.save checkpoint');
  const prefix = pklEntry.name.slice(0, pklEntry.name.length - 'data.pkl'.length);
  const byteorder = entries.get(`${prefix}byteorder`);
  if (byteorder && new TextDecoder().decode(zipEntryData(file, byteorder)).trim() !== 'little') {
    throw new TorchCheckpointError('big-endian checkpoints are not supported');
  }
  const tensors = unpickleStateDict(zipEntryData(file, pklEntry));
  const storages = new Map<string, DataView>();
  const storage = (ref: StorageRef): DataView => {
    let v = storages.get(ref.key);
    if (!v) {
      const entry = entries.get(`${prefix}data/${ref.key}`);
      if (!entry) throw new TorchCheckpointError(`storage ${ref.key} is missing from the archive`);
      const bytes = zipEntryData(file, entry);
      if (bytes.length < ref.numel * DTYPE_BYTES[ref.dtype]) throw new TorchCheckpointError(`storage ${ref.key} is shorter than its ${ref.numel} elements`);
      v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      storages.set(ref.key, v);
    }
    return v;
  };
  return {
    tensors,
    read(name) {
      const t = tensors.get(name);
      if (!t) return undefined;
      const view = storage(t.storage);
      const n = t.shape.reduce((a, b) => a * b, 1);
      const rank = t.shape.length;
      let contiguous = true;
      for (let d = rank - 1, step = 1; d >= 0; d--) {
        if (t.shape[d]! > 1 && t.stride[d] !== step) contiguous = false;
        step *= t.shape[d]!;
      }
      if (contiguous && t.storage.dtype === 'float32' && LITTLE_ENDIAN) {
        if (t.offset + n > t.storage.numel) throw new TorchCheckpointError(`${name} reads past its storage`);
        // One copy into a fresh aligned buffer (zip entries need not be 4-byte aligned).
        const bytes = new Uint8Array(view.buffer, view.byteOffset + t.offset * 4, n * 4).slice();
        return { shape: [...t.shape], data: new Float32Array(bytes.buffer) };
      }
      const at = elementReader(t.storage.dtype, view);
      const out = new Float32Array(n);
      const index = new Array<number>(rank).fill(0);
      for (let k = 0; k < n; k++) {
        let off = t.offset;
        for (let d = 0; d < rank; d++) off += index[d]! * t.stride[d]!;
        if (off >= t.storage.numel) throw new TorchCheckpointError(`${name} reads past its storage`);
        out[k] = at(off);
        for (let d = rank - 1; d >= 0; d--) {
          index[d]! += 1;
          if (index[d]! < t.shape[d]!) break;
          index[d] = 0;
        }
      }
      return { shape: [...t.shape], data: out };
    },
  };
}
