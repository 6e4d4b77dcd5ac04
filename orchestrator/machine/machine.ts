import { assign, fromPromise, setup } from 'xstate';
import { invariant } from '../../core/invariant.js';
import type { LevelEvent } from './events.js';
import { MACHINE_ID } from './events.js';
import { levelStability, trialStops } from './trials.js';
import type {
  CaptureInput,
  CaptureOutput,
  CommitInput,
  FailureKind,
  LevelContext,
  LevelInput,
  LevelOutcome,
  LevelStage,
  SimulateInput,
  SimulateOutput,
  StepInput,
  StepOutput,
} from './types.js';

/**
 * The life of one level (one trial file of one team), and the single place where its fate is decided:
 *
 *   queued ─START→ extracting → converting → simulating (trial k of up to 3) → capturing → scoringReady → done
 *                      │             │          │  ↺ next trial (score < 1, k < 3)   │  ↺ retry on another engine
 *                      │             │          │  ↺ retry on another engine          │
 *                      └─────────────┴──────────┴──────────────┴─────────────────────┴──→ failed(stage, kind, reason)
 *
 * - extracting/converting: the response becomes a drop program, then level XML (official failures such
 *   as `Code not found.` or `Height boundary is intruded.` end the level as `failed`, kind `level`).
 * - simulating: one trial per visit; the evaluator's bookkeeping (stop at 1.0, at most `maxTrials`,
 *   score = max, counts from the last trial) decides whether another trial runs. Trial 1 also renders
 *   the image, as the evaluator's image run uses the same creation order.
 * - an engine fault (crash, stall, garbage, timeout in the pool) re-enters the state on another engine,
 *   at most `maxEngineRetries` times per step; past that, or with no engine left, `failed` kind `engine`.
 * - capturing: writes the image of trial 1 (or renders one when the engine did not).
 * - scoringReady: the level's stability and image are complete; `commit` records them so a resumed run
 *   never recomputes the level and the folder-level stages (similarity, diversity, score) can use them.
 * - every working state has a named per-state timeout (`after`), and `CANCEL` fails the level from any
 *   state; the invoked actor is stopped (its AbortSignal fires) when the state is left.
 *
 * Effects are named actors that the runner supplies with `machine.provide({ actors })`; the defaults
 * throw, so a machine without real effects cannot pretend to work. Tests provide fakes and walk every
 * transition with `xstate/graph`.
 */
const notProvided = (name: string) =>
  fromPromise<never, unknown>(async () => {
    invariant(false, `level machine: actor "${name}" was not provided`);
  });

type DoneWith<T> = { output: T };
type ErrorWith = { error: unknown };
const outputOf = <T>(event: unknown): T => (event as DoneWith<T>).output;
const errorMessage = (event: unknown): string => {
  const error = (event as ErrorWith).error;
  if (error && typeof error === 'object' && 'message' in error) return String((error as { message: unknown }).message);
  return String(error);
};

const STAGE_TIMEOUT_KEY: Record<LevelStage, keyof LevelContext['limits']['timeouts']> = {
  extract: 'extract',
  convert: 'convert',
  simulate: 'simulate',
  capture: 'capture',
  commit: 'commit',
};

type EngineStepOutput = SimulateOutput | CaptureOutput;

export const levelMachine = setup({
  types: {
    context: {} as LevelContext,
    events: {} as LevelEvent,
    input: {} as LevelInput,
    output: {} as LevelOutcome,
  },
  actors: {
    extract: notProvided('extract') as unknown as ReturnType<typeof fromPromise<StepOutput, StepInput>>,
    convert: notProvided('convert') as unknown as ReturnType<typeof fromPromise<StepOutput, StepInput>>,
    simulate: notProvided('simulate') as unknown as ReturnType<typeof fromPromise<SimulateOutput, SimulateInput>>,
    capture: notProvided('capture') as unknown as ReturnType<typeof fromPromise<CaptureOutput, CaptureInput>>,
    commit: notProvided('commit') as unknown as ReturnType<typeof fromPromise<StepOutput, CommitInput>>,
  },
  delays: {
    extractTimeout: ({ context }) => context.limits.timeouts.extract,
    convertTimeout: ({ context }) => context.limits.timeouts.convert,
    simulateTimeout: ({ context }) => context.limits.timeouts.simulate,
    captureTimeout: ({ context }) => context.limits.timeouts.capture,
    commitTimeout: ({ context }) => context.limits.timeouts.commit,
  },
  guards: {
    stepOk: ({ event }) => outputOf<StepOutput | EngineStepOutput>(event).status === 'ok',
    /** The trial succeeded and the bookkeeping says it was the last one. */
    trialStops: ({ context, event }) => {
      const output = outputOf<SimulateOutput>(event);
      return output.status === 'ok' && trialStops([...context.trials, output], context.limits.maxTrials);
    },
    /** An engine fault with retries left and engines to retry on. */
    canRetryEngine: ({ context, event }) => {
      const output = outputOf<EngineStepOutput>(event);
      return output.status === 'engine-fault' && output.kind !== 'no-engines' && context.engineRetries < context.limits.maxEngineRetries;
    },
    engineFault: ({ event }) => outputOf<EngineStepOutput>(event).status === 'engine-fault',
  },
  actions: {
    enterStage: assign((_, params: { stage: LevelStage }) => ({ stage: params.stage })),
    noteCached: assign(({ context, event }, params: { stage: LevelStage }) =>
      (outputOf<StepOutput>(event) as { cached?: boolean }).cached ? { cached: [...context.cached, params.stage] } : {},
    ),
    reach: assign((_, params: { reached: LevelContext['stageReached'] }) => ({ stageReached: params.reached })),
    /** Extraction failed: the response existed unless the stage found no input at all. */
    reachAfterExtractFailure: assign(({ event }) => {
      const output = outputOf<StepOutput>(event);
      return { stageReached: output.status === 'failed' && output.missingInput ? ('none' as const) : ('raw' as const) };
    }),
    recordTrial: assign(({ context, event }) => {
      const output = outputOf<SimulateOutput>(event);
      if (output.status !== 'ok') return {};
      const record = {
        trial: context.trial,
        score: output.score,
        startingObjects: output.startingObjects,
        movingObjects: output.movingObjects,
        moving: output.moving,
        engineId: output.engineId,
      };
      return {
        trials: [...context.trials, record],
        captured: context.captured || (context.trial === 1 && output.captured),
        cached: output.cached && !context.cached.includes('simulate') ? [...context.cached, 'simulate' as const] : context.cached,
      };
    }),
    nextTrial: assign(({ context }) => ({ trial: context.trial + 1, engineRetries: 0 })),
    finishStability: assign(({ context }) => ({ stability: levelStability(context.trials), engineRetries: 0, stageReached: 'simulated' as const })),
    recordRetry: assign(({ context, event }, params: { stage: 'simulate' | 'capture' }) => {
      const output = outputOf<EngineStepOutput>(event);
      if (output.status !== 'engine-fault') return {};
      const failedEngines =
        output.engineId !== undefined && !context.failedEngines.includes(output.engineId) ? [...context.failedEngines, output.engineId] : context.failedEngines;
      return {
        engineRetries: context.engineRetries + 1,
        failedEngines,
        retries: [...context.retries, { stage: params.stage, trial: context.trial, engineId: output.engineId, kind: output.kind, reason: output.reason }],
      };
    }),
    failFromOutput: assign(({ context, event }, params: { kind: FailureKind }) => {
      const output = outputOf<StepOutput | EngineStepOutput>(event);
      const reason = 'reason' in output ? output.reason : 'failed';
      const stage = context.stage === 'queued' ? 'extract' : context.stage;
      if (output.status === 'engine-fault') {
        const retried =
          context.engineRetries > 0 ? ` (after ${context.engineRetries} ${context.engineRetries === 1 ? 'retry' : 'retries'} on other engines)` : '';
        return { failure: { stage, kind: 'engine' as const, reason: `${reason}${retried}` } };
      }
      return { failure: { stage, kind: params.kind, reason } };
    }),
    failFromError: assign(({ context, event }) => ({
      failure: { stage: context.stage, kind: 'error' as const, reason: errorMessage(event) },
    })),
    failTimeout: assign(({ context }) => {
      const stage = context.stage === 'queued' ? 'extract' : context.stage;
      return { failure: { stage, kind: 'timeout' as const, reason: `${stage} took longer than ${context.limits.timeouts[STAGE_TIMEOUT_KEY[stage]]} ms` } };
    }),
    failCancelled: assign(({ context, event }) => ({
      failure: { stage: context.stage, kind: 'cancelled' as const, reason: event.type === 'CANCEL' ? event.reason : 'cancelled' },
    })),
  },
}).createMachine({
  id: MACHINE_ID,
  /** Stamped on every persisted level outcome (reference/model-codebases.md §5.6). */
  version: '1',
  initial: 'queued',
  context: ({ input }) => ({
    level: input.level,
    limits: input.limits,
    stage: 'queued',
    trial: 1,
    trials: [],
    captured: false,
    engineRetries: 0,
    failedEngines: [],
    retries: [],
    cached: [],
    stageReached: 'none',
    stability: undefined,
    failure: undefined,
  }),
  on: {
    CANCEL: { target: '.failed', actions: 'failCancelled' },
  },
  states: {
    queued: {
      on: { START: 'extracting' },
    },
    extracting: {
      entry: { type: 'enterStage', params: { stage: 'extract' } },
      invoke: {
        id: 'extract',
        src: 'extract',
        input: ({ context }) => ({ level: context.level }),
        onDone: [
          {
            guard: 'stepOk',
            target: 'converting',
            actions: [
              { type: 'noteCached', params: { stage: 'extract' } },
              { type: 'reach', params: { reached: 'intermediate' } },
            ],
          },
          { target: 'failed', actions: ['reachAfterExtractFailure', { type: 'failFromOutput', params: { kind: 'level' } }] },
        ],
        onError: { target: 'failed', actions: 'failFromError' },
      },
      after: { extractTimeout: { target: 'failed', actions: 'failTimeout' } },
    },
    converting: {
      entry: { type: 'enterStage', params: { stage: 'convert' } },
      invoke: {
        id: 'convert',
        src: 'convert',
        input: ({ context }) => ({ level: context.level }),
        onDone: [
          {
            guard: 'stepOk',
            target: 'simulating',
            actions: [
              { type: 'noteCached', params: { stage: 'convert' } },
              { type: 'reach', params: { reached: 'level' } },
            ],
          },
          { target: 'failed', actions: { type: 'failFromOutput', params: { kind: 'level' } } },
        ],
        onError: { target: 'failed', actions: 'failFromError' },
      },
      after: { convertTimeout: { target: 'failed', actions: 'failTimeout' } },
    },
    simulating: {
      entry: { type: 'enterStage', params: { stage: 'simulate' } },
      invoke: {
        id: 'simulate',
        src: 'simulate',
        input: ({ context }) => ({
          level: context.level,
          trial: context.trial,
          capture: context.trial === 1,
          avoidEngines: context.failedEngines,
        }),
        onDone: [
          { guard: 'trialStops', target: 'capturing', actions: ['recordTrial', 'finishStability'] },
          { guard: 'stepOk', target: 'simulating', reenter: true, actions: ['recordTrial', 'nextTrial'] },
          { guard: 'canRetryEngine', target: 'simulating', reenter: true, actions: { type: 'recordRetry', params: { stage: 'simulate' } } },
          { target: 'failed', actions: { type: 'failFromOutput', params: { kind: 'level' } } },
        ],
        onError: { target: 'failed', actions: 'failFromError' },
      },
      after: { simulateTimeout: { target: 'failed', actions: 'failTimeout' } },
    },
    capturing: {
      entry: { type: 'enterStage', params: { stage: 'capture' } },
      invoke: {
        id: 'capture',
        src: 'capture',
        input: ({ context }) => ({ level: context.level, captured: context.captured, avoidEngines: context.failedEngines }),
        onDone: [
          {
            guard: 'stepOk',
            target: 'scoringReady',
            actions: [
              { type: 'noteCached', params: { stage: 'capture' } },
              { type: 'reach', params: { reached: 'image' } },
            ],
          },
          { guard: 'canRetryEngine', target: 'capturing', reenter: true, actions: { type: 'recordRetry', params: { stage: 'capture' } } },
          { target: 'failed', actions: { type: 'failFromOutput', params: { kind: 'level' } } },
        ],
        onError: { target: 'failed', actions: 'failFromError' },
      },
      after: { captureTimeout: { target: 'failed', actions: 'failTimeout' } },
    },
    scoringReady: {
      entry: { type: 'enterStage', params: { stage: 'commit' } },
      invoke: {
        id: 'commit',
        src: 'commit',
        input: ({ context }) => ({ level: context.level, stability: context.stability!, trials: context.trials }),
        onDone: [
          { guard: 'stepOk', target: 'done' },
          { target: 'failed', actions: { type: 'failFromOutput', params: { kind: 'error' } } },
        ],
        onError: { target: 'failed', actions: 'failFromError' },
      },
      after: { commitTimeout: { target: 'failed', actions: 'failTimeout' } },
    },
    done: { type: 'final' },
    failed: { type: 'final' },
  },
  output: ({ context }) => ({
    level: context.level,
    status: context.failure ? 'failed' : 'done',
    stageReached: context.stageReached,
    stability: context.stability,
    trials: context.trials,
    retries: context.retries,
    cached: context.cached,
    failure: context.failure,
  }),
});
