import { resolve } from 'node:path';
import type { Command } from 'commander';
import { startPlayServer, writePlayground } from '../../viewer/play/server.js';
import { serveUntilStopped } from '../interrupt.js';
import { option, port } from '../options.js';
import { COMMAND_SUMMARIES } from './summaries.js';

/** `sbeval play`: the playground page served on 127.0.0.1 (until Ctrl-C), or written as static files with --out. */
interface PlayFlags {
  port: number;
  out?: string;
}

async function playAction(flags: PlayFlags): Promise<void> {
  if (flags.out !== undefined) {
    const out = resolve(flags.out);
    const count = writePlayground(out);
    process.stdout.write(`sbeval playground: ${count} files in ${out} (open index.html from any static host)\n`);
    return;
  }
  const server = await startPlayServer({ port: flags.port });
  await serveUntilStopped(`sbeval playground: ${server.url}`, server);
}

export function registerPlayCommand(program: Command): void {
  program
    .command('play')
    .description(COMMAND_SUMMARIES.play)
    .addOption(option('--port <n>', 'port on 127.0.0.1 (0 = any free port)', { parse: port, default: 0 }))
    .addOption(option('--out <dir>', 'write the page as static files into a new or empty folder instead of serving it'))
    .addHelpText(
      'after',
      `
Paste an LLM response, a drop program or a level XML (or drop the file): the page runs the official
extraction and conversion (with their reasons), the evaluator's trials on the headless engine, and
shows the level falling frame by frame with the viewer's panel, the stability verdict, the moving
blocks and the evaluator's black-on-white image. Pick an ONNX model file (sbeval model fetch) for the
similarity and the 26 letter probabilities. Everything runs in the page; nothing is uploaded. The input
is kept in the URL fragment, so a link reproduces the level. While it runs, POST /api/level and
/api/extract answer JSON for scripts (docs/playground.md).

Example: sbeval play --out site/playground`,
    )
    .action(playAction);
}
