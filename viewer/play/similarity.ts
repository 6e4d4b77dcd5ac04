import { type MaskImage, maskPixel } from '../../bridge/headless/render.js';
import { modelInfoFromMetadata, type VitModelInfo } from '../../scoring/similarity/model-info.js';
import { scanOnnxMetadata } from '../../scoring/similarity/onnx-metadata.js';
import { preprocessRgb } from '../../scoring/similarity/preprocess.js';
import { letterProbabilities, softmax } from '../../scoring/similarity/probabilities.js';

/**
 * The similarity stage's steps for one image in the page, from the same modules `sbeval similarity`
 * uses: the model's labels and preprocessing from its ONNX metadata, the image's model input (the mask
 * is the 1-bit grey picture the stage decodes from the PNG: scoring/similarity/decode.ts gives one grey
 * channel for it), and softmax → the 26 letter probabilities. The page runs the model itself
 * (onnxruntime-web); nothing here needs Node.
 */

/** The model's labels, preprocessing and tensor names, read from the ONNX file's bytes. */
export function modelInfoOf(onnx: Uint8Array): VitModelInfo {
  return modelInfoFromMetadata(scanOnnxMetadata((position, length) => onnx.subarray(position, position + length), onnx.length));
}

/** The model's input for the image: [3, H, W] float32, as the stage preprocesses the decoded PNG. */
export function modelInput(mask: MaskImage, info: VitModelInfo): { tensor: Float32Array; dims: [number, number, number, number] } {
  const grey = new Uint8Array(mask.width * mask.height);
  for (let y = 0; y < mask.height; y++) for (let x = 0; x < mask.width; x++) grey[y * mask.width + x] = maskPixel(mask, x, y);
  const { resized, tensor } = preprocessRgb({ width: mask.width, height: mask.height, channels: 1, data: grey }, info.preprocessor);
  return { tensor, dims: [1, 3, resized.height, resized.width] };
}

/** The 26 probabilities in A..Z order from the model's logits (what the similarity file's `raws` hold). */
export function letterProbabilitiesOf(logits: ArrayLike<number>, info: VitModelInfo): number[] {
  return Array.from(letterProbabilities(info.labels, softmax(logits)));
}
