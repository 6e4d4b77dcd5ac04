import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { SbevalError } from '../../core/errors.js';
import { convertModelFolder } from '../../orchestrator/stages/model.js';
import { readTorchCheckpoint, unpickleStateDict } from '../../scoring/similarity/torch-checkpoint.js';
import { prng } from './tiny-vit.js';

/** Files written by PyTorch itself (scripts/fixtures/hf-tiny-vit.py → fixtures/torch-bin/). */
const DIR = fileURLToPath(new URL('./fixtures/torch-bin/', import.meta.url));

describe('torch.save checkpoints (pytorch_model.bin) without Python', () => {
  it('reads views with strides and offsets into shared storage, float16, bfloat16 and parameters as PyTorch does', () => {
    const expected = JSON.parse(readFileSync(join(DIR, 'views.json'), 'utf8')) as Record<string, { shape: number[]; values: number[] }>;
    const sd = readTorchCheckpoint(readFileSync(join(DIR, 'views.pt')));
    expect([...sd.tensors.keys()].sort()).toEqual(Object.keys(expected).sort());
    for (const [name, want] of Object.entries(expected)) {
      const got = sd.read(name)!;
      expect(got.shape, name).toEqual(want.shape);
      expect(Array.from(got.data), name).toEqual(want.values.map((v) => Math.fround(v)));
    }
  });

  it('converts pytorch_model.bin to the same model as the same weights in model.safetensors', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'sbeval-torch-'));
    try {
      for (const kind of ['bin', 'st'] as const) {
        mkdirSync(join(tmp, kind));
        copyFileSync(join(DIR, 'config.json'), join(tmp, kind, 'config.json'));
        const file = kind === 'bin' ? 'pytorch_model.bin' : 'model.safetensors';
        copyFileSync(join(DIR, file), join(tmp, kind, file));
        convertModelFolder(join(tmp, kind), join(tmp, `${kind}.onnx`));
      }
      const a = readFileSync(join(tmp, 'bin.onnx'));
      const b = readFileSync(join(tmp, 'st.onnx'));
      expect(a.equals(b)).toBe(true);
      const rand = prng(5);
      const img = Float32Array.from({ length: 3 * 8 * 8 }, () => rand() * 2 - 1);
      const session = await ort.InferenceSession.create(a);
      const out = await session.run({ pixel_values: new ort.Tensor('float32', img, [1, 3, 8, 8]) });
      await session.release();
      expect((out.logits!.data as Float32Array).length).toBe(26);
      expect(new Set(out.logits!.data as Float32Array).size).toBeGreaterThan(1);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('refuses pickles that would call anything but the state-dict builders', () => {
    const evil = new Uint8Array([0x80, 0x02, ...new TextEncoder().encode('cos\nsystem\n'), 0x58, 2, 0, 0, 0, 0x6c, 0x73, 0x85, 0x52, 0x2e]);
    expect(() => unpickleStateDict(evil)).toThrow(/refusing pickle global os\.system/);
    expect(() => readTorchCheckpoint(new TextEncoder().encode('not a zip at all, just text'))).toThrow(SbevalError);
    const bin = readFileSync(join(DIR, 'pytorch_model.bin'));
    expect(() => readTorchCheckpoint(bin.subarray(0, bin.length - 100))).toThrow(SbevalError);
  });
});
