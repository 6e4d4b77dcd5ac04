/**
 * A PNG file's bytes → the model's input tensor ([3, H, W] float32), exactly as the official script's
 * `Image.open(png).convert("RGB")` + `ViTImageProcessor` (decode.ts, preprocess.ts), with the grey
 * shortcut (an image with R = G = B everywhere is resized once, not three times; same tensor).
 * The one function the similarity stage's preprocessing workers run.
 */
import { decodePngForModel } from './decode.js';
import { type PreprocessorConfig, preprocessRgb } from './preprocess.js';

export async function pngToModelInput(png: Uint8Array, config: PreprocessorConfig): Promise<Float32Array> {
  return preprocessRgb(await decodePngForModel(png), config).tensor;
}
