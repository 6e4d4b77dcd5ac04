import type { Engine, LevelJob, LevelSink } from '../../../bridge/engine.js';
import { FIELD_COUNT } from '../../../bridge/frames.js';
import { HeadlessEngine } from '../../../bridge/headless/engine.js';
import { renderFrameImage } from '../../../bridge/headless/frame-image.js';
import { encodeMaskPng } from '../../../bridge/headless/png.js';
import { parseLevelXml } from '../../../levels/xml-read.js';

/**
 * The lies the claim tests' engines tell (faulty-engine.ts `claim`/`sly` over a real socket,
 * simulate-claims.test.ts in process), each one the orchestrator cannot refuse on its face.
 */

/** The level fault the claiming engines send: the tests look for it in a run's files and log. */
export const CLAIM = 'the moon is in the wrong phase';

/**
 * Runs `job` on the honest `inner` engine but streams it as if nothing moved: the real body table,
 * every frame holding the bodies where step 0 has them (at rest: zero velocities, all alive), no
 * events, and the capture of that frozen state (the pool checks an image against the final state
 * streamed, so a consistent liar draws its lie). Refused only where a body must fall
 * (bridge/expected-run.ts); the claim tests use levels where none does.
 */
export async function runFrozen(inner: Engine, job: LevelJob, sink: LevelSink, signal?: AbortSignal): Promise<void> {
  let start: Float32Array | undefined;
  await inner.run(
    job,
    {
      loaded: (bodies, dt) => sink.loaded(bodies, dt),
      frames: (batch) => {
        const row = batch.bodyCount * FIELD_COUNT;
        start ??= batch.states.slice(0, row);
        const states = new Float32Array(batch.states.length);
        for (let s = 0; s < batch.stepCount; s += 1) states.set(start, s * row);
        sink.frames({ ...batch, states, alive: new Uint8Array(batch.alive.length).fill(1) });
      },
      events: () => {},
      capture: () => {
        const row = { states: start as Float32Array, alive: new Uint8Array(start!.length / FIELD_COUNT).fill(1) };
        sink.capture({ png: encodeMaskPng(renderFrameImage(parseLevelXml(job.xml), row, row)) });
      },
    },
    signal,
  );
}

/**
 * An engine without sbeval's rules (a stand-in for any engine behind a socket), in process: it streams
 * its first level as if nothing moved (`runFrozen`), then claims every level cannot run (`CLAIM`). Its
 * claim is refuted by another engine's run and it is discredited: the level it had "simulated" runs again.
 */
export class SlyEngine implements Engine {
  readonly identity = { kind: 'sly', description: 'test double', version: '0' };
  private readonly inner: HeadlessEngine;
  loads = 0;
  constructor(readonly id = 'sly') {
    this.inner = new HeadlessEngine(`${id}-inner`);
  }

  async run(job: LevelJob, sink: LevelSink, signal?: AbortSignal): Promise<void> {
    this.loads += 1;
    if (this.loads > 1) throw Object.assign(new Error(CLAIM), { levelError: true });
    return runFrozen(this.inner, job, sink, signal);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
