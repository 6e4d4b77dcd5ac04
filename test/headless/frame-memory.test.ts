import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIMULATION } from '../../bridge/engine.js';
import type { FrameBatch } from '../../bridge/frames.js';
import { MAX_KEPT_BUFFER_BYTES, RecycledFrameMemory } from '../../bridge/headless/frame-memory.js';
import { levelSeed, simulateTrial } from '../../bridge/headless/run.js';
import { parseLevelXml } from '../../levels/xml-read.js';
import { REFERENCE_LEVELS } from '../helpers/cli.js';

const xml = readFileSync(join(REFERENCE_LEVELS, 'v1', 'levels', 'L', 'V1_L_1.xml'), 'utf8');

describe('RecycledFrameMemory', () => {
  it('hands out states then alive flags in one buffer, of the lengths asked for', () => {
    const memory = new RecycledFrameMemory();
    const { states, alive } = memory.take(515 * 6 * 6, 515 * 6);
    expect(states.length).toBe(515 * 6 * 6);
    expect(alive.length).toBe(515 * 6);
    expect(alive.buffer).toBe(states.buffer);
    expect(alive.byteOffset).toBe(states.byteLength);
  });

  it('reuses a buffer given back when it is large enough, the smallest that fits', () => {
    const memory = new RecycledFrameMemory();
    const small = memory.take(10, 10).states.buffer as ArrayBuffer;
    const large = memory.take(1_000_000, 10).states.buffer as ArrayBuffer;
    expect(large.byteLength).toBeGreaterThan(small.byteLength);
    memory.give([large, small]);
    expect(memory.take(100, 100).states.buffer).toBe(small);
    // The small one is taken: a request it cannot hold gets the large one, then a new buffer.
    expect(memory.take(small.byteLength, 0).states.buffer).toBe(large);
    const fresh = memory.take(100, 100).states.buffer;
    expect(fresh).not.toBe(small);
    expect(fresh).not.toBe(large);
  });

  it('keeps at most `keep` buffers (the largest) and ignores detached ones', () => {
    const memory = new RecycledFrameMemory(2);
    const buffers = [1, 2, 3].map((n) => new ArrayBuffer(n * 1024));
    const detached = new ArrayBuffer(4096);
    structuredClone(detached, { transfer: [detached] });
    memory.give([...buffers, detached]);
    expect(memory.size).toBe(2);
    expect(memory.take(512, 0).states.buffer).toBe(buffers[1]); // 2 KiB of floats: the smallest that fits
    expect(memory.take(10, 0).states.buffer).toBe(buffers[2]);
  });

  it('never keeps a buffer over MAX_KEPT_BUFFER_BYTES: a huge batch gets its exact size and is let go', () => {
    const memory = new RecycledFrameMemory();
    const floats = MAX_KEPT_BUFFER_BYTES / 4 + 1;
    const huge = memory.take(floats, 3).states.buffer as ArrayBuffer;
    expect(huge.byteLength).toBe(floats * 4 + 3);
    const largestKept = new ArrayBuffer(MAX_KEPT_BUFFER_BYTES);
    memory.give([huge, largestKept]);
    expect(memory.size).toBe(1);
    expect(memory.take(100, 0).states.buffer).toBe(largestKept);
  });

  it('a trial on recycled buffers full of garbage streams exactly the frames of fresh ones (every value is written)', () => {
    const level = parseLevelXml(xml);
    const run = (memory?: RecycledFrameMemory): FrameBatch[] => {
      const batches: FrameBatch[] = [];
      simulateTrial(
        level,
        levelSeed(xml),
        { ...DEFAULT_SIMULATION, trial: 2, capture: false },
        {
          loaded() {},
          frames: (batch) => batches.push({ ...batch, states: batch.states.slice(), alive: batch.alive.slice() }),
          events() {},
        },
        undefined,
        undefined,
        memory ? { frameMemory: memory } : {},
      );
      return batches;
    };
    const memory = new RecycledFrameMemory();
    const dirty = Array.from({ length: 8 }, () => {
      const buffer = new ArrayBuffer(1 << 20);
      new Uint8Array(buffer).fill(0xff); // NaN floats, alive 255
      return buffer;
    });
    memory.give(dirty);
    const fresh = run();
    const recycled = run(memory);
    expect(recycled.length).toBe(fresh.length);
    expect(recycled.length).toBeGreaterThan(1);
    recycled.forEach((batch, i) => {
      expect(batch.firstStep).toBe(fresh[i]!.firstStep);
      expect(Buffer.from(batch.states.buffer).equals(Buffer.from(fresh[i]!.states.buffer))).toBe(true);
      expect(Buffer.from(batch.alive).equals(Buffer.from(fresh[i]!.alive))).toBe(true);
    });
    // The trial took its batches from the dirty buffers.
    expect(memory.size).toBeLessThan(dirty.length);
  });
});
