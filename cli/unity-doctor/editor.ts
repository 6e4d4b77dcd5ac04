import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SIMULATION, type Engine, type EngineIdentity, type LevelJob } from '../../bridge/engine.js';
import { createEngines } from '../../bridge/engines.js';
import { decodePng } from '../../bridge/headless/png.js';
import { type CollectedTrial, memorySink } from '../../bridge/memory-sink.js';
import type { EngineFleet } from '../../bridge/remote-fleet.js';
import { abortFallback, graphicsDevice, nextStage, type StabilityTiming, stabilityTimings, stageReached, type UnityStage } from '../../bridge/unity-log.js';
import { OFFICIAL_WINDOW } from '../../bridge/window.js';
import { describeError, SbevalError } from '../../core/errors.js';
import { loadReference } from '../../orchestrator/stages/agreement.js';
import { CALIBRATION_THRESHOLDS } from '../../orchestrator/stages/calibrate.js';
import { loadRuler } from '../../orchestrator/stages/ruler.js';
import { blackIou } from '../../scoring/black-iou.js';
import { startUnityFleet } from '../unity-fleet.js';
import { type DoctorCheck, fail, notRun, pass } from './checks.js';

/**
 * The part of `sbeval unity doctor` that starts an editor: one instance with its own deadline, the
 * stage it reached (from its log, bridge/unity-log.ts), a ruler level and a reference level run on it,
 * the timing the plugin logged for them, the capture against the headless engine's, and how it quit.
 */
interface EditorFlags {
  unity: string;
  project: string;
  deadline: number;
  logDir?: string;
}

interface EditorReport {
  checks: DoctorCheck[];
  stage: UnityStage | undefined;
  identity: EngineIdentity | undefined;
  device: string | undefined;
  logFile: string;
}

/** A reference level the evaluator found stable (its image is the structure as built): chatgpt4pcg/modified-science-birds v1/levels/L. */
const REFERENCE_LEVEL = 'V1_L_10';

/** What to do when the editor stopped before `stage`. */
const STAGE_FIXES: Record<UnityStage, string> = {
  'editor started':
    'check that --unity is the editor binary (macOS: …/Unity.app/Contents/MacOS/Unity), that its licence is activated (Unity Hub, Preferences, Licenses) and that no other editor has the project open',
  'script compiled':
    "the project's scripts did not compile or the plugin is missing: open the project once in Unity 2019.4, fix the console's errors, or reinstall with sbeval unity install --force",
  'entry method ran':
    'the editor did not run -executeMethod Sbeval.Bridge.EditorTools.SbevalBatchEntry.Run: look for "executeMethod" in the log; reinstall the plugin and let the editor compile it once',
  'play mode entered':
    'the editor did not enter play mode from -executeMethod in batch mode (a known unknown, unity-plugin/README.md): look for errors after "[sbeval] batch entry" in the log and send it with this report',
  'bridge connected':
    'the engine did not reach the orchestrator: look for "connection ended" or "cannot reach" in the log (a firewall on 127.0.0.1, another sbeval on the port)',
};

const LEVEL_CHECKS = ['ruler level', 'reference level', 'steps per frame', 'first read step', 'capture', 'editor quit'];

export async function editorChecks(flags: EditorFlags, log: (line: string) => void): Promise<EditorReport> {
  const logDir = flags.logDir ?? mkdtempSync(join(tmpdir(), 'sbeval-doctor-'));
  const logFile = join(logDir, 'unity-0.log');
  const readLog = (): string => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  let fleet: EngineFleet;
  try {
    fleet = await startUnityFleet({ ...flags, instances: 1, connectTimeout: flags.deadline, maxRestarts: 0, logDir }, log);
  } catch (error) {
    const stage = stageReached(readLog());
    const missed = nextStage(stage) ?? 'bridge connected';
    const reached = stage ? `reached "${stage}", not "${missed}"` : 'wrote no log';
    const why = describeError(error).split('\n')[0] ?? '';
    const checks = [
      fail('editor start', `${reached} within ${flags.deadline} s (${why})`, STAGE_FIXES[missed]),
      ...LEVEL_CHECKS.map((c) => notRun(c, 'the editor did not connect')),
    ];
    return { checks, stage, identity: undefined, device: graphicsDevice(readLog()), logFile };
  }
  const engine = fleet.engines[0] as Engine;
  const checks: DoctorCheck[] = [pass('editor start', `reached "bridge connected": ${engine.identity.version}, log ${logFile}`)];
  let levels: DoctorCheck[] = [];
  try {
    levels = await levelChecks(engine, readLog);
  } finally {
    await fleet.close();
  }
  checks.push(...levels, quitCheck(fleet.status()[0], readLog()));
  return { checks, stage: stageReached(readLog()), identity: engine.identity, device: graphicsDevice(readLog()), logFile };
}

/** A trial on `engine`: the stream, or why there is none. */
async function trial(engine: Engine, job: LevelJob): Promise<CollectedTrial | { failure: string }> {
  const kept = memorySink();
  try {
    await engine.run(job, kept.sink);
    return kept.data;
  } catch (error) {
    return { failure: describeError(error) };
  }
}

const streamed = (t: CollectedTrial): string => `${t.frames.reduce((n, b) => n + b.stepCount, 0)} steps of ${t.bodies.length} bodies`;

async function levelChecks(engine: Engine, readLog: () => string): Promise<DoctorCheck[]> {
  const ruler = loadRuler().levels[0];
  const reference = loadReference().find((l) => l.level === REFERENCE_LEVEL);
  if (!ruler || !reference)
    throw new SbevalError('input', `the shipped ruler or reference level ${REFERENCE_LEVEL} is missing`, 'the installation is incomplete: reinstall sbeval');
  const rulerJob: LevelJob = { levelId: `ruler/${ruler.name}`, xml: ruler.xml, settings: { ...DEFAULT_SIMULATION, trial: 1, capture: false } };
  const referenceJob: LevelJob = { levelId: `reference/${REFERENCE_LEVEL}`, xml: reference.xml, settings: { ...DEFAULT_SIMULATION, trial: 1 } };
  const onRuler = await trial(engine, rulerJob);
  const onReference = await trial(engine, referenceJob);
  const checks = [
    'failure' in onRuler
      ? fail('ruler level', `${ruler.name}: ${onRuler.failure}`, 'see the editor log for the exception')
      : pass('ruler level', `${ruler.name}: ${streamed(onRuler)}`),
    'failure' in onReference
      ? fail('reference level', `${REFERENCE_LEVEL}: ${onReference.failure}`, 'see the editor log for the exception')
      : pass('reference level', `${REFERENCE_LEVEL}: ${streamed(onReference)} and its capture`),
  ];
  const timings = stabilityTimings(readLog());
  checks.push(...timingChecks(timings.find((t) => t.level === rulerJob.levelId)));
  checks.push(await captureCheck(onReference, referenceJob));
  return checks;
}

const WINDOW_FIX =
  'bridge/window.ts assumes one physics step per frame with the first read on step 1: run the timing ruler in the official evaluator (sbeval unity ruler, then sbeval unity calibrate --evaluator) to see the window it really reads, and change bridge/window.ts if it differs';

function timingChecks(timing: StabilityTiming | undefined): DoctorCheck[] {
  if (!timing) return ['steps per frame', 'first read step'].map((c) => fail(c, 'the plugin logged no timing for the ruler level', 'see the editor log'));
  const perFrame = timing.frames > 0 ? timing.steps / timing.frames : Number.NaN;
  const shown = `${perFrame.toFixed(2)} (${timing.steps} physics steps in ${timing.frames} frames)`;
  const start = OFFICIAL_WINDOW.startStep;
  return [
    Math.abs(perFrame - 1) < 0.005 ? pass('steps per frame', shown) : fail('steps per frame', `${shown}, not 1`, WINDOW_FIX),
    timing.firstReadStep === start
      ? pass('first read step', `${timing.firstReadStep}`)
      : fail('first read step', `${timing.firstReadStep}: the first frame's read sees step ${timing.firstReadStep}, not ${start}`, WINDOW_FIX),
  ];
}

/** The Unity capture of the reference level against the headless engine's (black-pixel IoU), or the plugin's refusal of a blank one. */
async function captureCheck(onUnity: CollectedTrial | { failure: string }, job: LevelJob): Promise<DoctorCheck> {
  if ('failure' in onUnity) {
    const blank = /capture is blank/.test(onUnity.failure);
    return fail('capture', blank ? onUnity.failure : `no capture: ${onUnity.failure}`, blank ? GRAPHICS_FIX : 'see the editor log');
  }
  if (!onUnity.png) return fail('capture', 'the editor sent no capture', 'see the editor log');
  const [headless] = await createEngines('headless', 1);
  let reference: CollectedTrial | { failure: string };
  try {
    reference = await trial(headless as Engine, job);
  } finally {
    await headless?.close();
  }
  if ('failure' in reference || !reference.png)
    throw new SbevalError('simulate', `the headless engine failed on ${job.levelId}: ${'failure' in reference ? reference.failure : 'it sent no image'}`);
  const iou = blackIou((await decodePng(onUnity.png)).rgba, (await decodePng(reference.png)).rgba);
  const threshold = CALIBRATION_THRESHOLDS.minStableIou;
  const shown = `IoU ${iou.toFixed(4)} against the headless engine's image of ${REFERENCE_LEVEL}`;
  return iou >= threshold ? pass('capture', shown) : fail('capture', `${shown}, below ${threshold}`, GRAPHICS_FIX);
}

const GRAPHICS_FIX =
  'the editor renders differently without a window: start it with another graphics API (-force-metal or -force-glcore) or from a logged-in session; see unity-plugin/README.md';

function quitCheck(status: ReturnType<EngineFleet['status']>[number] | undefined, text: string): DoctorCheck {
  const stopped = status?.stoppedBy;
  const how = `${status?.lastExit || 'still running'}${stopped === undefined ? ' before bye' : stopped === 'bye' ? ' after bye' : ` (needed ${stopped} after bye)`}`;
  if (status?.stoppedBy !== 'bye' || status.lastExit !== 'exited with code 0') {
    return fail('editor quit', how, 'the editor did not leave after bye: look for an exception after "orchestrator said bye" in the log');
  }
  const fallback = abortFallback(text);
  if (fallback) {
    return fail(
      'editor quit',
      `${how}, but ${fallback}`,
      "this editor's Mono lacks ClientWebSocket.Abort(): runs work through the plugin's fallback, which no real editor has exercised yet — send this report and the log",
    );
  }
  return pass('editor quit', how);
}
