import { InvalidArgumentError, type Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import type { DamageFormula } from '../../../bridge/engine.js';
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
import { OFFICIAL_TRIALS } from '../../../scoring/stability.js';
import { defaultEngineCount, ENGINE_KINDS } from '../../../bridge/engines.js';
import { runRecorded } from '../../../bridge/trace.js';

/**
 * `sbeval simulate <root>` (the evaluator's batch stability + image runs over the competition layout)
 * and `sbeval level <file>` (one level, printed).
 */
const DAMAGE: readonly DamageFormula[] = ['contact-point', 'body'];

function collectList(value: string, previous: string[]): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim()).filter((v) => v.length > 0)];
}

function intIn(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`expected an integer from ${min} to ${max}`);
    return n;
  };
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
}

function damageFormula(value: string): DamageFormula {
  if (!(DAMAGE as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${DAMAGE.join(', ')}`);
  return value as DamageFormula;
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

interface SimulateFlags {
  trials: number;
  damage: DamageFormula;
  rule: string;
  velocityThreshold?: number;
  workers?: number;
  engine: string;
  rawImages?: boolean;
  team: string[];
  char: string[];
  force?: boolean;
  json?: boolean;
  robustness?: number;
}

interface LevelFlags {
  trials: number;
  damage: DamageFormula;
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
  const text = await readFile(file, 'utf8');
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

/** The physics options `simulate` and `level` share (one place for their defaults and help). */
function physicsOptions(command: Command): Command {
  return command
    .option('--trials <n>', 'trials per level, Unity bookkeeping: stop at 1.0, score = max, counts from the last trial', intIn(1, 3), OFFICIAL_TRIALS)
    .option('--damage <formula>', 'damage at contact begin: contact-point (relative velocity at the contact points, default) or body (linear velocities)', damageFormula, 'contact-point')
    .option('--rule <rule>', 'stability rule: displacement (official: centre moved ≥ 0.1 in 10 s) or velocity (speed above a threshold in any frame)', 'displacement')
    .option('--velocity-threshold <units/s>', 'threshold of the velocity rule (default 0.5)', positiveNumber);
}

export function registerSimulateCommands(program: Command): void {
  physicsOptions(
    program
      .command('simulate')
      .description('levels → stability + images: the Science Birds evaluator (stability of up to 3 trials, black-on-white image), headless')
      .argument('<root>', 'competition folder (<root>/<team>/levels/<C>/<team>_<C>_<n>.xml)'),
  )
    .option('--workers <n>', `engines in parallel (default: cores = ${defaultEngineCount()})`, intIn(1, 1024))
    .option('--engine <kind>', `engine: ${ENGINE_KINDS.join(' | ')} (headless-ws: sbeval engine processes over WebSocket; unity: Science Birds editors, see unity-plugin/README.md)`, 'headless')
    .option('--raw-images', 'also write <name>_raw.png (flat colours per material, before the OCR swap)')
    .option('--team <names>', 'only these teams (comma-separated, repeatable)', collectList, [])
    .option('--char <letters>', 'only these characters (comma-separated, repeatable)', collectList, [])
    .option('--force', 'ignore the cache and run every level again')
    .option('--robustness <n>', 'also re-simulate every level N times under tiny perturbations (creation order, positions ±1e-4, warm start) and flag fragile verdicts (headless engine; the official verdict is unchanged)', intIn(1, 10_000))
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
simulated or failed with a verdict, 1 when some could not be simulated (engine failures; run again).

Example: sbeval simulate examples/competition --char I,L --workers 2`,
    )
    .action(async (root: string, flags: SimulateFlags) => {
      if (flags.robustness !== undefined && flags.engine !== 'headless') {
        throw new SbevalError('config', `--robustness needs the headless engine (the ${flags.engine} engine cannot perturb a run)`, 'use --engine headless');
      }
      const summary = await runSimulateStage(
        {
          root,
          filter: { teams: flags.team, characters: flags.char },
          trials: flags.trials,
          damage: flags.damage,
          rule: ruleFrom(flags.rule, flags.velocityThreshold),
          engine: flags.engine,
          rawImages: flags.rawImages === true,
          force: flags.force === true,
          ...(flags.workers !== undefined ? { workers: flags.workers } : {}),
        },
        terminalProgress(),
      );
      const robustness =
        flags.robustness === undefined
          ? undefined
          : await runRobustnessStage(
              {
                root,
                runs: flags.robustness,
                filter: { teams: flags.team, characters: flags.char },
                trials: flags.trials,
                damage: flags.damage,
                rule: ruleFrom(flags.rule, flags.velocityThreshold),
                engine: flags.engine,
                rawImages: flags.rawImages === true,
                force: flags.force === true,
                ...(flags.workers !== undefined ? { workers: flags.workers } : {}),
              },
              terminalProgress(),
            );
      if (flags.json) {
        const { reasons, ...rest } = summary;
        process.stdout.write(`${JSON.stringify({ ...rest, reasons: Object.fromEntries(reasons), ...(robustness ? { robustness: robustnessJson(robustness) } : {}) }, null, 2)}\n`);
      } else {
        process.stdout.write(`${formatSummary(summary)}\n  stability files: ${summary.characters.length}\n`);
        if (robustness) process.stdout.write(`${formatRobustness(robustness)}\n`);
      }
      if (robustness && robustness.failed.length > 0) {
        process.stderr.write(`simulate: ${robustness.failed.length} level(s) have no robustness result (engine failures); run again to retry them\n`);
        process.exitCode = 1;
      }
      if (summary.unfinished > 0) {
        // Engine failures are not verdicts: exit 1 so nobody publishes an incomplete stage (issue 12).
        process.stderr.write(`simulate: ${summary.unfinished} level(s) could not be simulated (engine failures, see the log); run again to retry them\n`);
        process.exitCode = 1;
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
moved (≥ 0.1 units; the counts are the last trial's, as the evaluator reports them), then the score.
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
          trials: flags.trials,
          damage: flags.damage,
          rule: ruleFrom(flags.rule, flags.velocityThreshold),
          capture: flags.image !== undefined || flags.raw !== undefined || tracePath !== undefined,
          rawImages: flags.raw !== undefined,
        });
      } catch (error) {
        if (!(error instanceof SimulationBudgetError)) throw error;
        // The level failed (the same budget as simulate and run): a verdict, not a usage error.
        const failure = { file, failed: error.message, step: error.step, cost: error.cost };
        process.stdout.write(flags.json ? `${JSON.stringify(failure, null, 2)}\n` : `${file}\nfailed: ${error.message} (the cost reached ${error.cost} at step ${error.step})\n`);
        process.exitCode = 1;
        return;
      } finally {
        await engine.close();
      }
      if (flags.image && result.png) await writeFileAtomic(resolve(flags.image), result.png);
      if (flags.raw && result.raw) await writeFileAtomic(resolve(flags.raw), result.raw);
      const last = result.trials.at(-1);
      const moving = new Set(last?.moving ?? []);
      const objects = result.details.map((d) => {
        const body = result.bodies[d.id];
        return { id: d.id, kind: body?.kind, type: body?.type, material: body?.material ?? null, start: d.start, last: d.last, displacement: d.displacement, moving: moving.has(d.id), destroyed: d.removed };
      });
      if (flags.json) {
        process.stdout.write(
          `${JSON.stringify({ file, score: result.stability.score, startingObjects: result.stability.startingObjects, movingObjects: result.stability.movingObjects, trials: result.trials.map((t) => ({ score: t.score, movingObjects: t.movingObjects, moving: t.moving })), objects, ...(tracePath ? { trace: tracePath } : {}) }, null, 2)}\n`,
        );
        return;
      }
      const row = (cells: string[]) => `  ${cells[0]!.padStart(3)}  ${cells[1]!.padEnd(12)}  ${cells[2]!.padEnd(8)}  ${cells[3]!.padEnd(18)}  ${cells[4]!.padEnd(18)}  ${cells[5]!.padStart(6)}  ${cells[6]}`;
      const lines = [file, row(['id', 'type', 'material', 'start (x, y)', 'last (x, y)', 'moved', 'verdict'])];
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
