import { InvalidArgumentError, Option, type Command } from 'commander';
import { extname, resolve } from 'node:path';
import { DEFAULT_SIMULATION, type DamageFormula } from '../../../bridge/engine.js';
import { DEFAULTS } from '../../config/index.js';
import { SimulationBudgetError } from '../../../bridge/headless/budget.js';
import { HeadlessEngine } from '../../../bridge/headless/engine.js';
import { writeFileAtomic } from '../../layout/atomic.js';
import { formatSummary } from '../../layout/stage-log.js';
import { responseToLevel, convertProgram } from '../../../levels/pipeline.js';
import { SbevalError } from '../../../core/errors.js';
import type { ProgressSink } from '../../progress/types.js';
import { engineRunner, evaluateLevel, ruleFrom, runSimulateStage } from '../../stages/simulate.js';
import { runRobustnessStage, type RobustnessSummary } from '../../stages/robustness.js';
import { formatMovingRange, formatStableShare } from '../../../scoring/robustness.js';
import { describeSteps } from '../../../scoring/stability.js';
import { EVALUATOR_DT } from '../../../bridge/window.js';
import { runRecorded } from '../../../bridge/trace.js';
import { stageFilter } from '../../config/index.js';
import { readInputFile } from '../input.js';
import { stopOnInterrupt } from '../interrupt.js';
import { addSettingsOptions, commandSettings, intIn, type SharedFlags } from '../settings-options.js';
import { EXIT_CHECK_FAILED } from '../exit-codes.js';

/**
 * `sbeval simulate <root>` (the evaluator's batch stability + image runs over the competition layout)
 * and `sbeval level <file>` (one level, printed).
 */
function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
}

/** A live counter on a terminal's stderr, nothing when piped; notices always go to stderr. */
function terminalProgress(): ProgressSink {
  const live = process.stderr.isTTY === true;
  let total = 0;
  let done = 0;
  let last = 0;
  return {
    start(_stage, n) {
      total = n;
      done = 0;
    },
    tick(stage, outcome, label, detail) {
      done++;
      if (outcome === 'failed' && label) process.stderr.write(`${live ? '\r' : ''}${stage}: ${label} failed: ${detail ?? ''}\n`);
      const t = Date.now();
      if (live && (t - last > 100 || done === total)) {
        last = t;
        process.stderr.write(`\r${stage}: ${done}/${total}`);
      }
    },
    note(stage, message) {
      process.stderr.write(`${live && done > 0 ? '\n' : ''}${stage}: ${message}\n`);
    },
    end() {
      if (live && total > 0) process.stderr.write('\n');
    },
  };
}

interface SimulateFlags extends SharedFlags {
  /** `trials` here is the old spelling of `--sim-trials` (simulate takes no T). */
  rule: string;
  velocityThreshold?: number;
  rawImages?: boolean;
  force?: boolean;
  json?: boolean;
  robustness?: number;
}

interface LevelFlags {
  simTrials?: number;
  /** The old spelling of `--sim-trials`. */
  trials?: number;
  damage?: DamageFormula;
  rule: string;
  velocityThreshold?: number;
  json?: boolean;
  image?: string;
  raw?: string;
  prefix?: string;
  trace?: string;
}

/** A `.xml` level, or a `.txt` drop program / LLM response converted the official way. */
async function levelXmlFrom(file: string, prefix: string | undefined): Promise<string> {
  const text = await readInputFile(file, 'level');
  if (extname(file).toLowerCase() !== '.txt') return text;
  // The 2023 programs call ab_drop; later ones drop_block (the official default).
  const chosen = prefix ?? (text.includes('ab_drop(') && !text.includes('drop_block(') ? 'ab_drop' : undefined);
  const options = chosen ? { prefix: chosen } : {};
  if (text.includes('```')) {
    const result = responseToLevel(text, options);
    if (!result.ok) throw new SbevalError('input', `${file}: ${result.reason}`, result.stage === 'extract' ? 'the response has no code block with drop calls' : undefined);
    return result.xml;
  }
  const result = convertProgram(text, options);
  if (!result.ok) throw new SbevalError('input', `${file}: ${result.reason}`);
  if (result.calls.length === 0) throw new SbevalError('input', `${file}: no ${chosen ?? 'drop_block'}(...) calls found`, 'use --prefix ab_drop for 2023 programs');
  return result.xml;
}

function fmt(n: number): string {
  return n.toFixed(3);
}

/**
 * The physics options `simulate` and `level` share (one place for their defaults and help). `--trials`
 * was their name for the stability trials per level; it means T (trials per character) everywhere
 * else, so here it is now `--sim-trials`, and the old spelling is accepted with a note.
 */
function physicsOptions(command: Command): Command {
  return addSettingsOptions(command, ['simTrials', 'damage'])
    .addOption(new Option('--trials <n>', 'old spelling of --sim-trials').argParser(intIn(1, 3)).hideHelp())
    .option('--rule <rule>', 'stability rule: displacement (official: centre moved ≥ 0.1 in 10 s) or velocity (speed above a threshold in any frame)', 'displacement')
    .option('--velocity-threshold <units/s>', 'threshold of the velocity rule (default 0.5)', positiveNumber);
}

/** `--sim-trials`, or the old `--trials` with a note. */
function simTrialsOf(flags: { simTrials?: number | undefined; trials?: number | undefined }): number | undefined {
  if (flags.trials === undefined) return flags.simTrials;
  process.stderr.write('sbeval: --trials on simulate and level is now --sim-trials (stability trials per level; --trials means T, the trials per character, on every other command)\n');
  return flags.simTrials ?? flags.trials;
}

export function registerSimulateCommands(program: Command): void {
  const simulate = physicsOptions(
    program
      .command('simulate')
      .description('levels → stability + images: the Science Birds evaluator (stability of up to 3 trials, black-on-white image), headless')
      .argument('<root>', 'competition folder (<root>/<team>/levels/<C>/<team>_<C>_<n>.xml)'),
  );
  addSettingsOptions(simulate, ['rules', 'engine', 'workers', 'team', 'chars', 'robustness'])
    .option('--raw-images', 'also write <name>_raw.png (flat colours per material, before the OCR swap)')
    .option('--force', 'ignore the cache and run every level again')
    .option('--json', 'print the summary as JSON')
    .addHelpText(
      'after',
      `
With --robustness N, every level with a verdict is run N more times, one trial each, perturbed the way
Unity's own runs differ; result/robustness.csv lists per level the stable runs and the moving-count
spread, and a verdict is fragile when fewer than 90% of the runs agree with it.

Writes <root>/<team>/stability/<C>.json in the evaluator's exact format and
<root>/<team>/images/<C>/<name>.png (1024×1024, black on white). Finished levels are cached under
<root>/.sbeval/simulate/ with the XML hash and a settings digest, so an interrupted run resumes and a
second run changes nothing. A level that cannot be loaded is logged with its reason in
<root>/logs/stability_log_<time>.txt and left out of the JSON. Exit code 0 when every level was
simulated or failed with a verdict, 1 when some could not be simulated (engine failures; run again),
130 when stopped by Ctrl-C.

Settings (stability trials, damage, engine, workers, teams, characters) come from the flags, then the
root's sbeval.config.yaml, then the defaults, as for sbeval run. Ctrl-C stops after the levels in
flight (again to quit at once); finished levels are kept.

Example: sbeval simulate examples/competition --chars I,L --workers 2`,
    )
    .action(async (root: string, flags: SimulateFlags) => {
      const { trials: _legacy, ...shared } = flags;
      const settings = commandSettings('simulate', root, { ...shared, simTrials: simTrialsOf(flags) });
      const controller = new AbortController();
      const interrupt = stopOnInterrupt('simulate', () => controller.abort());
      const summaries = [];
      try {
        for (const competition of settings.competitions) {
          if (controller.signal.aborted) break;
          // The perturbed runs see the levels exactly as the official simulation does.
          const stage = {
            root: competition.root,
            filter: stageFilter(settings),
            trials: settings.simulationTrials,
            damage: settings.damage,
            rule: ruleFrom(flags.rule, flags.velocityThreshold),
            engine: settings.engine,
            rawImages: flags.rawImages === true,
            force: flags.force === true,
            workers: settings.workers,
          };
          const summary = await runSimulateStage({ ...stage, signal: controller.signal }, terminalProgress());
          const robustness =
            settings.robustness === undefined || controller.signal.aborted
              ? undefined
              : await runRobustnessStage({ ...stage, runs: settings.robustness }, terminalProgress());
          summaries.push({ model: competition.model, summary, robustness });
        }
      } finally {
        interrupt.finish();
      }
      if (flags.json) {
        const records = summaries.map(({ model, summary: { reasons, ...rest }, robustness }) => ({
          ...(model === undefined ? {} : { model }),
          ...rest,
          reasons: Object.fromEntries(reasons),
          ...(robustness ? { robustness: robustnessJson(robustness) } : {}),
        }));
        process.stdout.write(`${JSON.stringify(records.length === 1 ? records[0] : records, null, 2)}\n`);
      } else {
        for (const { model, summary, robustness } of summaries) {
          process.stdout.write(`${model === undefined ? '' : `[${model}] `}${formatSummary(summary)}\n  stability files: ${summary.characters.length}\n`);
          if (robustness) process.stdout.write(`${formatRobustness(robustness)}\n`);
        }
      }
      if (interrupt.stoppedBy) return; // exit 130, set by the interrupt
      const noRobustness = summaries.reduce((n, s) => n + (s.robustness?.failed.length ?? 0), 0);
      if (noRobustness > 0) {
        process.stderr.write(`simulate: ${noRobustness} level(s) have no robustness result (engine failures); run again to retry them\n`);
        process.exitCode = EXIT_CHECK_FAILED;
      }
      const unfinished = summaries.reduce((n, s) => n + s.summary.unfinished, 0);
      if (unfinished > 0) {
        // Engine failures are not verdicts: exit 1 so nobody publishes an incomplete stage (issue 12).
        process.stderr.write(`simulate: ${unfinished} level(s) could not be simulated (engine failures, see the log); run again to retry them\n`);
        process.exitCode = EXIT_CHECK_FAILED;
      }
    });

  physicsOptions(
    program
      .command('level')
      .description('simulate one level and print its blocks, moving blocks and stability score')
      .argument('<file>', 'a level .xml, or a .txt drop program / LLM response (converted the official way)'),
  )
    .option('--prefix <name>', 'function name of the drop calls in a .txt (drop_block or ab_drop)')
    .option('--image <out.png>', 'write the black-on-white image (trial 1)')
    .option('--raw <out.png>', 'write the flat-colour _raw image (trial 1)')
    .option('--trace <out>', 'record trial 1 (frames, events, capture) to a trace file for sbeval explain/view (gzip when it ends in .gz)')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      `
Prints every counted object (blocks, pigs, TNT) with its start and last position and whether it
moved (≥ 0.1 units), then every trial's counts and the score. The table is the last trial's (the
evaluator reports the last trial's counts); with --trace it is trial 1's, the trial the trace records.
A level over the simulation budget (the one simulate and run use) prints its reason and exits 1.

Example: sbeval level my_level.xml --image my_level.png`,
    )
    .action(async (file: string, flags: LevelFlags) => {
      const xml = await levelXmlFrom(resolve(file), flags.prefix);
      const engine = new HeadlessEngine();
      const plain = engineRunner(engine);
      const tracePath = flags.trace === undefined ? undefined : resolve(flags.trace);
      // --trace records trial 1 (the image trial) as it runs.
      const runner: typeof plain = tracePath ? (job, makeSink) => (job.settings.trial === 1 ? runRecorded(engine, job, tracePath, makeSink()) : plain(job, makeSink)) : plain;
      let result;
      try {
        result = await evaluateLevel(runner, file, xml, {
          trials: simTrialsOf(flags) ?? DEFAULTS.simulationTrials,
          damage: flags.damage ?? DEFAULT_SIMULATION.damage,
          rule: ruleFrom(flags.rule, flags.velocityThreshold),
          capture: flags.image !== undefined || flags.raw !== undefined || tracePath !== undefined,
          rawImages: flags.raw !== undefined,
        });
      } catch (error) {
        if (!(error instanceof SimulationBudgetError)) throw error;
        // The level failed (the same budget as simulate and run): a verdict, not a usage error.
        const failure = { file, failed: error.message, step: error.step, cost: error.cost };
        process.stdout.write(flags.json ? `${JSON.stringify(failure, null, 2)}\n` : `${file}\nfailed: ${error.message} (the cost reached ${error.cost} at step ${error.step})\n`);
        process.exitCode = EXIT_CHECK_FAILED;
        return;
      } finally {
        await engine.close();
      }
      if (flags.image && result.png) await writeFileAtomic(resolve(flags.image), result.png);
      if (flags.raw && result.raw) await writeFileAtomic(resolve(flags.raw), result.raw);
      // The table shows one trial: the one --trace recorded (trial 1), else the last (whose counts the evaluator reports).
      const shownTrial = tracePath ? 1 : result.trials.length;
      const moving = new Set(result.trials[shownTrial - 1]?.moving ?? []);
      const measure = result.measures[shownTrial - 1]!;
      const objects = measure.objects
        .filter((d) => d.counted)
        .map((d) => {
          const body = result.bodies[d.id];
          return { id: d.id, kind: body?.kind, type: body?.type, material: body?.material ?? null, start: d.start, last: d.last, lastStep: d.lastStep, displacement: d.displacement, moving: moving.has(d.id), destroyed: d.removed };
        });
      // The step numbers of the trial shown: the same ones `explain` and the viewer print (scoring/stability.ts).
      const steps = { stream: measure.streamSteps, windowStart: measure.windowStart, windowEnd: measure.windowEnd };
      if (flags.json) {
        process.stdout.write(
          `${JSON.stringify({ file, score: result.stability.score, startingObjects: result.stability.startingObjects, movingObjects: result.stability.movingObjects, trials: result.trials.map((t) => ({ score: t.score, movingObjects: t.movingObjects, moving: t.moving })), objectsOfTrial: shownTrial, steps, objects, ...(tracePath ? { trace: tracePath } : {}) }, null, 2)}\n`,
        );
        return;
      }
      const row = (cells: string[]) => `  ${cells[0]!.padStart(3)}  ${cells[1]!.padEnd(12)}  ${cells[2]!.padEnd(8)}  ${cells[3]!.padEnd(18)}  ${cells[4]!.padEnd(18)}  ${cells[5]!.padStart(6)}  ${cells[6]}`;
      const which = tracePath ? 'trial 1, the trial the trace records' : result.trials.length === 1 ? 'trial 1, the only trial' : `trial ${shownTrial}, the last: the evaluator reports its counts`;
      const lines = [`${file} — objects of ${which}`, `  ${describeSteps(measure, EVALUATOR_DT)}`, row(['id', 'type', 'material', 'start (x, y)', 'last (x, y)', 'moved', 'verdict'])];
      for (const o of objects) {
        const verdict = o.moving ? (o.destroyed ? 'MOVING (destroyed)' : 'MOVING') : 'stable';
        lines.push(row([String(o.id), String(o.type), String(o.material ?? '-'), `(${fmt(o.start[0])}, ${fmt(o.start[1])})`, `(${fmt(o.last[0])}, ${fmt(o.last[1])})`, fmt(o.displacement), verdict]));
      }
      lines.push(`  trials: ${result.trials.map((t, i) => `#${i + 1} ${t.movingObjects}/${t.startingObjects} moving, score ${t.score}`).join('; ')}`);
      lines.push(`score ${result.stability.score} (${result.stability.movingObjects} of ${result.stability.startingObjects} moving)`);
      if (tracePath) lines.push(`trace (trial 1): ${tracePath}  — sbeval explain ${tracePath} / sbeval view ${tracePath}`);
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}

/** The robustness lines of `simulate --robustness`: counts, then every fragile verdict. */
function formatRobustness(r: RobustnessSummary): string {
  const lines = [
    `  robustness: ${r.runs} perturbed runs per level, ${r.levels.length} levels (${r.computed} run now), ${r.fragile.length} fragile verdict(s); result/robustness.csv`,
  ];
  if (r.withoutVerdict > 0) lines.push(`  ${r.withoutVerdict} level(s) without a verdict were not perturbed`);
  for (const f of r.fragile) {
    lines.push(`  fragile: ${f.team}/${f.character}/${f.base}  official ${f.robustness.officialStable ? 'stable' : 'moving'}, stable in ${formatStableShare(f.robustness)} of the runs, moving ${formatMovingRange(f.robustness)}`);
  }
  for (const failure of r.failed) lines.push(`  not perturbed (engine failure): ${failure}`);
  return lines.join('\n');
}

function robustnessJson(r: RobustnessSummary): Record<string, unknown> {
  return {
    runs: r.runs,
    levels: r.levels.length,
    computed: r.computed,
    withoutVerdict: r.withoutVerdict,
    failed: r.failed,
    fragile: r.fragile.map((f) => ({ team: f.team, letter: f.character, level: f.base, ...f.robustness })),
  };
}
