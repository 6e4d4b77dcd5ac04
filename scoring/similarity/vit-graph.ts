/**
 * `ViTForImageClassification` (transformers modeling_vit) as an ONNX graph, for any ViTConfig:
 *
 *   pixel_values [N, C, S, S]
 *   → Conv(k = stride = patch) → flatten → [N, P, H]; prepend CLS; + position embeddings      (ViTEmbeddings)
 *   → L × pre-LN layer: h += Wo·MHA(LN_before(h)); h += W2·act(W1·LN_after(h))                 (ViTLayer)
 *   → cls_hidden = h[:, 0, :]      (hidden_states[-1][:, 0, :]: last layer, BEFORE the final LayerNorm —
 *                                   what the official 2025 script stores as `cls_embedding`)
 *   → logits = classifier(LayerNorm(h)[:, 0, :])                                               (ViTForImageClassification)
 *
 * Eval mode: dropout is identity, no head mask, no position-encoding interpolation (the input must be
 * `image_size` square, as ViTPatchEmbeddings requires). Linear weights ([out, in] in PyTorch) are stored
 * transposed for MatMul; query/key/value are packed into one [H, 3H] MatMul (same per-element arithmetic).
 * Opset 17 (LayerNormalization); GELU is spelled with Erf/Tanh so any runtime with opset 17 runs it.
 */

import { SbevalError } from '../../core/errors.js';
import { float32Tensor, int64Tensor, ONNX_FLOAT, type OnnxModel, type OnnxNode, type OnnxTensor } from './onnx-writer.js';
import { sequenceLength, type VitConfig, vitParameterShapes } from './vit-config.js';

export const VIT_INPUT = 'pixel_values';
export const VIT_LOGITS = 'logits';
export const VIT_CLS_HIDDEN = 'cls_hidden';
const VIT_OPSET = 17;

/** Looks a parameter up by its transformers name; returns undefined when the checkpoint lacks it. */
export type WeightSource = (name: string) => { shape: number[]; data: Float32Array } | undefined;

function transpose2d(data: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = data[r * cols + c]!;
  return out;
}

class GraphBuilder {
  readonly nodes: OnnxNode[] = [];
  readonly initializers: OnnxTensor[] = [];
  private counter = 0;

  fresh(hint: string): string {
    this.counter += 1;
    return `${hint}_${this.counter}`;
  }

  init(t: OnnxTensor): string {
    this.initializers.push(t);
    return t.name;
  }

  const(name: string, value: number): string {
    return this.init(float32Tensor(name, [], Float32Array.of(value)));
  }

  op(opType: string, inputs: string[], attributes?: OnnxNode['attributes'], hint = opType.toLowerCase()): string {
    const out = this.fresh(hint);
    this.nodes.push({ opType, inputs, outputs: [out], name: out, ...(attributes ? { attributes } : {}) });
    return out;
  }
}

/** A parameter's values by its transformers name, checked against the shape the config implies. */
type CheckedWeights = (name: string) => Float32Array;

/** Checks every parameter the config implies before anything is built; throws on the first missing or mis-shaped one. */
function checkedWeights(config: VitConfig, weights: WeightSource): CheckedWeights {
  const shapes = vitParameterShapes(config);
  const get = (name: string): Float32Array => {
    const expected = shapes.get(name);
    const w = weights(name);
    if (!w) throw new SbevalError('similarity', `checkpoint has no ${name}`);
    if (!expected || w.shape.length !== expected.length || w.shape.some((d, i) => d !== expected[i])) {
      throw new SbevalError('similarity', `${name} has shape [${w.shape}], config implies [${expected}]`);
    }
    return w.data;
  };
  for (const name of shapes.keys()) get(name); // fail before building anything
  return get;
}

/** The graph under construction with what every part of it uses: the config, the weights, the shared constants. */
interface VitBuild {
  g: GraphBuilder;
  config: VitConfig;
  get: CheckedWeights;
  c: ReturnType<typeof sharedConstants>;
}

/** Shared constants, made once before any layer (in this order: it is the initializers' order in the file). */
function sharedConstants(g: GraphBuilder, config: VitConfig) {
  const H = config.hiddenSize;
  const heads = config.numHeads;
  const d = H / heads;
  return {
    one: g.const('one', 1),
    half: g.const('half', 0.5),
    invSqrt2: g.const('inv_sqrt2', Math.SQRT1_2),
    qScale: g.const('attention_scale', d ** -0.5),
    cls0: g.init(int64Tensor('index_zero', [], [0])),
    toHeads: g.init(int64Tensor('shape_heads', [4], [0, 0, heads, d])),
    toHidden: g.init(int64Tensor('shape_hidden', [3], [0, 0, H])),
    flatPatches: g.init(int64Tensor('shape_patches', [3], [0, H, -1])),
    qkvSplit: g.init(int64Tensor('qkv_split', [3], [H, H, H])),
    clsTail: g.init(int64Tensor('cls_shape_tail', [2], [1, H])),
  };
}

/** nn.Linear: x·Wᵀ + b, the weight stored transposed. */
function linear({ g, get }: VitBuild, x: string, prefix: string, outDim: number, inDim: number): string {
  const w = g.init(float32Tensor(`${prefix}.weight_t`, [inDim, outDim], transpose2d(get(`${prefix}.weight`), outDim, inDim)));
  const b = g.init(float32Tensor(`${prefix}.bias`, [outDim], get(`${prefix}.bias`)));
  return g.op('Add', [g.op('MatMul', [x, w]), b]);
}

function layerNorm({ g, get, config }: VitBuild, x: string, prefix: string): string {
  const H = config.hiddenSize;
  const s = g.init(float32Tensor(`${prefix}.weight`, [H], get(`${prefix}.weight`)));
  const b = g.init(float32Tensor(`${prefix}.bias`, [H], get(`${prefix}.bias`)));
  return g.op('LayerNormalization', [x, s, b], { axis: { kind: 'int', value: -1 }, epsilon: { kind: 'float', value: config.layerNormEps } });
}

/** x * 0.5 * (1 + erf(x / sqrt 2))  (nn.functional.gelu, approximate='none') */
function erfGelu({ g, c }: VitBuild, x: string): string {
  return g.op('Mul', [g.op('Mul', [x, c.half]), g.op('Add', [c.one, g.op('Erf', [g.op('Mul', [x, c.invSqrt2])])])]);
}

/** 0.5 x (1 + tanh(inner(x))) */
function cubicTanhGelu({ g, c }: VitBuild, x: string, inner: (x: string) => string): string {
  return g.op('Mul', [g.op('Mul', [x, c.half]), g.op('Add', [c.one, g.op('Tanh', [inner(x)])])]);
}

/** The tanh approximations of GELU: 0.5 x (1 + tanh(sqrt(2/π) (x + 0.044715 x³))), or FastGELUActivation's own constant. */
function tanhGelu(b: VitBuild, x: string, fast: boolean): string {
  const { g } = b;
  if (fast) {
    // 0.5 x (1 + tanh(x · 0.7978845608 · (1 + 0.044715 x²)))  (FastGELUActivation's own constant)
    const c = g.const(g.fresh('fast_gelu_c'), 0.7978845608);
    const k = g.const(g.fresh('gelu_cubic'), 0.044715);
    return cubicTanhGelu(b, x, (v) => g.op('Mul', [g.op('Mul', [v, c]), g.op('Add', [b.c.one, g.op('Mul', [k, g.op('Mul', [v, v])])])]));
  }
  const c = g.const(g.fresh('sqrt_2_over_pi'), Math.sqrt(2 / Math.PI));
  const k = g.const(g.fresh('gelu_cubic'), 0.044715);
  return cubicTanhGelu(b, x, (v) => g.op('Mul', [c, g.op('Add', [v, g.op('Mul', [k, g.op('Mul', [v, g.op('Mul', [v, v])])])])]));
}

/** The config's `hidden_act` (transformers ACT2FN). */
function activation(b: VitBuild, x: string): string {
  const { g } = b;
  switch (b.config.hiddenAct) {
    case 'gelu':
    case 'gelu_python':
      return erfGelu(b, x);
    case 'gelu_10':
      return g.op('Clip', [erfGelu(b, x), g.const(g.fresh('minus_ten'), -10), g.const(g.fresh('ten'), 10)]);
    case 'gelu_new':
    case 'gelu_pytorch_tanh':
    case 'gelu_python_tanh':
    case 'gelu_accurate':
      return tanhGelu(b, x, false);
    case 'gelu_fast':
      return tanhGelu(b, x, true);
    case 'quick_gelu':
      return g.op('Mul', [x, g.op('Sigmoid', [g.op('Mul', [x, g.const(g.fresh('quick_gelu_k'), 1.702)])])]);
    case 'relu':
      return g.op('Relu', [x]);
    case 'relu6':
      return g.op('Clip', [x, g.const(g.fresh('zero'), 0), g.const(g.fresh('six'), 6)]);
    case 'silu':
    case 'swish':
      return g.op('Mul', [x, g.op('Sigmoid', [x])]);
    case 'sigmoid':
      return g.op('Sigmoid', [x]);
    case 'tanh':
      return g.op('Tanh', [x]);
    case 'linear':
      return x;
  }
}

/** ViTEmbeddings: patches by a strided Conv, the CLS token prepended, position embeddings added. */
function embeddings(b: VitBuild): string {
  const { g, get, config, c } = b;
  const H = config.hiddenSize;
  const P = config.patchSize;
  const convW = g.init(float32Tensor('patch.weight', [H, config.numChannels, P, P], get('vit.embeddings.patch_embeddings.projection.weight')));
  const convB = g.init(float32Tensor('patch.bias', [H], get('vit.embeddings.patch_embeddings.projection.bias')));
  const conv = g.op('Conv', [VIT_INPUT, convW, convB], { kernel_shape: { kind: 'ints', value: [P, P] }, strides: { kind: 'ints', value: [P, P] } });
  const patches = g.op('Transpose', [g.op('Reshape', [conv, c.flatPatches])], { perm: { kind: 'ints', value: [0, 2, 1] } });
  const batch = g.op('Shape', [VIT_INPUT], { start: { kind: 'int', value: 0 }, end: { kind: 'int', value: 1 } }, 'batch');
  const clsToken = g.init(float32Tensor('cls_token', [1, 1, H], get('vit.embeddings.cls_token')));
  const clsExpanded = g.op('Expand', [clsToken, g.op('Concat', [batch, c.clsTail], { axis: { kind: 'int', value: 0 } })]);
  const tokens = g.op('Concat', [clsExpanded, patches], { axis: { kind: 'int', value: 1 } });
  const pos = g.init(float32Tensor('position_embeddings', [1, sequenceLength(config), H], get('vit.embeddings.position_embeddings')));
  return g.op('Add', [tokens, pos], undefined, 'embeddings');
}

/** Query, key and value of layer `p` in one MatMul (+ bias): [N, S, 3H]. */
function packedQkv({ g, get, config }: VitBuild, x: string, p: string): string {
  const H = config.hiddenSize;
  const wq = transpose2d(get(`${p}attention.attention.query.weight`), H, H);
  const wk = transpose2d(get(`${p}attention.attention.key.weight`), H, H);
  const wv = transpose2d(get(`${p}attention.attention.value.weight`), H, H);
  const wqkv = new Float32Array(H * 3 * H);
  for (let r = 0; r < H; r++) {
    wqkv.set(wq.subarray(r * H, r * H + H), r * 3 * H);
    wqkv.set(wk.subarray(r * H, r * H + H), r * 3 * H + H);
    wqkv.set(wv.subarray(r * H, r * H + H), r * 3 * H + 2 * H);
  }
  let qkv = g.op('MatMul', [x, g.init(float32Tensor(`${p}qkv.weight_t`, [H, 3 * H], wqkv))]);
  if (config.qkvBias) {
    const bqkv = new Float32Array(3 * H);
    bqkv.set(get(`${p}attention.attention.query.bias`), 0);
    bqkv.set(get(`${p}attention.attention.key.bias`), H);
    bqkv.set(get(`${p}attention.attention.value.bias`), 2 * H);
    qkv = g.op('Add', [qkv, g.init(float32Tensor(`${p}qkv.bias`, [3 * H], bqkv))]);
  }
  return qkv;
}

/** ViTSelfAttention of layer `i` over the normalised `x`: softmax(q·kᵀ/√d)·v, heads merged back: [N, S, H]. */
function selfAttention(b: VitBuild, x: string, p: string, i: number): string {
  const { g, c } = b;
  const qkv = packedQkv(b, x, p);
  const [q, k, v] = ['q', 'k', 'v'].map((n) => g.fresh(`${n}_${i}`)) as [string, string, string];
  g.nodes.push({ opType: 'Split', inputs: [qkv, c.qkvSplit], outputs: [q, k, v], name: g.fresh('split'), attributes: { axis: { kind: 'int', value: 2 } } });
  const heads4 = (t: string, perm: number[]) => g.op('Transpose', [g.op('Reshape', [t, c.toHeads])], { perm: { kind: 'ints', value: perm } });
  const qh = heads4(g.op('Mul', [q, c.qScale]), [0, 2, 1, 3]); // [N, heads, S, d]
  const kt = heads4(k, [0, 2, 3, 1]); // [N, heads, d, S]
  const vh = heads4(v, [0, 2, 1, 3]);
  const probs = g.op('Softmax', [g.op('MatMul', [qh, kt])], { axis: { kind: 'int', value: -1 } });
  return g.op('Reshape', [g.op('Transpose', [g.op('MatMul', [probs, vh])], { perm: { kind: 'ints', value: [0, 2, 1, 3] } }), c.toHidden]);
}

/** ViTLayer `i` (pre-LN): h += Wo·MHA(LN_before(h)); h += W2·act(W1·LN_after(h)). */
function encoderLayer(b: VitBuild, h: string, i: number): string {
  const { g, config } = b;
  const H = config.hiddenSize;
  const I = config.intermediateSize;
  const p = `vit.encoder.layer.${i}.`;
  const context = selfAttention(b, layerNorm(b, h, `${p}layernorm_before`), p, i);
  const attended = g.op('Add', [linear(b, context, `${p}attention.output.dense`, H, H), h], undefined, `attn_residual_${i}`);
  const y = layerNorm(b, attended, `${p}layernorm_after`);
  const mlp = linear(b, activation(b, linear(b, y, `${p}intermediate.dense`, I, H)), `${p}output.dense`, H, I);
  return g.op('Add', [mlp, attended], undefined, `layer_output_${i}`);
}

/** The outputs: `cls_hidden` (before the final LayerNorm) and the classifier's logits. */
function heads(b: VitBuild, h: string): void {
  const { g, get, config, c } = b;
  const H = config.hiddenSize;
  g.nodes.push({ opType: 'Gather', inputs: [h, c.cls0], outputs: [VIT_CLS_HIDDEN], name: 'cls_hidden', attributes: { axis: { kind: 'int', value: 1 } } });
  const finalCls = g.op('Gather', [layerNorm(b, h, 'vit.layernorm'), c.cls0], { axis: { kind: 'int', value: 1 } });
  const cw = g.init(float32Tensor('classifier.weight_t', [H, config.numLabels], transpose2d(get('classifier.weight'), config.numLabels, H)));
  const cb = g.init(float32Tensor('classifier.bias', [config.numLabels], get('classifier.bias')));
  g.nodes.push({ opType: 'Add', inputs: [g.op('MatMul', [finalCls, cw]), cb], outputs: [VIT_LOGITS], name: 'logits' });
}

/**
 * Builds the graph. Throws `SbevalError` naming the first missing or mis-shaped parameter.
 * `docString`/`metadata` end up in the model (the converter records the source and label names there).
 */
export function buildVitGraph(config: VitConfig, weights: WeightSource, extra: { docString?: string; metadata?: Record<string, string> } = {}): OnnxModel {
  const get = checkedWeights(config, weights);
  const g = new GraphBuilder();
  const b: VitBuild = { g, config, get, c: sharedConstants(g, config) };
  let h = embeddings(b);
  for (let i = 0; i < config.numLayers; i++) h = encoderLayer(b, h, i);
  heads(b, h);
  return {
    irVersion: 8,
    opset: VIT_OPSET,
    producerName: 'sbeval',
    producerVersion: '1',
    ...(extra.docString ? { docString: extra.docString } : {}),
    metadata: { ...(extra.metadata ?? {}) },
    graph: {
      name: 'ViTForImageClassification',
      nodes: g.nodes,
      initializers: g.initializers,
      inputs: [{ name: VIT_INPUT, elemType: ONNX_FLOAT, shape: ['batch', config.numChannels, config.imageSize, config.imageSize] }],
      outputs: [
        { name: VIT_LOGITS, elemType: ONNX_FLOAT, shape: ['batch', config.numLabels] },
        { name: VIT_CLS_HIDDEN, elemType: ONNX_FLOAT, shape: ['batch', config.hiddenSize] },
      ],
    },
  };
}
