import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundlePlayScript } from '../../scripts/build-play.mjs';
import { PROJECT_ROOT } from '../helpers/cli.js';

/**
 * The playground's script is bundled for browsers from the product's own sources (levels/, the headless
 * engine with its WebAssembly kernel, stability, the viewer's drawing modules): esbuild with
 * `platform: 'browser'` refuses a Node built-in it cannot resolve, and its metafile lists every input;
 * a Node global (`Buffer`, `process`) would only fail in the page, so the script's text is searched for them.
 */
describe('the playground bundle', () => {
  it('builds for browsers from the engine, the level floors and the viewer modules, with no Node built-in among its inputs', async () => {
    const { metafile, code } = await bundlePlayScript(join(PROJECT_ROOT, 'dist', 'play-bundle-test'), { write: false });
    const inputs = Object.keys(metafile.inputs);
    expect(inputs.filter((path) => path.startsWith('node:') || /^(fs|path|zlib|crypto|os|url|worker_threads|child_process)$/.test(path))).toEqual([]);
    // The same physics and rules as the Node path, not a copy: these are the modules `sbeval level` runs.
    for (const module of [
      'bridge/headless/run.ts',
      'bridge/headless/world.ts',
      'bridge/headless/solver.ts',
      'bridge/headless/solver-kernel.ts',
      'bridge/headless/render.ts',
      'levels/pipeline.ts',
      'levels/xml-read.ts',
      'scoring/stability.ts',
      'viewer/static/draw.js',
      'viewer/static/chart.js',
      'viewer/static/frames.js',
      'viewer/static/playback.js',
    ])
      expect(inputs).toContain(module);
    expect(inputs.some((path) => path.includes('node_modules/planck/'))).toBe(true);
    // Nor a Node global the browser lacks (the minified script has no comments: any of these would be code).
    expect(code).toBeDefined();
    expect(code?.match(/\b(Buffer|process|require|__dirname)\b/g) ?? []).toEqual([]);
    // Node's sin, cos and atan2 replace the browser's everywhere (bridge/headless/fdlibm.ts).
    expect(inputs).toContain('bridge/headless/fdlibm.ts');
    expect(code?.match(/Math\.(sin|cos|atan2)\b/g) ?? []).toEqual([]);
    // Node-only modules of the engine stay out: the PNG encoder (zlib), sharp, the worker threads.
    for (const module of ['bridge/headless/png.ts', 'bridge/headless/engine.ts', 'bridge/headless/worker-engine.ts']) expect(inputs).not.toContain(module);
  });
});
