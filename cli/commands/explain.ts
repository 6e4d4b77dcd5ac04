import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import type { Command } from 'commander';
import { TraceFormatError } from '../../bridge/trace.js';
import { SbevalError } from '../../core/errors.js';
import { formatExplanation } from '../../scoring/explain/format.js';
import { explainFrames } from '../../scoring/explain.js';
import { simulateTrialData } from '../../viewer/simulate-trial.js';
import { openTraceFile } from '../../viewer/trace-source.js';
import type { TrialData } from '../../viewer/trial.js';
import { option, wholeNumber } from '../options.js';
import { COMMAND_SUMMARIES } from './summaries.js';

/** `sbeval explain <trace | level.xml>`: why a level collapsed, as a readable timeline or JSON. */
interface ExplainFlags {
  json?: boolean;
  sampleEvery: number;
  maxTimeline: number;
}

/** A trace file, or a level `.xml` run once (trial 1) on the headless engine. */
async function loadTrialFor(target: string): Promise<TrialData> {
  const path = resolve(target);
  if (!existsSync(path)) throw new SbevalError('input', `${target} does not exist`, 'give a trace file (sbeval level --trace, sbeval record) or a level .xml');
  if (extname(path).toLowerCase() === '.xml') return simulateTrialData(basename(path, '.xml'), await readFile(path, 'utf8'), { capture: false });
  try {
    return await openTraceFile(path);
  } catch (error) {
    if (error instanceof SbevalError && !(error instanceof TraceFormatError)) throw error;
    // A `.txt` is a drop program or an LLM response more often than a misnamed trace: say so, and the way from it to a trace.
    const what = extname(path).toLowerCase() === '.txt' ? ' (a .txt is a drop program or an LLM response, not a trace)' : '';
    throw new SbevalError(
      'input',
      `${target} is not a trace explain can read${what}: ${(error as Error).message}`,
      'explain takes a trace file (sbeval level --trace, sbeval record, simulate --traces) or a level .xml; from a .txt: sbeval level <file> --trace <out.sbtrace>, then sbeval explain <out.sbtrace>',
    );
  }
}

export function registerExplainCommands(program: Command): void {
  program
    .command('explain')
    .description(COMMAND_SUMMARIES.explain)
    .argument('<trace>', 'a trace file (sbeval level --trace, sbeval record, simulate --traces), or a level .xml (simulated once, headless)')
    .option('--json', 'print the full analysis as JSON (per-block series, reasons, contacts, timeline)')
    .addOption(
      option('--sample-every <steps>', 'keep every n-th step of the displacement series in --json (5 steps = 0.1 s)', { parse: wholeNumber(1), default: 5 }),
    )
    .addOption(option('--max-timeline <n>', 'timeline lines in the text output', { parse: wholeNumber(1), default: 80 }))
    .addHelpText(
      'after',
      `
The verdict per block is the official rule's (centre displacement ≥ 0.1 between its position on
step 1, where the evaluator reads the start positions, and its last position read in the 10-s window,
step 503; scoring/stability.ts). Displacements are measured from the same start, so they are the
numbers sbeval level prints. "Onset" is the first step a block clearly
moves (shift ≥ 0.02, turn ≥ 2°, the threshold, or death); the first mover is the block whose motion
started the failure. Reasons: overhang (load past its support's edge), unsupported (nothing under it),
support-moved/-destroyed, struck/pushed by a moving block, destroyed by impacts, explosion, settled
(sank into the start gaps), slid, dragged, out-of-world.

Example: sbeval level my.xml --trace my.sbtrace.gz && sbeval explain my.sbtrace.gz`,
    )
    .action(async (target: string, flags: ExplainFlags) => {
      const trial = await loadTrialFor(target);
      const explanation = explainFrames(
        { levelId: trial.levelId, dt: trial.dt, bodies: trial.bodies, frames: trial.frames, events: trial.events, windowSteps: trial.settings.windowSteps },
        { sampleEvery: flags.sampleEvery },
      );
      if (flags.json) process.stdout.write(`${JSON.stringify(explanation, null, 2)}\n`);
      else process.stdout.write(formatExplanation(explanation, { maxTimeline: flags.maxTimeline }));
    });
}
