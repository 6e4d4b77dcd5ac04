import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import type { Command } from 'commander';
import { describeError, SbevalError } from '../../core/errors.js';
import { LevelXmlError, parseLevelXml } from '../../levels/xml-read.js';
import { checkCompetitionRoot } from '../../orchestrator/layout/root-check.js';
import { competitionSource } from '../../orchestrator/layout/trial-listing.js';
import { startViewer, type ViewerSource } from '../../viewer/server.js';
import { openTraceFile } from '../../viewer/trace-source.js';
import { serveUntilStopped } from '../interrupt.js';
import { option, port } from '../options.js';
import { COMMAND_SUMMARIES } from './summaries.js';

/**
 * `sbeval view <trace | level.xml | competition-dir>`: serves the frame-by-frame viewer on 127.0.0.1
 * and prints its URL; runs until interrupted (Ctrl-C).
 */
interface ViewFlags {
  port: number;
  reference?: string;
}

const WHAT_VIEW_SHOWS = 'give a trace file (sbeval level --trace, sbeval record, sbeval run --traces), a level .xml or a competition folder';

/**
 * What `sbeval view <target>` shows, checked before the server starts: a target it cannot show is an
 * error in the terminal (exit 2), not a page that only says so in the browser. A trace is read once
 * here (the page asks for it at once anyway); a level's XML is read and parsed (it is simulated when
 * the page asks).
 */
async function sourceFor(target: string): Promise<ViewerSource> {
  const path = resolve(target);
  if (!existsSync(path)) throw new SbevalError('input', `${target} does not exist`, WHAT_VIEW_SHOWS);
  if (statSync(path).isDirectory()) {
    // A team or stage folder would be listed as a competition of odd "teams": refuse it as every command does.
    checkCompetitionRoot(path, { command: 'view' });
    return competitionSource(path);
  }
  if (extname(path).toLowerCase() === '.xml') {
    const xml = await readFile(path, 'utf8');
    try {
      parseLevelXml(xml);
    } catch (error) {
      if (!(error instanceof LevelXmlError)) throw error;
      throw new SbevalError('input', `${target} is not a Science Birds level: ${error.message}`, WHAT_VIEW_SHOWS);
    }
    // Simulated in the viewer's worker, within the engine's simulation budget (viewer/server.ts).
    return { kind: 'trial', title: basename(path), load: (viewer) => viewer.simulate(basename(path, '.xml'), xml) };
  }
  const trial = await openTrace(path, target);
  return { kind: 'trial', title: basename(path), load: () => Promise.resolve(trial) };
}

async function openTrace(path: string, target: string) {
  try {
    return await openTraceFile(path);
  } catch (error) {
    const reason = describeError(error).replace(`${path}: `, '');
    const drop =
      extname(path).toLowerCase() === '.txt'
        ? '; a .txt drop program or LLM response: sbeval level <file> --trace <out.sbtrace>, then sbeval view <out.sbtrace>'
        : '';
    throw new SbevalError('input', `${target} is not a trace sbeval view can show: ${reason}`, `${WHAT_VIEW_SHOWS}${drop}`);
  }
}

export function registerViewCommands(program: Command): void {
  program
    .command('view')
    .description(COMMAND_SUMMARIES.view)
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
      const server = await startViewer({
        source: await sourceFor(target),
        port: flags.port,
        ...(flags.reference ? { reference: resolve(flags.reference) } : {}),
      });
      await serveUntilStopped(`sbeval viewer: ${server.url}`, server);
    });
}
