/**
 * Hugging Face ViT checkpoint → ONNX model (pure: parsed JSON and weight tensors in, encoded pieces out).
 * The ONNX file carries, in `metadata_props`, what inference needs besides the graph, so one file is the
 * whole model: the class labels (`id2label`), the resolved preprocessing (`preprocessor_config.json` with
 * ViTImageProcessor's defaults), the output names and the source checkpoint.
 */

import { SbevalError } from '../../core/errors.js';
import { META, MODEL_FORMAT, type VitModelInfo } from './model-info.js';
import { encodeOnnxModel } from './onnx-writer.js';
import { type PreprocessorConfig, parsePreprocessorConfig, VIT_DEFAULT_PREPROCESSOR } from './preprocess.js';
import { parseSafetensors, toFloat32 } from './safetensors.js';
import { readTorchCheckpoint } from './torch-checkpoint.js';
import { parseVitConfig, type VitConfig } from './vit-config.js';
import { buildVitGraph, VIT_CLS_HIDDEN, VIT_INPUT, VIT_LOGITS, type WeightSource } from './vit-graph.js';

interface HfVitCheckpoint {
  config: unknown;
  /** Parsed `preprocessor_config.json`, or undefined when the folder has none (defaults apply). */
  preprocessor: unknown;
  weights: WeightSource;
  /** Free text recorded in the model (repo id, revision, checksums). */
  source?: string;
}

function resolvePreprocessor(config: VitConfig, preprocessor: unknown): PreprocessorConfig {
  const p =
    preprocessor === undefined ? { ...VIT_DEFAULT_PREPROCESSOR, height: config.imageSize, width: config.imageSize } : parsePreprocessorConfig(preprocessor);
  if (p.doResize && (p.height !== config.imageSize || p.width !== config.imageSize)) {
    throw new SbevalError(
      'similarity',
      `preprocessor resizes to ${p.width}×${p.height} but the model takes ${config.imageSize}×${config.imageSize} (ViT would refuse that input)`,
    );
  }
  return p;
}

/** Converts and returns the ONNX pieces (write them in order) plus what was read. */
export function convertHfVit(checkpoint: HfVitCheckpoint): { pieces: Uint8Array[]; config: VitConfig; info: VitModelInfo } {
  const config = parseVitConfig(checkpoint.config);
  const preprocessor = resolvePreprocessor(config, checkpoint.preprocessor);
  const info: VitModelInfo = {
    labels: config.labels,
    preprocessor,
    imageSize: config.imageSize,
    hiddenSize: config.hiddenSize,
    inputName: VIT_INPUT,
    logitsName: VIT_LOGITS,
    clsName: VIT_CLS_HIDDEN,
    source: checkpoint.source,
  };
  const model = buildVitGraph(config, checkpoint.weights, {
    docString: `ViTForImageClassification converted by sbeval${checkpoint.source ? ` from ${checkpoint.source}` : ''}. Outputs: logits, cls_hidden (hidden_states[-1][:, 0, :], before the final LayerNorm).`,
    metadata: {
      [META.format]: MODEL_FORMAT,
      [META.labels]: JSON.stringify(config.labels),
      [META.preprocessor]: JSON.stringify(preprocessor),
      [META.imageSize]: String(config.imageSize),
      [META.hiddenSize]: String(config.hiddenSize),
      ...(checkpoint.source ? { [META.source]: checkpoint.source } : {}),
    },
  });
  return { pieces: encodeOnnxModel(model), config, info };
}

/** Weight source over a safetensors file's bytes. */
export function safetensorsWeights(file: Uint8Array): WeightSource {
  const st = parseSafetensors(file);
  return (name) => {
    const t = st.tensors.get(name);
    return t ? { shape: t.shape, data: toFloat32(t) } : undefined;
  };
}

/** Weight source over a `pytorch_model.bin` (torch.save zip) file's bytes. */
export function torchWeights(file: Uint8Array): WeightSource {
  const sd = readTorchCheckpoint(file);
  return (name) => sd.read(name);
}
