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
import { SbevalError } from '../../core/errors.js';

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
  if (eocd < 0) throw new SbevalError('similarity', 'not a zip archive (no end-of-central-directory record; a pre-1.6 torch.save file?)');
  let count = u16(zip, eocd + 10);
  let cdOffset = u32(zip, eocd + 16);
  // ZIP64: the locator sits right before the EOCD and points at the ZIP64 EOCD record.
  if ((count === 0xffff || cdOffset === 0xffffffff) && eocd >= 20 && u32(zip, eocd - 20) === 0x07064b50) {
    const z64 = u64(zip, eocd - 20 + 8);
    if (u32(zip, z64) !== 0x06064b50) throw new SbevalError('similarity', 'corrupt ZIP64 end record');
    count = u64(zip, z64 + 32);
    cdOffset = u64(zip, z64 + 48);
  }
  const entries = new Map<string, ZipEntry>();
  let p = cdOffset;
  const decoder = new TextDecoder();
  for (let i = 0; i < count; i++) {
    if (u32(zip, p) !== 0x02014b50) throw new SbevalError('similarity', 'corrupt zip central directory');
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
  if (u32(zip, h) !== 0x04034b50) throw new SbevalError('similarity', `corrupt local header of ${entry.name}`);
  const start = h + 30 + u16(zip, h + 26) + u16(zip, h + 28);
  if (start + entry.compressedSize > zip.length) throw new SbevalError('similarity', `${entry.name} runs past the end of the file (truncated download?)`);
  const raw = zip.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) return raw;
  if (entry.method === 8) return inflateRawSync(raw);
  throw new SbevalError('similarity', `${entry.name}: unsupported zip compression method ${entry.method}`);
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
  if (!(fn instanceof Global)) throw new SbevalError('similarity', 'REDUCE on something that is not a known function');
  const a = args as PickleValue[];
  switch (fn.id) {
    case 'collections.OrderedDict':
      return new Map();
    case 'torch._utils._rebuild_tensor_v2': {
      const [storage, offset, shape, stride] = a as [StorageRef, number, number[], number[]];
      if (storage?.kind !== 'storage') throw new SbevalError('similarity', 'tensor without a storage');
      return { kind: 'tensor', storage, offset, shape: [...shape], stride: [...stride] } satisfies TorchTensorRef;
    }
    case 'torch._utils._rebuild_parameter':
      return a[0];
    default:
      throw new SbevalError('similarity', `${fn.id} is not allowed in a state dict`);
  }
}

/** The unpickler's state: the value stack, the memo, and the read position in the pickle's bytes. */
class PickleState {
  readonly stack: PickleValue[] = [];
  readonly memo = new Map<number, PickleValue>();
  readonly view: DataView;
  readonly decoder = new TextDecoder();
  p = 0;

  constructor(readonly pkl: Uint8Array) {
    this.view = new DataView(pkl.buffer, pkl.byteOffset, pkl.byteLength);
  }

  /** The items pushed since the last MARK, in push order (the MARK is consumed). */
  popMark(): PickleValue[] {
    const items: PickleValue[] = [];
    for (;;) {
      if (this.stack.length === 0) throw new SbevalError('similarity', 'pickle MARK missing');
      const v = this.stack.pop();
      if (v === MARK) break;
      items.push(v);
    }
    return items.reverse();
  }

  readLine(): string {
    const nl = this.pkl.indexOf(0x0a, this.p);
    if (nl < 0) throw new SbevalError('similarity', 'truncated pickle');
    const s = this.decoder.decode(this.pkl.subarray(this.p, nl));
    this.p = nl + 1;
    return s;
  }

  top(): PickleValue {
    return this.stack[this.stack.length - 1];
  }

  /** Pushes `value` and moves the read position past the `size` bytes it was read from. */
  pushRead(value: PickleValue, size: number): void {
    this.stack.push(value);
    this.p += size;
  }
}

function setItems(target: PickleValue, items: PickleValue[]): void {
  if (!(target instanceof Map)) throw new SbevalError('similarity', 'SETITEMS on a non-dict');
  for (let i = 0; i < items.length; i += 2) target.set(items[i], items[i + 1]);
}

function allowedGlobal(module: string, name: string): Global {
  const g = new Global(module, name);
  if (!ALLOWED_GLOBALS.has(g.id)) throw new SbevalError('similarity', `refusing pickle global ${g.id}`);
  return g;
}

/** LONG1: a little-endian two's-complement integer of n bytes. */
function readLong1(s: PickleState): void {
  const n = s.pkl[s.p]!;
  let v = 0n;
  for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(s.pkl[s.p + 1 + i]!);
  if (n > 0 && s.pkl[s.p + n]! & 0x80) v -= 1n << BigInt(8 * n);
  s.pushRead(Number(v), 1 + n);
}

/** BINPERSID: ('storage', storage_type, key, location, numel). */
function persistentStorage(s: PickleState): void {
  const pid = s.stack.pop() as PickleValue[];
  if (!Array.isArray(pid) || pid[0] !== 'storage' || !(pid[1] instanceof Global)) throw new SbevalError('similarity', 'unknown persistent id');
  const dtype = STORAGE_TYPES[(pid[1] as Global).name];
  if (!dtype) throw new SbevalError('similarity', `unsupported storage ${(pid[1] as Global).id}`);
  s.stack.push({ kind: 'storage', dtype, key: String(pid[2]), numel: Number(pid[4]) } satisfies StorageRef);
}

/** TUPLE1/2/3: pops the top `n` values and pushes them as one tuple (an array), in push order. */
function tupleOf(s: PickleState, n: number): void {
  const items: PickleValue[] = [];
  for (let i = 0; i < n; i++) items.unshift(s.stack.pop());
  s.stack.push(items);
}

/** BINUNICODE (4-byte length) and SHORT_BINUNICODE (1-byte length): a UTF-8 string. */
function readUnicode(s: PickleState, lengthBytes: 1 | 4): void {
  const n = lengthBytes === 4 ? s.view.getUint32(s.p, true) : s.pkl[s.p]!;
  s.pushRead(s.decoder.decode(s.pkl.subarray(s.p + lengthBytes, s.p + lengthBytes + n)), lengthBytes + n);
}

/** STACK_GLOBAL: module and name were pushed as strings. */
function stackGlobal(s: PickleState): void {
  const name = s.stack.pop() as string;
  const module = s.stack.pop() as string;
  s.stack.push(allowedGlobal(module, name));
}

/** BINPUT / LONG_BINPUT: stores the top of the stack under the index read from the next `size` bytes. */
function memoPut(s: PickleState, size: 1 | 4): void {
  s.memo.set(size === 4 ? s.view.getUint32(s.p, true) : s.pkl[s.p]!, s.top());
  s.p += size;
}

/** APPEND (one value) and APPENDS (the values since MARK) onto the list below them. */
function append(s: PickleState, many: boolean): void {
  const items = many ? s.popMark() : [s.stack.pop()];
  (s.top() as PickleValue[]).push(...items);
}

/** SETITEM (one key and value) and SETITEMS (the pairs since MARK) into the dict below them. */
function setItem(s: PickleState, many: boolean): void {
  let items: PickleValue[];
  if (many) items = s.popMark();
  else {
    const v = s.stack.pop();
    const k = s.stack.pop();
    items = [k, v];
  }
  setItems(s.top(), items);
}

/** Pops args then a callable and pushes what the allowed callable builds. */
function reduceTop(s: PickleState): void {
  const args = s.stack.pop();
  const fn = s.stack.pop();
  s.stack.push(reduce(fn, args));
}

type OpHandler = (s: PickleState) => void;

/** The opcodes `pickle` emits for a state dict (names from CPython's Lib/pickle.py), except STOP. */
const OPCODES = new Map<number, OpHandler>([
  [0x80, (s) => void (s.p += 1)], // PROTO
  [0x95, (s) => void (s.p += 8)], // FRAME
  [0x28, (s) => void s.stack.push(MARK)], // MARK
  [0x7d, (s) => void s.stack.push(new Map())], // EMPTY_DICT (a Map: pickle keys must not reach object prototypes)
  [0x5d, (s) => void s.stack.push([])], // EMPTY_LIST
  [0x29, (s) => void s.stack.push([])], // EMPTY_TUPLE
  [0x4e, (s) => void s.stack.push(null)], // NONE
  [0x88, (s) => void s.stack.push(true)], // NEWTRUE
  [0x89, (s) => void s.stack.push(false)], // NEWFALSE
  [0x4b, (s) => s.pushRead(s.pkl[s.p]!, 1)], // BININT1
  [0x4d, (s) => s.pushRead(s.view.getUint16(s.p, true), 2)], // BININT2
  [0x4a, (s) => s.pushRead(s.view.getInt32(s.p, true), 4)], // BININT
  [0x8a, readLong1], // LONG1
  [0x47, (s) => s.pushRead(s.view.getFloat64(s.p, false), 8)], // BINFLOAT (big-endian)
  [0x58, (s) => readUnicode(s, 4)], // BINUNICODE
  [0x8c, (s) => readUnicode(s, 1)], // SHORT_BINUNICODE
  [0x63, (s) => void s.stack.push(allowedGlobal(s.readLine(), s.readLine()))], // GLOBAL "module\nname\n"
  [0x93, stackGlobal], // STACK_GLOBAL
  [0x71, (s) => memoPut(s, 1)], // BINPUT
  [0x72, (s) => memoPut(s, 4)], // LONG_BINPUT
  [0x94, (s) => void s.memo.set(s.memo.size, s.top())], // MEMOIZE
  [0x68, (s) => s.pushRead(s.memo.get(s.pkl[s.p]!), 1)], // BINGET
  [0x6a, (s) => s.pushRead(s.memo.get(s.view.getUint32(s.p, true)), 4)], // LONG_BINGET
  [0x74, (s) => void s.stack.push(s.popMark())], // TUPLE
  [0x85, (s) => tupleOf(s, 1)], // TUPLE1
  [0x86, (s) => tupleOf(s, 2)], // TUPLE2
  [0x87, (s) => tupleOf(s, 3)], // TUPLE3
  [0x61, (s) => append(s, false)], // APPEND
  [0x65, (s) => append(s, true)], // APPENDS
  [0x73, (s) => setItem(s, false)], // SETITEM
  [0x75, (s) => setItem(s, true)], // SETITEMS
  [0x52, reduceTop], // REDUCE
  [0x81, reduceTop], // NEWOBJ (cls.__new__(cls, *args)): only OrderedDict
  [0x62, (s) => void s.stack.pop()], // BUILD: object state (the state dict's `_metadata`), not needed
  [0x51, persistentStorage], // BINPERSID
]);

const STOP = 0x2e;

/** The state dict STOP leaves on the stack: its tensor entries by name. */
function stateDictOf(top: PickleValue): Map<string, TorchTensorRef> {
  if (!(top instanceof Map)) throw new SbevalError('similarity', 'the pickle does not hold a state dict (a mapping of names to tensors)');
  const out = new Map<string, TorchTensorRef>();
  for (const [k, v] of top) if ((v as TorchTensorRef)?.kind === 'tensor') out.set(String(k), v as TorchTensorRef);
  return out;
}

/** Unpickles `data.pkl` of a state dict: returns name → tensor reference (storages are resolved by the caller). */
export function unpickleStateDict(pkl: Uint8Array): Map<string, TorchTensorRef> {
  const state = new PickleState(pkl);
  while (state.p < pkl.length) {
    const op = pkl[state.p++]!;
    if (op === STOP) return stateDictOf(state.stack.pop());
    const handler = OPCODES.get(op);
    if (!handler) throw new SbevalError('similarity', `unsupported pickle opcode 0x${op.toString(16)} at byte ${state.p - 1}`);
    handler(state);
  }
  throw new SbevalError('similarity', 'pickle ended without STOP');
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
      throw new SbevalError('similarity', `${dtype} tensors are not floating point`);
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
  if (!pklEntry) throw new SbevalError('similarity', 'no data.pkl in the archive: not a torch.save checkpoint');
  const prefix = pklEntry.name.slice(0, pklEntry.name.length - 'data.pkl'.length);
  const byteorder = entries.get(`${prefix}byteorder`);
  if (byteorder && new TextDecoder().decode(zipEntryData(file, byteorder)).trim() !== 'little') {
    throw new SbevalError('similarity', 'big-endian checkpoints are not supported');
  }
  const tensors = unpickleStateDict(zipEntryData(file, pklEntry));
  const storages = new Map<string, DataView>();
  const storage = (ref: StorageRef): DataView => {
    let v = storages.get(ref.key);
    if (!v) {
      const entry = entries.get(`${prefix}data/${ref.key}`);
      if (!entry) throw new SbevalError('similarity', `storage ${ref.key} is missing from the archive`);
      const bytes = zipEntryData(file, entry);
      if (bytes.length < ref.numel * DTYPE_BYTES[ref.dtype])
        throw new SbevalError('similarity', `storage ${ref.key} is shorter than its ${ref.numel} elements`);
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
        if (t.offset + n > t.storage.numel) throw new SbevalError('similarity', `${name} reads past its storage`);
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
        if (off >= t.storage.numel) throw new SbevalError('similarity', `${name} reads past its storage`);
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
