import { SbevalError } from '../../core/errors.js';
/**
 * The parts of a Hugging Face `ViTConfig` (`config.json`) that define the inference graph, with ViTConfig's
 * defaults (transformers `models/vit/configuration_vit.py`: hidden 768, 12 layers, 12 heads, intermediate
 * 3072, gelu, layer_norm_eps 1e-12, image 224, patch 16, 3 channels, qkv_bias true).
 */

export interface VitConfig {
  hiddenSize: number;
  numLayers: number;
  numHeads: number;
  intermediateSize: number;
  hiddenAct: VitActivation;
  layerNormEps: number;
  imageSize: number;
  patchSize: number;
  numChannels: number;
  qkvBias: boolean;
  numLabels: number;
  /** Label of each class index (`id2label`; "LABEL_i" when the config has none, as transformers names them). */
  labels: string[];
}

/** `hidden_act` values of transformers' ACT2FN that the graph implements. */
export const VIT_ACTIVATIONS = [
  'gelu',
  'gelu_python',
  'gelu_new',
  'gelu_pytorch_tanh',
  'gelu_python_tanh',
  'gelu_accurate',
  'gelu_fast',
  'gelu_10',
  'quick_gelu',
  'relu',
  'relu6',
  'silu',
  'swish',
  'sigmoid',
  'tanh',
  'linear',
] as const;
export type VitActivation = (typeof VIT_ACTIVATIONS)[number];

function int(c: Record<string, unknown>, key: string, fallback: number): number {
  const v = c[key] ?? fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0)
    throw new SbevalError('similarity', `${key} must be a positive integer, got ${JSON.stringify(v)}`);
  return v;
}

export function parseVitConfig(json: unknown): VitConfig {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new SbevalError('similarity', 'config.json must hold a JSON object');
  const c = json as Record<string, unknown>;
  if (c.model_type !== undefined && c.model_type !== 'vit') {
    throw new SbevalError('similarity', `model_type is ${JSON.stringify(c.model_type)}; only ViT ("vit") checkpoints are supported`);
  }
  const archs = c.architectures;
  if (Array.isArray(archs) && archs.length && !archs.includes('ViTForImageClassification')) {
    throw new SbevalError('similarity', `architectures ${JSON.stringify(archs)} does not include ViTForImageClassification`);
  }
  const hiddenSize = int(c, 'hidden_size', 768);
  const numHeads = int(c, 'num_attention_heads', 12);
  if (hiddenSize % numHeads !== 0) throw new SbevalError('similarity', `hidden_size ${hiddenSize} is not a multiple of num_attention_heads ${numHeads}`);
  const imageSize = int(c, 'image_size', 224);
  const patchSize = int(c, 'patch_size', 16);
  if (imageSize % patchSize !== 0) throw new SbevalError('similarity', `image_size ${imageSize} is not a multiple of patch_size ${patchSize}`);
  const act = (c.hidden_act ?? 'gelu') as string;
  if (!(VIT_ACTIVATIONS as readonly string[]).includes(act)) {
    throw new SbevalError('similarity', `hidden_act ${JSON.stringify(act)} is not supported (supported: ${VIT_ACTIVATIONS.join(', ')})`);
  }
  const eps = c.layer_norm_eps ?? 1e-12;
  if (typeof eps !== 'number' || !(eps >= 0)) throw new SbevalError('similarity', `layer_norm_eps must be a number, got ${JSON.stringify(eps)}`);
  const qkvBias = c.qkv_bias ?? true;
  if (typeof qkvBias !== 'boolean') throw new SbevalError('similarity', 'qkv_bias must be true or false');

  // Label count: num_labels if given, else the size of id2label (how PretrainedConfig derives it), else 2.
  const id2label = (c.id2label ?? undefined) as Record<string, unknown> | undefined;
  let numLabels: number;
  if (c.num_labels !== undefined) numLabels = int(c, 'num_labels', 2);
  else if (id2label && typeof id2label === 'object') numLabels = Object.keys(id2label).length;
  else numLabels = 2;
  if (numLabels < 1) throw new SbevalError('similarity', 'the classifier needs at least one label');
  const labels = Array.from({ length: numLabels }, (_, i) => {
    const l = id2label?.[String(i)];
    return typeof l === 'string' ? l : `LABEL_${i}`;
  });
  return {
    hiddenSize,
    numLayers: int(c, 'num_hidden_layers', 12),
    numHeads,
    intermediateSize: int(c, 'intermediate_size', 3072),
    hiddenAct: act as VitActivation,
    layerNormEps: eps,
    imageSize,
    patchSize,
    numChannels: int(c, 'num_channels', 3),
    qkvBias,
    numLabels,
    labels,
  };
}

/** Sequence length: one token per patch plus CLS. */
export function sequenceLength(c: VitConfig): number {
  return (c.imageSize / c.patchSize) ** 2 + 1;
}

/** Parameter names and shapes of `ViTForImageClassification` (state dict of transformers' modeling_vit). */
export function vitParameterShapes(c: VitConfig): Map<string, number[]> {
  const H = c.hiddenSize;
  const shapes = new Map<string, number[]>();
  shapes.set('vit.embeddings.cls_token', [1, 1, H]);
  shapes.set('vit.embeddings.position_embeddings', [1, sequenceLength(c), H]);
  shapes.set('vit.embeddings.patch_embeddings.projection.weight', [H, c.numChannels, c.patchSize, c.patchSize]);
  shapes.set('vit.embeddings.patch_embeddings.projection.bias', [H]);
  for (let i = 0; i < c.numLayers; i++) {
    const p = `vit.encoder.layer.${i}.`;
    for (const n of ['query', 'key', 'value']) {
      shapes.set(`${p}attention.attention.${n}.weight`, [H, H]);
      if (c.qkvBias) shapes.set(`${p}attention.attention.${n}.bias`, [H]);
    }
    shapes.set(`${p}attention.output.dense.weight`, [H, H]);
    shapes.set(`${p}attention.output.dense.bias`, [H]);
    shapes.set(`${p}intermediate.dense.weight`, [c.intermediateSize, H]);
    shapes.set(`${p}intermediate.dense.bias`, [c.intermediateSize]);
    shapes.set(`${p}output.dense.weight`, [H, c.intermediateSize]);
    shapes.set(`${p}output.dense.bias`, [H]);
    for (const n of ['layernorm_before', 'layernorm_after']) {
      shapes.set(`${p}${n}.weight`, [H]);
      shapes.set(`${p}${n}.bias`, [H]);
    }
  }
  shapes.set('vit.layernorm.weight', [H]);
  shapes.set('vit.layernorm.bias', [H]);
  shapes.set('classifier.weight', [c.numLabels, H]);
  shapes.set('classifier.bias', [c.numLabels]);
  return shapes;
}
