import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SOLVER_KERNEL_WASM } from '../../bridge/headless/solver-kernel.js';
import { kernelBytes, kernelModuleSource, kernelWat } from '../../scripts/solver-wasm.js';

describe("the island solver's WebAssembly kernel", () => {
  it('is exactly what scripts/solver-wasm.ts compiles from its text (no hand-edited or stale bytes)', async () => {
    const bytes = await kernelBytes();
    expect(Buffer.from(SOLVER_KERNEL_WASM, 'base64').equals(Buffer.from(bytes))).toBe(true);
    expect(readFileSync(new URL('../../bridge/headless/solver-kernel.ts', import.meta.url), 'utf8')).toBe(kernelModuleSource(bytes));
    // Only double arithmetic that is exact IEEE-754 binary64: no fused or relaxed instructions.
    expect(kernelWat()).not.toMatch(/fma|relaxed|f32|sqrt|nearest|trunc|convert/);
    expect(WebAssembly.validate(Buffer.from(bytes))).toBe(true);
  });
});
