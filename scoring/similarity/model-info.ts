import { SbevalError } from '../../core/errors.js';
import { type PreprocessorConfig, VIT_DEFAULT_PREPROCESSOR } from './preprocess.js';
import { VIT_CLS_HIDDEN, VIT_INPUT, VIT_LOGITS } from './vit-graph.js';

/**
 * What a converted model carries besides its graph (labels, preprocessing), as its ONNX metadata holds
 * it: convert.ts writes it, the classifier and the playground's page (viewer/play/) read it. No Node API.
 */

/** Metadata keys (namespaced so they cannot clash with other producers'). */
export const META = {
  format: 'sbeval.format',
  labels: 'sbeval.labels',
  preprocessor: 'sbeval.preprocessor',
  imageSize: 'sbeval.image_size',
  hiddenSize: 'sbeval.hidden_size',
  source: 'sbeval.source',
} as const;
export const MODEL_FORMAT = 'sbeval-vit-1';

/** What the classifier needs to know about a converted model. */
export interface VitModelInfo {
  labels: string[];
  preprocessor: PreprocessorConfig;
  imageSize: number;
  hiddenSize: number;
  inputName: string;
  logitsName: string;
  clsName: string;
  source: string | undefined;
}

/** Reads the metadata of a model written by `convertHfVit`; other ONNX files get the competition defaults. */
export function modelInfoFromMetadata(meta: Record<string, string>): VitModelInfo {
  if (meta[META.format] === undefined) {
    // A ViT exported by someone else: assume the competition's conventions (26 labels A..Z, in21k preprocessing).
    return {
      labels: [],
      preprocessor: VIT_DEFAULT_PREPROCESSOR,
      imageSize: VIT_DEFAULT_PREPROCESSOR.height,
      hiddenSize: 0,
      inputName: VIT_INPUT,
      logitsName: VIT_LOGITS,
      clsName: VIT_CLS_HIDDEN,
      source: undefined,
    };
  }
  if (meta[META.format] !== MODEL_FORMAT)
    throw new SbevalError('similarity', `model format ${meta[META.format]} is not ${MODEL_FORMAT}; convert it again with this sbeval`);
  try {
    return {
      labels: JSON.parse(meta[META.labels] ?? '[]') as string[],
      preprocessor: JSON.parse(meta[META.preprocessor] ?? 'null') as PreprocessorConfig,
      imageSize: Number(meta[META.imageSize]),
      hiddenSize: Number(meta[META.hiddenSize]),
      inputName: VIT_INPUT,
      logitsName: VIT_LOGITS,
      clsName: VIT_CLS_HIDDEN,
      source: meta[META.source],
    };
  } catch (error) {
    throw new SbevalError('similarity', `model metadata is unreadable: ${(error as Error).message}`);
  }
}
