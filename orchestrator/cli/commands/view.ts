import type { Command } from 'commander';
import { option, port } from '../options.js';
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import { SbevalError } from '../../../core/errors.js';
import { checkCompetitionRoot } from '../../layout/root-check.js';
import { startViewer, type ViewerSource } from '../../../viewer/server.js';
import { openTraceFile } from '../../../viewer/trace-source.js';

/**
 * `sbeval view <trace | level.xml | competition-dir>`: serves the frame-by-frame viewer on 127.0.0.1
 * and prints its URL; runs until interrupted (Ctrl-C).
 */
interface ViewFlags {
  port: number;
  reference?: string;
}

export function sourceFor(target: string): ViewerSource {
  const path = resolve(target);
  if (!existsSync(path)) throw new SbevalError('input', `${target} does not exist`, 'give a trace file, a level .xml or a competition folder');
  if (statSync(path).isDirectory()) {
    // A team or stage folder would be listed as a competition of odd "teams": refuse it as every command does.
    checkCompetitionRoot(path, { command: 'view' });
    return { kind: 'competition', root: path, openTrace: openTraceFile };
  }
  if (extname(path).toLowerCase() === '.xml') {
    // Simulated in the viewer's worker, within the engine's simulation budget (viewer/server.ts).
    return { kind: 'trial', title: basename(path), load: async (viewer) => viewer.simulate(basename(path, '.xml'), await readFile(path, 'utf8')) };
  }
  return { kind: 'trial', title: basename(path), load: () => openTraceFile(path) };
}

export function registerViewCommands(program: Command): void {
  program
    .command('view')
    .description('serve the frame-by-frame viewer for a trace, a level, or a competition folder, and print its URL')
    .argument('<target>', 'a trace file (sbeval level --trace, sbeval record), a level .xml (simulated headless on demand), or a competition folder')
    .addOption(option('--port <n>', 'port on 127.0.0.1 (0 = any free port)', { parse: port, default: 0 }))
    .addOption(option('--reference <png>', "an image to show beside the final capture (e.g. the Unity evaluator's image of the level)"))
    .addHelpText(
      'after',
      `
The page plays the simulation at real speed or frame by frame (space, ←/→, Home/End), scrubs and seeks,
draws the level black on white as the evaluator's image or as wood, highlights the first mover, blocks
past the 0.1 threshold and destroyed blocks, shows velocity vectors and contacts, a per-block
displacement chart, the explanation (sbeval explain) and the final capture beside --reference.
A competition folder lists its trials by team and letter with their stability/similarity scores;
trials with a trace (<team>/traces/<C>/<name>[.trial<k>].sbtrace[.gz], as sbeval run --traces writes
them) open it, others are simulated on demand.

Example: sbeval view run.trace --reference unity.png`,
    )
    .action(async (target: string, flags: ViewFlags) => {
      if (flags.reference && !existsSync(resolve(flags.reference))) throw new SbevalError('input', `reference image ${flags.reference} does not exist`);
      const server = await startViewer({ source: sourceFor(target), port: flags.port, ...(flags.reference ? { reference: resolve(flags.reference) } : {}) });
      process.stdout.write(`sbeval viewer: ${server.url}\n`);
      process.stderr.write('press Ctrl-C to stop\n');
      await new Promise<void>((resolveStop) => {
        const stop = () => resolveStop();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await server.close();
    });
}
