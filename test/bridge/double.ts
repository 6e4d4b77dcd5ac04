import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { DEFAULT_SIMULATION } from '../../bridge/engine.js';
import { FIELD_COUNT, type FrameBatch, type SimEvent } from '../../bridge/frames.js';
import { levelSeed, simulateTrial } from '../../bridge/headless/run.js';
import { UNITY_ENTRY_METHOD } from '../../bridge/remote-launchers.js';
import { parseLevelXml } from '../../levels/xml-read.js';

/**
 * The Unity test double from the TypeScript side (unity-plugin/TestDouble): scripts that move the
 * fake game's bodies (the SBDS format read by TestDouble/Game/Double.cs), and the stand-in editor
 * started like a Unity editor.
 */

/** A scripted frame stream for one level: the XML's objects in XML order, steps 0 … steps − 1. */
export interface DoubleScript {
  bodies: number;
  steps: number;
  /** steps × bodies × 6 (x, y, angle rad, vx, vy, ω rad/s). */
  states: Float32Array;
  alive: Uint8Array;
  contacts: Array<{ step: number; a: number; b: number; speed: number }>;
  /** Bodies whose death is leaving the world (IsDying). */
  outOfWorld: number[];
}

export function encodeScript(s: DoubleScript): Buffer {
  const head = Buffer.alloc(16);
  head.write('SBDS', 0, 'ascii');
  head.writeInt32LE(1, 4);
  head.writeInt32LE(s.bodies, 8);
  head.writeInt32LE(s.steps, 12);
  const states = Buffer.alloc(s.states.length * 4);
  s.states.forEach((v, i) => states.writeFloatLE(v, i * 4));
  const events = [...s.contacts.map((c) => [0, c.step, c.a, c.b, c.speed] as const), ...s.outOfWorld.map((id) => [1, 0, id, 0, 0] as const)];
  const tail = Buffer.alloc(4 + events.length * 20);
  tail.writeInt32LE(events.length, 0);
  events.forEach(([kind, step, a, b, speed], i) => {
    const o = 4 + i * 20;
    tail.writeInt32LE(kind, o);
    tail.writeInt32LE(step, o + 4);
    tail.writeInt32LE(a, o + 8);
    tail.writeInt32LE(b, o + 12);
    tail.writeFloatLE(speed, o + 16);
  });
  return Buffer.concat([head, states, Buffer.from(s.alive), tail]);
}

/** The double's key for a level: sha256 of the XML text as UTF-8. */
export function scriptKey(xml: string): string {
  return createHash('sha256').update(xml, 'utf8').digest('hex');
}

/** Writes the script the double uses for `pass` of `xml` (`stability-<n>` for the n-th stability load, `similarity`, or `any`). */
export function writeScript(dir: string, xml: string, pass: string, script: DoubleScript): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${scriptKey(xml)}${pass === 'any' ? '' : `.${pass}`}.sbds`), encodeScript(script));
}

/** A script from a recorded trial (e.g. the headless engine's): its frames, contacts and out-of-world deaths. */
export function scriptFromTrial(bodies: number, frames: FrameBatch, events: readonly SimEvent[]): DoubleScript {
  return {
    bodies,
    steps: frames.stepCount,
    states: frames.states.slice(0, frames.stepCount * bodies * FIELD_COUNT),
    alive: frames.alive.slice(0, frames.stepCount * bodies),
    contacts: events.flatMap((e) => (e.kind === 'contact' && e.b >= -1 ? [{ step: e.step, a: e.a, b: e.b, speed: e.relativeSpeed }] : [])),
    outOfWorld: events.flatMap((e) => (e.kind === 'removed' && e.reason === 'out-of-world' ? [e.id] : [])),
  };
}

/** An executable that runs the stand-in editor under mono (what `--unity` points at), with the double's own `extraArgs` after the editor's. */
export function standInExecutable(dir: string, exe: string, name = 'Unity', extraArgs: readonly string[] = []): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\nexec mono "${exe}" "$@"${extraArgs.map((a) => ` "${a}"`).join('')}\n`);
  chmodSync(path, 0o755);
  return path;
}

export interface StandInOptions {
  project: string;
  url?: string;
  instance?: string;
  logFile: string;
  token?: string;
  /** Put the token on the command line (-sbevalToken) instead of SBEVAL_TOKEN. */
  tokenOnCommandLine?: boolean;
  scripts?: string;
  extraArgs?: string[];
}

/** Starts the stand-in editor the way `sbeval unity launch` starts Unity. */
export function startStandIn(exe: string, o: StandInOptions): ResultPromise<{ reject: false; all: true }> {
  const args = ['-batchmode', '-projectPath', o.project, '-executeMethod', UNITY_ENTRY_METHOD, '-logFile', o.logFile];
  if (o.url) args.push('-sbevalUrl', o.url);
  if (o.instance) args.push('-sbevalInstance', o.instance);
  if (o.token && o.tokenOnCommandLine) args.push('-sbevalToken', o.token);
  args.push(...(o.extraArgs ?? []));
  const env: Record<string, string> = {};
  if (o.token && !o.tokenOnCommandLine) env.SBEVAL_TOKEN = o.token;
  if (o.scripts) env.SBEVAL_DOUBLE_SCRIPTS = o.scripts;
  // SBEVAL_TOKEN of the test process itself (if any) must not leak into the cases that test its absence.
  const base = { ...process.env };
  delete base.SBEVAL_TOKEN;
  delete base.SBEVAL_DOUBLE_SCRIPTS;
  return execa('mono', [exe, ...args], { reject: false, all: true, env: { ...base, ...env }, extendEnv: false }) as ResultPromise<{ reject: false; all: true }>;
}

/** One headless trial recorded for a pass of the double (`stability-<n>` or `similarity`). */
export interface HeadlessPass {
  xml: string;
  pass: string;
  bodies: number;
  frames: FrameBatch;
  events: SimEvent[];
}

/**
 * The headless engine's trials the double replays: the n-th stability load of a level plays the
 * headless trial n (its creation order), the image load plays trial 1 with the capture's steps. The
 * frames reach the last step of a `windowSteps` window with the capture (the ruler levels are run
 * longer than the evaluator's 500 steps).
 */
export function headlessPasses(xmls: readonly string[], windowSteps = DEFAULT_SIMULATION.windowSteps): HeadlessPass[] {
  const out: HeadlessPass[] = [];
  for (const xml of xmls) {
    const level = parseLevelXml(xml);
    const passes: Array<[string, number]> = [
      ['stability-1', 1],
      ['stability-2', 2],
      ['stability-3', 3],
      ['similarity', 1],
    ];
    for (const [pass, trial] of passes) {
      const batches: FrameBatch[] = [];
      const events: SimEvent[] = [];
      let bodies = 0;
      simulateTrial(
        level,
        levelSeed(xml),
        { ...DEFAULT_SIMULATION, windowSteps, trial, capture: true },
        {
          loaded: (b) => (bodies = b.length),
          frames: (b) => batches.push({ ...b, states: b.states.slice(), alive: b.alive.slice() }),
          events: (e) => events.push(...e),
        },
      );
      out.push({ xml, pass, bodies, frames: joinBatches(batches, bodies), events });
    }
  }
  return out;
}

/**
 * Writes the scripts that make the double replay `passes`, each through `transform` (default: as
 * recorded). Replaying the headless trials unchanged, a calibration's Unity column equals the headless
 * one — up to the double's own rendering.
 */
export function writeScripts(
  dir: string,
  passes: readonly HeadlessPass[],
  transform: (trial: FrameBatch, events: SimEvent[]) => [FrameBatch, SimEvent[]] = (f, e) => [f, e],
): void {
  for (const p of passes) {
    const [frames, kept] = transform(p.frames, p.events);
    writeScript(dir, p.xml, p.pass, scriptFromTrial(p.bodies, frames, kept));
  }
}

/** Scripts replaying the headless engine's trials of `xmls` (headlessPasses + writeScripts). */
export function scriptsFromHeadless(
  dir: string,
  xmls: readonly string[],
  transform?: (trial: FrameBatch, events: SimEvent[]) => [FrameBatch, SimEvent[]],
): void {
  writeScripts(dir, headlessPasses(xmls), transform);
}

/**
 * A Unity whose stream is `offset` physics steps off its labels: step k (k ≥ 1) shows the recorded
 * step k + offset (held at step 0 before the stream begins and at the last step after it ends), and
 * every event moves with its step (events that fall before step 1 or after the end are dropped). +1:
 * the bodies went through one more step than the label says; −1: one step fewer.
 */
export function shiftSteps(offset: number): (trial: FrameBatch, events: SimEvent[]) => [FrameBatch, SimEvent[]] {
  return (trial, events) => {
    const row = trial.bodyCount * FIELD_COUNT;
    const states = trial.states.slice();
    const alive = trial.alive.slice();
    for (let step = 1; step < trial.stepCount; step += 1) {
      const from = Math.min(trial.stepCount - 1, Math.max(0, step + offset));
      states.set(trial.states.subarray(from * row, (from + 1) * row), step * row);
      alive.set(trial.alive.subarray(from * trial.bodyCount, (from + 1) * trial.bodyCount), step * trial.bodyCount);
    }
    const moved = events.map((e) => ({ ...e, step: e.step - offset })).filter((e) => e.step >= 1 && e.step < trial.stepCount);
    return [{ ...trial, states, alive }, moved];
  };
}

/**
 * A Unity that is wrong in a way physics allows: every body takes its first step (the fall onto what
 * holds it) and then stays where it is — collapsing levels come out stable. (A stream in which
 * nothing moves at all is refused by the orchestrator as frozen frames when a body starts in the air
 * with nothing beneath it: bridge/expected-run.ts `fallingBody`.)
 */
export function settleAfterFirstStep(trial: FrameBatch, events: SimEvent[]): [FrameBatch, SimEvent[]] {
  const row = trial.bodyCount * FIELD_COUNT;
  const states = trial.states.slice();
  const alive = trial.alive.slice();
  for (let step = 2; step < trial.stepCount; step += 1) {
    states.copyWithin(step * row, row, 2 * row);
    alive.copyWithin(step * trial.bodyCount, trial.bodyCount, 2 * trial.bodyCount);
  }
  // Bodies at rest from step 2 on: no velocity.
  for (let i = 2 * row; i < states.length; i += FIELD_COUNT) states.fill(0, i + 3, i + 6);
  return [{ ...trial, states, alive }, events.filter((e) => e.step <= 1)];
}

function joinBatches(batches: readonly FrameBatch[], bodyCount: number): FrameBatch {
  const steps = batches.reduce((n, b) => n + b.stepCount, 0);
  const states = new Float32Array(steps * bodyCount * FIELD_COUNT);
  const alive = new Uint8Array(steps * bodyCount);
  for (const b of batches) {
    states.set(b.states, b.firstStep * bodyCount * FIELD_COUNT);
    alive.set(b.alive, b.firstStep * bodyCount);
  }
  return { firstStep: 0, stepCount: steps, bodyCount, states, alive };
}
