import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Engine } from '../../bridge/engine.js';
import { createEngines, defaultEngineCount } from '../../bridge/engines.js';
import { SbevalError } from '../../core/errors.js';
import { loadReference, REFERENCE_LEVELS } from '../../orchestrator/stages/agreement.js';
import { CALIBRATION_THRESHOLDS, type Calibration, calibrationMarkdown, runCalibration } from '../../orchestrator/stages/calibrate.js';
import { loadRuler, type Ruler, type RulerVerdict, readEvaluatorResults, rulerMarkdown, rulerTracks, rulerVerdict } from '../../orchestrator/stages/ruler.js';
import { option, wholeNumber } from '../options.js';
import { startUnityFleet, unityEditorOption, unityProjectOption } from '../unity-fleet.js';

/**
 * `sbeval unity calibrate`: the instrument for an organizer's Unity install. With `--unity` and
 * `--project`, the plugin in a real editor against the evaluator's reference results and against the
 * headless engine step by step (orchestrator/stages/calibrate.ts); with `--evaluator`, the official
 * evaluator's own results for the timing-ruler levels against every read window (stages/ruler.ts).
 * Either or both; exit 0 only when every part agrees with bridge/window.ts and the thresholds.
 */

interface CalibrateFlags {
  unity?: string;
  project?: string;
  evaluator?: string;
  reference?: string;
  instances: number;
  workers?: number;
  logDir?: string;
  connectTimeout: number;
  maxRestarts: number;
  allLevels?: boolean;
  json?: boolean;
}

const log = (line: string): void => {
  process.stderr.write(`unity: ${line}\n`);
};

async function calibrateUnity(flags: CalibrateFlags & { unity: string; project: string }, ruler: Ruler): Promise<Calibration> {
  const levels = loadReference(flags.reference ? resolve(flags.reference) : REFERENCE_LEVELS);
  log(`${levels.length} reference levels and ${ruler.levels.length} ruler levels; starting ${flags.instances} Unity instance(s)`);
  const fleet = await startUnityFleet(flags, log);
  let headless: Engine[] = [];
  try {
    for (const engine of fleet.engines)
      log(`${engine.id} ready: ${engine.identity.kind} ${engine.identity.version} (${engine.identity.description}), log ${engine.logFile}`);
    headless = await createEngines('headless', flags.workers ?? defaultEngineCount());
    const restartMs = flags.connectTimeout * 1000;
    let last = 0;
    const calibration = await runCalibration({
      levels,
      ruler,
      unityEngines: fleet.engines,
      headlessEngines: headless,
      unityPool: { maxAttempts: 3, stallMs: restartMs + 60_000, jobTimeoutMs: restartMs + 300_000 },
      onLevel: (engine, done, total) => {
        const now = Date.now();
        if (done === total || now - last > 5_000) {
          last = now;
          log(`${engine}: ${done}/${total} levels`);
        }
      },
    });
    log(`logs in ${fleet.logDir}`);
    return calibration;
  } finally {
    await Promise.all(headless.map((e) => e.close()));
    await fleet.close();
  }
}

function evaluatorJson(v: RulerVerdict): unknown {
  const { inference, ...rest } = v;
  return { ...rest, windows: inference.windows, missing: inference.missing, ...(inference.closest ? { closest: inference.closest } : {}) };
}

async function calibrate(flags: CalibrateFlags): Promise<number> {
  if ((flags.unity === undefined) !== (flags.project === undefined)) throw new SbevalError('config', '--unity and --project go together');
  if (flags.unity === undefined && flags.evaluator === undefined) {
    throw new SbevalError(
      'config',
      'nothing to calibrate',
      "pass --unity <editor> --project <project> (the plugin in Unity), --evaluator <folder> (the official evaluator's ruler results), or both",
    );
  }
  const ruler = loadRuler();
  let verdict: RulerVerdict | undefined;
  let observedLevels = 0;
  if (flags.evaluator !== undefined) {
    const observed = readEvaluatorResults(resolve(flags.evaluator));
    observedLevels = observed.length;
    verdict = rulerVerdict(ruler, rulerTracks(ruler), observed);
  }
  const calibration =
    flags.unity !== undefined && flags.project !== undefined
      ? await calibrateUnity({ ...flags, unity: flags.unity, project: flags.project }, ruler)
      : undefined;
  const ok = (verdict?.ok ?? true) && (calibration?.ok ?? true);
  if (flags.json) {
    const unity = calibration
      ? {
          thresholds: CALIBRATION_THRESHOLDS,
          checks: calibration.checks,
          offset: calibration.offset,
          rulerFailures: calibration.rulerFailures,
          unity: calibration.unity,
          headless: calibration.headless,
        }
      : {};
    process.stdout.write(`${JSON.stringify({ ok, ...unity, ...(verdict ? { ruler: evaluatorJson(verdict) } : {}) }, null, 2)}\n`);
  } else {
    const parts = [calibration && calibrationMarkdown(calibration, flags.allLevels === true), verdict && rulerMarkdown(ruler, verdict, observedLevels)].filter(
      (p) => p !== undefined,
    );
    process.stdout.write(`${parts.join('\n\n')}\n`);
  }
  return ok ? 0 : 1;
}

export function registerCalibrateCommand(unity: Command): void {
  unity
    .command('calibrate')
    .description(
      "check a Unity install against the evaluator: the plugin in Unity vs the evaluator's reference results and the headless engine step by step (--unity, --project), and/or the official evaluator's own timing from its results on the ruler levels (--evaluator); exit 1 on any mismatch",
    )
    .addOption(unityEditorOption(false))
    .addOption(unityProjectOption(false))
    .addOption(
      option(
        '--evaluator <folder>',
        "the official evaluator's stability results for the ruler levels: the folder the Batch Stability Test wrote stability/*.json into (see `sbeval unity ruler`)",
      ),
    )
    .addOption(
      option('--reference <dir>', "the reference levels with the evaluator's stability JSON and images", {
        defaultText: 'the 90 shipped with sbeval, calibration/reference-levels',
      }),
    )
    .addOption(option('--instances <n>', 'Unity editors side by side', { parse: wholeNumber(1), default: 1 }))
    .addOption(option('--workers <n>', 'headless engines', { parse: wholeNumber(1), defaultText: 'one per core' }))
    .addOption(option('--log-dir <dir>', 'one log file per Unity instance here', { defaultText: 'a new temporary folder' }))
    .addOption(option('--connect-timeout <seconds>', 'how long an editor may take to start and connect', { parse: wholeNumber(1), default: 300 }))
    .addOption(option('--max-restarts <n>', 'restarts allowed per instance', { parse: wholeNumber(0), default: 3 }))
    .option('--all-levels', 'list every level, not only those that differ')
    .option('--json', 'print the thresholds, checks, step offset, per-level results and the ruler verdict as JSON')
    .addHelpText(
      'after',
      `\nThresholds (Unity engine vs the evaluator, shares of the levels): verdict ≥ ${CALIBRATION_THRESHOLDS.stableAgreement}, moving count ≥ ${CALIBRATION_THRESHOLDS.movingEqual}, ` +
        `mean image IoU ≥ ${CALIBRATION_THRESHOLDS.meanIou}, minimum IoU over evaluator-stable levels ≥ ${CALIBRATION_THRESHOLDS.minStableIou}; step offset against the headless engine 0. See docs/unity.md.\n`,
    )
    .action(async (flags: CalibrateFlags) => {
      process.exitCode = await calibrate(flags);
    });
}
