/**
 * A small ONNX ModelProto encoder (protobuf wire format, no dependency), enough for inference graphs:
 * nodes with attributes, float32/int64 initializers, typed inputs/outputs with symbolic dimensions.
 * Field numbers are those of onnx/onnx.proto (ModelProto, GraphProto, NodeProto, AttributeProto,
 * TensorProto, ValueInfoProto, TypeProto, TensorShapeProto, OperatorSetIdProto, StringStringEntryProto).
 *
 * Encoding yields a list of byte pieces (large initializers are referenced, not copied), so a 350 MB
 * model is written without building one 350 MB buffer; `onnxByteLength` sums them.
 */

/** A protobuf message under construction: pieces plus their total length. */
class Message {
  readonly pieces: Uint8Array[] = [];
  length = 0;
  private scratch: number[] = [];

  private flush(): void {
    if (this.scratch.length) {
      const b = Uint8Array.from(this.scratch);
      this.pieces.push(b);
      this.length += b.length;
      this.scratch = [];
    }
  }

  private varint(value: bigint | number): void {
    let v = BigInt.asUintN(64, BigInt(value));
    while (v >= 0x80n) {
      this.scratch.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.scratch.push(Number(v));
  }

  private key(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  int(field: number, value: number | bigint): this {
    this.key(field, 0);
    this.varint(value);
    return this;
  }

  float(field: number, value: number): this {
    this.key(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.scratch.push(...b);
    return this;
  }

  bytes(field: number, data: Uint8Array): this {
    this.key(field, 2);
    this.varint(data.length);
    this.flush();
    this.pieces.push(data);
    this.length += data.length;
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  message(field: number, m: Message): this {
    this.key(field, 2);
    this.varint(m.length);
    this.flush();
    this.pieces.push(...m.pieces);
    this.length += m.length;
    return this;
  }

  packedInts(field: number, values: ReadonlyArray<number | bigint>): this {
    const inner = new Message();
    for (const v of values) inner.varint(v);
    inner.flush();
    return this.message(field, inner);
  }

  packedFloats(field: number, values: ReadonlyArray<number>): this {
    const b = new Uint8Array(values.length * 4);
    const view = new DataView(b.buffer);
    values.forEach((v, i) => view.setFloat32(i * 4, v, true));
    return this.bytes(field, b);
  }

  done(): this {
    this.flush();
    return this;
  }
}

/** TensorProto.DataType values used here. */
export const ONNX_FLOAT = 1;
const ONNX_INT64 = 7;

export interface OnnxTensor {
  name: string;
  dims: number[];
  dataType: typeof ONNX_FLOAT | typeof ONNX_INT64;
  /** Little-endian raw data. */
  raw: Uint8Array;
}

type OnnxAttribute =
  | { kind: 'int'; value: number }
  | { kind: 'float'; value: number }
  | { kind: 'ints'; value: number[] }
  | { kind: 'floats'; value: number[] }
  | { kind: 'string'; value: string }
  | { kind: 'tensor'; value: OnnxTensor };

export interface OnnxNode {
  opType: string;
  inputs: string[];
  outputs: string[];
  name?: string;
  domain?: string;
  attributes?: Record<string, OnnxAttribute>;
}

interface OnnxValueInfo {
  name: string;
  elemType: typeof ONNX_FLOAT | typeof ONNX_INT64;
  /** A number is a fixed dimension, a string a symbolic one (e.g. "batch"). */
  shape: Array<number | string>;
}

interface OnnxGraph {
  name: string;
  nodes: OnnxNode[];
  initializers: OnnxTensor[];
  inputs: OnnxValueInfo[];
  outputs: OnnxValueInfo[];
}

export interface OnnxModel {
  graph: OnnxGraph;
  /** Default-domain opset version. */
  opset: number;
  irVersion: number;
  producerName: string;
  producerVersion: string;
  docString?: string;
  metadata?: Record<string, string>;
}

export function float32Tensor(name: string, dims: number[], data: Float32Array): OnnxTensor {
  const count = dims.reduce((a, b) => a * b, 1);
  if (count !== data.length) throw new RangeError(`${name}: ${data.length} values for dims [${dims}]`);
  let raw: Uint8Array;
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] === 1) {
    raw = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  } else {
    raw = new Uint8Array(data.length * 4);
    const v = new DataView(raw.buffer);
    data.forEach((x, i) => v.setFloat32(i * 4, x, true));
  }
  return { name, dims, dataType: ONNX_FLOAT, raw };
}

export function int64Tensor(name: string, dims: number[], values: number[]): OnnxTensor {
  const raw = new Uint8Array(values.length * 8);
  const v = new DataView(raw.buffer);
  values.forEach((x, i) => v.setBigInt64(i * 8, BigInt(x), true));
  return { name, dims, dataType: ONNX_INT64, raw };
}

function tensorProto(t: OnnxTensor): Message {
  const m = new Message();
  if (t.dims.length) m.packedInts(1, t.dims);
  m.int(2, t.dataType);
  m.string(8, t.name);
  m.bytes(9, t.raw);
  return m.done();
}

// AttributeProto.AttributeType
const ATTR = { FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, FLOATS: 6, INTS: 7 } as const;

function attributeProto(name: string, a: OnnxAttribute): Message {
  const m = new Message().string(1, name);
  switch (a.kind) {
    case 'float':
      m.float(2, a.value).int(20, ATTR.FLOAT);
      break;
    case 'int':
      m.int(3, a.value).int(20, ATTR.INT);
      break;
    case 'string':
      m.string(4, a.value).int(20, ATTR.STRING);
      break;
    case 'tensor':
      m.message(5, tensorProto(a.value)).int(20, ATTR.TENSOR);
      break;
    case 'floats':
      m.packedFloats(7, a.value).int(20, ATTR.FLOATS);
      break;
    case 'ints':
      m.packedInts(8, a.value).int(20, ATTR.INTS);
      break;
  }
  return m.done();
}

function nodeProto(n: OnnxNode): Message {
  const m = new Message();
  for (const i of n.inputs) m.string(1, i);
  for (const o of n.outputs) m.string(2, o);
  if (n.name) m.string(3, n.name);
  m.string(4, n.opType);
  for (const [k, a] of Object.entries(n.attributes ?? {})) m.message(5, attributeProto(k, a));
  if (n.domain) m.string(7, n.domain);
  return m.done();
}

function valueInfoProto(v: OnnxValueInfo): Message {
  const shape = new Message();
  for (const d of v.shape) {
    const dim = typeof d === 'number' ? new Message().int(1, d) : new Message().string(2, d);
    shape.message(1, dim.done());
  }
  const tensorType = new Message().int(1, v.elemType).message(2, shape.done()).done();
  const type = new Message().message(1, tensorType).done();
  return new Message().string(1, v.name).message(2, type).done();
}

function graphProto(g: OnnxGraph): Message {
  const m = new Message();
  for (const n of g.nodes) m.message(1, nodeProto(n));
  m.string(2, g.name);
  for (const t of g.initializers) m.message(5, tensorProto(t));
  for (const i of g.inputs) m.message(11, valueInfoProto(i));
  for (const o of g.outputs) m.message(12, valueInfoProto(o));
  return m.done();
}

/** Encodes a model; the returned pieces concatenated are the `.onnx` file. */
export function encodeOnnxModel(model: OnnxModel): Uint8Array[] {
  const m = new Message();
  m.int(1, model.irVersion);
  m.string(2, model.producerName);
  m.string(3, model.producerVersion);
  if (model.docString) m.string(6, model.docString);
  m.message(7, graphProto(model.graph));
  m.message(8, new Message().string(1, '').int(2, model.opset).done());
  for (const [key, value] of Object.entries(model.metadata ?? {})) m.message(14, new Message().string(1, key).string(2, value).done());
  return m.done().pieces;
}

export function onnxByteLength(pieces: readonly Uint8Array[]): number {
  return pieces.reduce((n, p) => n + p.length, 0);
}

/** One buffer (for small models and tests; large models should stream the pieces). */
export function concatPieces(pieces: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(onnxByteLength(pieces));
  let o = 0;
  for (const p of pieces) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
