import { extname, resolve } from 'node:path';
import type { Command } from 'commander';
import { type DamageFormula, DEFAULT_SIMULATION } from '../../bridge/engine.js';
import { SimulationBudgetError } from '../../bridge/headless/budget.js';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { EVALUATOR_DT } from '../../bridge/window.js';
import { SbevalError } from '../../core/errors.js';
import { CODE_NOT_FOUND } from '../../levels/extract.js';
import { convertProgram, responseToLevel } from '../../levels/pipeline.js';
import { DEFAULTS } from '../../orchestrator/config/index.js';
import { writeFileAtomic } from '../../orchestrator/layout/atomic.js';
import { evaluateLevel, type LevelEvaluation, traceOfTrialOne } from '../../orchestrator/machine/index.js';
import { EnginePool, PoolJobError } from '../../orchestrator/pool/index.js';
import { ruleFrom } from '../../orchestrator/stages/simulate.js';
import { describeSteps } from '../../scoring/stability.js';
import { EXIT_CHECK_FAILED } from '../exit-codes.js';
import { readInputFile } from '../input.js';
import { option } from '../options.js';
import { physicsOptions, simTrialsOf } from './physics-options.js';
import { COMMAND_SUMMARIES } from './summaries.js';

/** `sbeval level <file>`: one level simulated on the headless engine, its objects and score printed. */
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

type Evaluation = LevelEvaluation;

/** A `.xml` level, or a `.txt` drop program / LLM response converted the official way. */
async function levelXmlFrom(file: string, prefix: string | undefined): Promise<string> {
  const text = await readInputFile(file, 'level');
  if (extname(file).toLowerCase() !== '.txt') return text;
  // The 2023 programs call ab_drop; later ones drop_block (the official default).
  const chosen = prefix ?? (text.includes('ab_drop(') && !text.includes('drop_block(') ? 'ab_drop' : undefined);
  const options = chosen ? { prefix: chosen } : {};
  if (text.includes('```')) {
    const result = responseToLevel(text, options);
    if (!result.ok)
      throw new SbevalError('input', `${file}: ${result.reason}`, result.stage === 'extract' ? 'the response has no code block with drop calls' : undefined);
    return result.xml;
  }
  const result = convertProgram(text, options);
  if (!result.ok) throw new SbevalError('input', `${file}: ${result.reason}`);
  // The official wording of a response without a drop call (levels/extract.ts), with what was looked for.
  if (result.calls.length === 0)
    throw new SbevalError('input', `${file}: ${CODE_NOT_FOUND} (no ${chosen ?? 'drop_block'}(...) call)`, 'use --prefix ab_drop for 2023 programs');
  return result.xml;
}

/** Simulates the level (trial 1 recorded with --trace); a level over the simulation budget is printed as a failure (exit 1) and gives undefined. */
async function simulateLevel(file: string, flags: LevelFlags, tracePath: string | undefined): Promise<Evaluation | undefined> {
  const xml = await levelXmlFrom(resolve(file), flags.prefix);
  // One headless engine in a pool, as `simulate` and `run` simulate a level.
  const pool = new EnginePool({ engines: [new HeadlessEngine()] });
  try {
    return await evaluateLevel(pool, file, xml, {
      trials: simTrialsOf(flags) ?? DEFAULTS.simulationTrials,
      damage: flags.damage ?? DEFAULT_SIMULATION.damage,
      rule: ruleFrom(flags.rule, flags.velocityThreshold),
      capture: flags.image !== undefined || flags.raw !== undefined || tracePath !== undefined,
      rawImages: flags.raw !== undefined,
      ...(tracePath ? { tee: traceOfTrialOne(tracePath) } : {}),
    });
  } catch (thrown) {
    const error = thrown instanceof PoolJobError ? thrown.cause : thrown;
    if (!(error instanceof SimulationBudgetError)) throw thrown;
    // The level failed (the same budget as simulate and run): a verdict, not a usage error.
    const failure = { file, failed: error.message, step: error.step, cost: error.cost };
    process.stdout.write(
      flags.json ? `${JSON.stringify(failure, null, 2)}\n` : `${file}\nfailed: ${error.message} (the cost reached ${error.cost} at step ${error.step})\n`,
    );
    process.exitCode = EXIT_CHECK_FAILED;
    return undefined;
  } finally {
    await pool.close();
  }
}

/** The counted objects of the trial shown: the one --trace recorded (trial 1), else the last (whose counts the evaluator reports). */
function shownObjects(result: Evaluation, shownTrial: number) {
  const moving = new Set(result.trials[shownTrial - 1]?.moving ?? []);
  const measure = result.measures[shownTrial - 1]!;
  const objects = measure.objects
    .filter((d) => d.counted)
    .map((d) => {
      const body = result.bodies[d.id];
      return {
        id: d.id,
        kind: body?.kind,
        type: body?.type,
        material: body?.material ?? null,
        start: d.start,
        last: d.last,
        lastStep: d.lastStep,
        displacement: d.displacement,
        moving: moving.has(d.id),
        destroyed: d.removed,
      };
    });
  return { measure, objects };
}

const fmt = (n: number): string => n.toFixed(3);

function levelJson(file: string, result: Evaluation, shownTrial: number, tracePath: string | undefined): string {
  const { measure, objects } = shownObjects(result, shownTrial);
  // The step numbers of the trial shown: the same ones `explain` and the viewer print (scoring/stability.ts).
  const steps = { stream: measure.streamSteps, windowStart: measure.windowStart, windowEnd: measure.windowEnd };
  const trials = result.trials.map((t) => ({ score: t.score, movingObjects: t.movingObjects, moving: t.moving }));
  return JSON.stringify(
    {
      file,
      score: result.stability.score,
      startingObjects: result.stability.startingObjects,
      movingObjects: result.stability.movingObjects,
      trials,
      objectsOfTrial: shownTrial,
      steps,
      objects,
      ...(tracePath ? { trace: tracePath } : {}),
    },
    null,
    2,
  );
}

function levelText(file: string, result: Evaluation, shownTrial: number, tracePath: string | undefined): string {
  const { measure, objects } = shownObjects(result, shownTrial);
  const row = (cells: string[]) =>
    `  ${cells[0]!.padStart(3)}  ${cells[1]!.padEnd(12)}  ${cells[2]!.padEnd(8)}  ${cells[3]!.padEnd(18)}  ${cells[4]!.padEnd(18)}  ${cells[5]!.padStart(6)}  ${cells[6]}`;
  const which = tracePath
    ? 'trial 1, the trial the trace records'
    : result.trials.length === 1
      ? 'trial 1, the only trial'
      : `trial ${shownTrial}, the last: the evaluator reports its counts`;
  const lines = [
    `${file} — objects of ${which}`,
    `  ${describeSteps(measure, EVALUATOR_DT)}`,
    row(['id', 'type', 'material', 'start (x, y)', 'last (x, y)', 'moved', 'verdict']),
  ];
  for (const o of objects) {
    const verdict = o.moving ? (o.destroyed ? 'MOVING (destroyed)' : 'MOVING') : 'stable';
    lines.push(
      row([
        String(o.id),
        String(o.type),
        String(o.material ?? '-'),
        `(${fmt(o.start[0])}, ${fmt(o.start[1])})`,
        `(${fmt(o.last[0])}, ${fmt(o.last[1])})`,
        fmt(o.displacement),
        verdict,
      ]),
    );
  }
  lines.push(`  trials: ${result.trials.map((t, i) => `#${i + 1} ${t.movingObjects}/${t.startingObjects} moving, score ${t.score}`).join('; ')}`);
  lines.push(`score ${result.stability.score} (${result.stability.movingObjects} of ${result.stability.startingObjects} moving)`);
  if (tracePath) lines.push(`trace (trial 1): ${tracePath}  — sbeval explain ${tracePath} / sbeval view ${tracePath}`);
  return lines.join('\n');
}

async function levelAction(file: string, flags: LevelFlags): Promise<void> {
  const tracePath = flags.trace === undefined ? undefined : resolve(flags.trace);
  const result = await simulateLevel(file, flags, tracePath);
  if (!result) return;
  if (flags.image && result.png) await writeFileAtomic(resolve(flags.image), result.png);
  if (flags.raw && result.raw) await writeFileAtomic(resolve(flags.raw), result.raw);
  const shownTrial = tracePath ? 1 : result.trials.length;
  process.stdout.write(`${flags.json ? levelJson(file, result, shownTrial, tracePath) : levelText(file, result, shownTrial, tracePath)}\n`);
}

export function registerLevelCommand(program: Command): void {
  physicsOptions(
    program
      .command('level')
      .description(COMMAND_SUMMARIES.level)
      .argument('<file>', 'a level .xml, or a .txt drop program / LLM response (converted the official way)'),
  )
    .addOption(
      option('--prefix <name>', 'function name of the drop calls in a .txt (drop_block or ab_drop)', {
        defaultText: 'ab_drop when the file calls only ab_drop, else drop_block',
      }),
    )
    .addOption(option('--image <out.png>', 'write the black-on-white image (trial 1)'))
    .addOption(option('--raw <out.png>', 'write the flat-colour _raw image (trial 1)'))
    .addOption(option('--trace <out>', 'record trial 1 (frames, events, capture) to a trace file for sbeval explain/view (gzip when it ends in .gz)'))
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
    .action(levelAction);
}
