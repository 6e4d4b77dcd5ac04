#!/usr/bin/env node
// The playground's page (`sbeval play`) built for browsers into dist/play/: one classic script
// bundled by esbuild from viewer/play/page/play.js — the level floors, the headless engine (planck and
// its WebAssembly kernel, with Node's sin, cos and atan2: bridge/headless/fdlibm.ts), the stability rules,
// the viewer's drawing modules — beside the page's HTML
// and CSS, and onnxruntime-web's WebAssembly build (its JS with the glue inlined, and its .wasm), which
// the page loads from its own folder only when the user picks a model. A classic script, not a module,
// so the page also opens from file:// (Chromium refuses module scripts there).
//
// The published competition's trial page (`sbeval publish`, viewer/publish/page/) is bundled the same
// way into dist/publish/: the same evaluation and panel modules, another entry.
//
// `node scripts/build-play.mjs [outDir [publishDir]]`; build-if-stale.mjs runs it after tsc.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const PAGE = join(root, 'viewer', 'play', 'page');
const ORT = join(root, 'node_modules', 'onnxruntime-web', 'dist');
/** onnxruntime-web's files the page loads: the WebAssembly build with its glue inlined, and its binary. */
const ORT_FILES = ['ort.wasm.bundle.min.mjs', 'ort-wasm-simd-threaded.wasm'];
/** The page's own static files, copied as they are. */
const PAGE_FILES = ['play.css'];

/** Bundles the page's script for browsers into `outDir` (nothing written with `write: false`); gives esbuild's metafile and the script's text. */
export async function bundlePlayScript(outDir, { write = true, entry = join(PAGE, 'play.js') } = {}) {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: ['chrome110', 'firefox115', 'safari16'],
    outfile: join(outDir, basename(entry)),
    minify: true,
    sourcemap: false,
    metafile: true,
    write,
    logLevel: 'silent',
    legalComments: 'none',
    // Node's own sin, cos and atan2 in every bundled module (bridge/headless/fdlibm.ts): a browser's V8 rounds
    // them otherwise, and the page must compute the frames Node computes.
    inject: [join(root, 'bridge', 'headless', 'fdlibm.ts')],
    define: { 'Math.sin': 'fdlibmSin', 'Math.cos': 'fdlibmCos', 'Math.atan2': 'fdlibmAtan2' },
  });
  const code = write ? undefined : result.outputFiles[0].text;
  return { metafile: result.metafile, code };
}

/** Where a page's HTML holds the level panel both pages show (the scene, playback, chart, blocks, image). */
const PANEL_MARKER = '    <!-- the level panel (viewer/play/page/panel.html), put in by scripts/build-play.mjs -->\n';

/** A page's HTML with the one level panel put in (the playground and the published trial page share it). */
function writePage(source, target) {
  const html = readFileSync(source, 'utf8');
  if (!html.includes(PANEL_MARKER)) throw new Error(`${source} has no place for the level panel`);
  writeFileSync(target, html.replace(PANEL_MARKER, readFileSync(join(PAGE, 'panel.html'), 'utf8')));
}

/** The whole page into `outDir` (emptied first). */
export async function buildPlayground(outDir) {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(join(outDir, 'ort'), { recursive: true });
  await bundlePlayScript(outDir);
  writePage(join(PAGE, 'index.html'), join(outDir, 'index.html'));
  for (const name of PAGE_FILES) copyFileSync(join(PAGE, name), join(outDir, name));
  for (const name of ORT_FILES) copyFileSync(join(ORT, name), join(outDir, 'ort', name));
}

const PUBLISH_PAGE = join(root, 'viewer', 'publish', 'page');

/** The published competition's trial page into `outDir` (emptied first): its script, its HTML, the playground's CSS. */
export async function buildPublishPage(outDir) {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  await bundlePlayScript(outDir, { entry: join(PUBLISH_PAGE, 'trial.js') });
  writePage(join(PUBLISH_PAGE, 'trial.html'), join(outDir, 'trial.html'));
  copyFileSync(join(PAGE, 'play.css'), join(outDir, 'play.css'));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildPlayground(process.argv[2] ?? join(root, 'dist', 'play'));
  await buildPublishPage(process.argv[3] ?? join(root, 'dist', 'publish'));
}
