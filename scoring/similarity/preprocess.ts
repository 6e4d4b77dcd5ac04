/**
 * The ViT input exactly as the official similarity script builds it (chatgpt4pcg/similarity-checking-script
 * `predict`; reference/official-pipeline.md §5): `Image.open(png).convert("RGB")`, then the model's
 * `ViTImageProcessor` (transformers ~4.37): PIL resize to `size` with `resample` (BILINEAR), `x * rescale_factor`
 * computed in float64 and cast to float32 (`image_transforms.rescale`), `(x - mean) / std` in float32 with
 * mean/std cast to float32 (`image_transforms.normalize`), channels first.
 *
 * Pure functions over pixel buffers; decoding the PNG is in `decode.ts`.
 */

import { SbevalError } from '../../core/errors.js';
import { type Image8, isSupportedResample, PIL_RESAMPLE, pilResize } from './pil-resample.js';

/** What `preprocessor_config.json` controls, with ViTImageProcessor's defaults filled in. */
export interface PreprocessorConfig {
  doResize: boolean;
  height: number;
  width: number;
  /** PIL resample filter number (2 = BILINEAR). */
  resample: number;
  doRescale: boolean;
  rescaleFactor: number;
  doNormalize: boolean;
  mean: [number, number, number];
  std: [number, number, number];
}

/**
 * ViTImageProcessor's defaults (transformers `models/vit/image_processing_vit.py`): 224×224, BILINEAR,
 * 1/255, IMAGENET_STANDARD_MEAN/STD = 0.5 — also the values of google/vit-base-patch16-224-in21k, the base
 * of the competition's model.
 */
export const VIT_DEFAULT_PREPROCESSOR: PreprocessorConfig = {
  doResize: true,
  height: 224,
  width: 224,
  resample: PIL_RESAMPLE.BILINEAR,
  doRescale: true,
  rescaleFactor: 1 / 255,
  doNormalize: true,
  mean: [0.5, 0.5, 0.5],
  std: [0.5, 0.5, 0.5],
};

function triple(value: unknown, key: string): [number, number, number] {
  if (typeof value === 'number' && Number.isFinite(value)) return [value, value, value];
  if (Array.isArray(value) && value.length === 3 && value.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    return [value[0], value[1], value[2]] as [number, number, number];
  }
  throw new SbevalError('similarity', `${key} must be a number or 3 numbers (one per RGB channel), got ${JSON.stringify(value)}`);
}

function flag(value: unknown, key: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw new SbevalError('similarity', `${key} must be true or false, got ${JSON.stringify(value)}`);
  return value;
}

function positiveInt(value: unknown, key: string): number {
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  throw new SbevalError('similarity', `${key} must be a positive integer, got ${JSON.stringify(value)}`);
}

/**
 * Reads a parsed `preprocessor_config.json`. `size` is an int (square, the old feature-extractor form that
 * transformers' `get_size_dict` turns into height = width) or `{height, width}`; ViTImageProcessor rejects any
 * other size form and so do we. Keys we do not model (e.g. `image_processor_type`) are ignored.
 */
export function parsePreprocessorConfig(json: unknown): PreprocessorConfig {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new SbevalError('similarity', 'preprocessor_config.json must hold a JSON object');
  }
  const c = json as Record<string, unknown>;
  const config: PreprocessorConfig = { ...VIT_DEFAULT_PREPROCESSOR, mean: [...VIT_DEFAULT_PREPROCESSOR.mean], std: [...VIT_DEFAULT_PREPROCESSOR.std] };
  config.doResize = flag(c.do_resize, 'do_resize', true);
  config.doRescale = flag(c.do_rescale, 'do_rescale', true);
  config.doNormalize = flag(c.do_normalize, 'do_normalize', true);
  if (c.size !== undefined && c.size !== null) {
    if (typeof c.size === 'number') {
      config.height = config.width = positiveInt(c.size, 'size');
    } else if (typeof c.size === 'object' && !Array.isArray(c.size)) {
      const s = c.size as Record<string, unknown>;
      if (s.height === undefined || s.width === undefined) {
        throw new SbevalError('similarity', `size must have height and width (as ViTImageProcessor requires), got ${JSON.stringify(c.size)}`);
      }
      config.height = positiveInt(s.height, 'size.height');
      config.width = positiveInt(s.width, 'size.width');
    } else {
      throw new SbevalError('similarity', `size must be a number or {height, width}, got ${JSON.stringify(c.size)}`);
    }
  }
  if (c.resample !== undefined && c.resample !== null) {
    const r = c.resample;
    if (typeof r !== 'number' || !isSupportedResample(r)) {
      throw new SbevalError('similarity', `resample ${JSON.stringify(r)} is not supported (1 LANCZOS, 2 BILINEAR, 3 BICUBIC, 4 BOX, 5 HAMMING)`);
    }
    config.resample = r;
  }
  if (c.rescale_factor !== undefined && c.rescale_factor !== null) {
    if (typeof c.rescale_factor !== 'number' || !Number.isFinite(c.rescale_factor)) {
      throw new SbevalError('similarity', `rescale_factor must be a number, got ${JSON.stringify(c.rescale_factor)}`);
    }
    config.rescaleFactor = c.rescale_factor;
  }
  if (c.image_mean !== undefined && c.image_mean !== null) config.mean = triple(c.image_mean, 'image_mean');
  if (c.image_std !== undefined && c.image_std !== null) config.std = triple(c.image_std, 'image_std');
  if (config.std.some((s) => s === 0)) throw new SbevalError('similarity', 'image_std must not contain 0');
  return config;
}

/**
 * `Image.resize` step of the processor (no-op when `do_resize` is false). RGB, or one grey channel that
 * stands for R = G = B (Pillow resamples each channel on its own, so the grey plane resized is each
 * channel of the RGB image resized).
 */
export function resizeForModel(rgb: Image8, config: PreprocessorConfig): Image8 {
  if (rgb.channels !== 3 && rgb.channels !== 1) throw new RangeError(`expected an RGB or grey image, got ${rgb.channels} channels`);
  return config.doResize ? pilResize(rgb, config.width, config.height, config.resample) : rgb;
}

/**
 * Rescale and normalise an RGB uint8 image (HWC) into `out` (CHW float32) at `offset`.
 * float64 product then float32 cast (rescale), then float32 subtract and divide (normalize): `Math.fround`
 * after each operation gives exactly numpy's float32 results, since a double-rounded float32 +,−,×,÷ is
 * correctly rounded.
 */
export function normalizeInto(rgb: Image8, config: PreprocessorConfig, out: Float32Array, offset = 0): void {
  if (rgb.channels !== 3 && rgb.channels !== 1) throw new RangeError(`expected an RGB or grey image, got ${rgb.channels} channels`);
  const plane = rgb.width * rgb.height;
  if (out.length < offset + 3 * plane) throw new RangeError('output tensor too small');
  // Per channel, the 256 possible outputs are precomputed: same values, far fewer operations.
  const tables: Float32Array[] = [0, 1, 2].map((ch) => {
    const mean = Math.fround(config.mean[ch]!);
    const std = Math.fround(config.std[ch]!);
    const t = new Float32Array(256);
    for (let v = 0; v < 256; v++) {
      let x = config.doRescale ? Math.fround(v * config.rescaleFactor) : Math.fround(v);
      if (config.doNormalize) x = Math.fround(Math.fround(x - mean) / std);
      t[v] = x;
    }
    return t;
  });
  const data = rgb.data;
  const [t0, t1, t2] = tables as [Float32Array, Float32Array, Float32Array];
  if (rgb.channels === 1) {
    // Grey stands for R = G = B: each channel's table applied to the same value.
    for (let i = 0; i < plane; i++) {
      const v = data[i]!;
      out[offset + i] = t0[v]!;
      out[offset + plane + i] = t1[v]!;
      out[offset + 2 * plane + i] = t2[v]!;
    }
    return;
  }
  for (let i = 0; i < plane; i++) {
    out[offset + i] = t0[data[i * 3]!]!;
    out[offset + plane + i] = t1[data[i * 3 + 1]!]!;
    out[offset + 2 * plane + i] = t2[data[i * 3 + 2]!]!;
  }
}

/** Whole processor on an RGB (or grey, see `resizeForModel`) image: resize, rescale, normalise → float32 CHW. */
export function preprocessRgb(rgb: Image8, config: PreprocessorConfig = VIT_DEFAULT_PREPROCESSOR): { resized: Image8; tensor: Float32Array } {
  const resized = resizeForModel(rgb, config);
  const tensor = new Float32Array(3 * resized.width * resized.height);
  normalizeInto(resized, config, tensor);
  return { resized, tensor };
}
