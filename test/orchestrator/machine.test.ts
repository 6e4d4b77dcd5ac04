import { describe, expect, it } from 'vitest';
import { type AnyStateNode, createActor, createEmptyActor, getNextSnapshot, type InspectionEvent, type SnapshotFrom } from 'xstate';
import { getAdjacencyMap, getShortestPaths, type StatePath } from 'xstate/graph';
import { machineEvents as ev } from '../../orchestrator/machine/events.js';
import {
  type LevelEffects,
  type LevelInput,
  type LevelRef,
  levelMachine,
  provideLevelMachine,
  type SimulateInput,
  type SimulateOutput,
  startLevel,
} from '../../orchestrator/machine/index.js';

const LEVEL: LevelRef = { id: 'team/A/team_A_1', team: 'team', model: undefined, character: 'A', trial: 1, base: 'team_A_1' };
const HOUR = 3_600_000;
const input = (overrides: Partial<LevelInput['limits']> = {}): LevelInput => ({
  level: LEVEL,
  limits: { maxTrials: 3, maxEngineRetries: 1, timeouts: { extract: HOUR, convert: HOUR, simulate: HOUR, capture: HOUR, commit: HOUR }, ...overrides },
});

type Snapshot = SnapshotFrom<typeof levelMachine>;
type AnyEvent = { type: string; [key: string]: unknown };

/**
 * The alphabet the graph walks: every event the machine can receive, with every output variant its
 * guards tell apart (success, cached success, each failure reason, each engine fault).
 */
const ok = (score: number): SimulateOutput => ({
  status: 'ok',
  cached: false,
  captured: true,
  score,
  startingObjects: 4,
  movingObjects: Math.round((1 - score) * 4),
  moving: [],
  engineId: 'e0',
});
const ALPHABET: AnyEvent[] = [
  ev.start(),
  ev.cancel('user pressed Ctrl-C'),
  ev.done('extract', { status: 'ok', cached: false }),
  ev.done('extract', { status: 'ok', cached: true }),
  ev.done('extract', { status: 'failed', reason: 'Code not found.' }),
  ev.done('extract', { status: 'failed', reason: 'no response file', missingInput: true }),
  ev.error('extract', 'EACCES: permission denied'),
  ev.done('convert', { status: 'ok', cached: false }),
  ev.done('convert', { status: 'failed', reason: 'Height boundary is intruded.' }),
  ev.error('convert', 'EIO'),
  ev.done('simulate', ok(1)),
  ev.done('simulate', ok(0.5)),
  ev.done('simulate', { status: 'engine-fault', kind: 'crashed', engineId: 'e1', reason: 'engine e1 failed: connection lost' }),
  ev.done('simulate', { status: 'engine-fault', kind: 'no-engines', engineId: undefined, reason: 'no engine left' }),
  ev.done('simulate', { status: 'level-error', reason: 'unknown block type b99' }),
  ev.error('simulate', 'bug in the sink'),
  ev.done('capture', { status: 'ok', cached: false }),
  ev.done('capture', { status: 'engine-fault', kind: 'stalled', engineId: 'e2', reason: 'engine e2 stalled' }),
  ev.done('capture', { status: 'level-error', reason: 'no block to frame' }),
  ev.error('capture', 'ENOSPC'),
  ev.done('commit', { status: 'ok', cached: false }),
  ev.done('commit', { status: 'failed', reason: 'marker not written' }),
  ev.error('commit', 'ENOSPC'),
  ev.after('extractTimeout', 'extracting'),
  ev.after('convertTimeout', 'converting'),
  ev.after('simulateTimeout', 'simulating'),
  ev.after('captureTimeout', 'capturing'),
  ev.after('commitTimeout', 'scoringReady'),
];

/** States differ by where the level is and the counters guards read; history arrays are left out. */
const serializeState = (s: Snapshot) =>
  JSON.stringify({
    value: s.value,
    trial: s.context.trial,
    retries: s.context.engineRetries,
    captured: s.context.captured,
    failure: s.context.failure?.kind,
    status: s.status,
  });

const traversal = {
  input: input(),
  // Only the events the state actually handles (passing a plain list would offer every event in every state).
  events: ((s: Snapshot) => ALPHABET.filter((e) => s.status === 'active' && s.can(e as never))) as never,
  serializeState: serializeState as never,
  stopWhen: (s: Snapshot) => s.status !== 'active',
};

function allStateNodes(node: AnyStateNode): AnyStateNode[] {
  return [node, ...Object.values(node.states).flatMap(allStateNodes)];
}

/** Every transition definition of the machine: each branch of each event of each state (incl. `after`). */
function definedTransitions() {
  return allStateNodes(levelMachine.root).flatMap((node) => [...node.transitions.values()].flat());
}

/** Names a transition by its place in the definition (state, event, branch), the same in provided copies. */
const describeTransition = (t: ReturnType<typeof definedTransitions>[number]) => {
  const branch = t.source.transitions.get(t.eventType)?.indexOf(t) ?? -1;
  const guard = t.guard ? ` [${typeof t.guard === 'string' ? t.guard : (t.guard as { type: string }).type}]` : '';
  return `${t.source.id} --${t.eventType}#${branch}${guard}--> ${t.target?.map((n) => n.id).join(',') ?? '(self)'}`;
};

/** Paths that together take every edge of the adjacency map: the shortest path to a state, then one edge. */
function edgeCoveragePaths() {
  const shortest = getShortestPaths(levelMachine, traversal as never) as unknown as StatePath<Snapshot, AnyEvent>[];
  const byState = new Map(shortest.map((p) => [serializeState(p.state), p]));
  const adjacency = getAdjacencyMap(levelMachine, traversal as never);
  const paths: Array<{ steps: Array<{ event: AnyEvent; state: Snapshot }> }> = [];
  const edges: string[] = [];
  for (const [from, value] of Object.entries(adjacency)) {
    for (const [eventKey, next] of Object.entries(value.transitions) as Array<[string, { event: unknown; state: unknown }]>) {
      const head = byState.get(from);
      if (!head) throw new Error(`state ${from} has no shortest path`);
      edges.push(`${from} ${eventKey}`);
      // States merged by the serialisation may differ in history, so each path's snapshots are
      // recomputed from its own events (pure transitions), and must land on the mapped states.
      const events = [...head.steps.map((step) => step.event).filter((e) => e.type !== 'xstate.init'), next.event as AnyEvent];
      let state = levelMachine.getInitialSnapshot(createEmptyActor() as never, input()) as Snapshot;
      const steps = events.map((event) => {
        state = getNextSnapshot(levelMachine, state as never, event as never) as Snapshot;
        return { event, state };
      });
      expect(serializeState(state)).toBe(serializeState(next.state as Snapshot));
      paths.push({ steps });
    }
  }
  return { shortest, adjacency, paths, edges };
}

/** A deferred per invoked actor, so a path step "done/error of actor X" resolves the real invocation. */
function controllableEffects() {
  const pending = new Map<string, { input: unknown; resolve: (v: unknown) => void; reject: (e: unknown) => void; signal: AbortSignal }>();
  const make =
    (name: string) =>
    (input: unknown, signal: AbortSignal): Promise<never> =>
      new Promise((resolve, reject) => {
        pending.set(name, { input, resolve: resolve as (v: unknown) => void, reject, signal });
      });
  const effects = { extract: make('extract'), convert: make('convert'), simulate: make('simulate'), capture: make('capture'), commit: make('commit') };
  return { pending, effects: effects as unknown as LevelEffects };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('level machine graph', () => {
  const { shortest, adjacency, paths, edges } = edgeCoveragePaths();

  it('reaches every state node through the shortest paths', () => {
    const reached = new Set(shortest.flatMap((p) => [p.state, ...p.steps.map((s) => s.state)]).map((s) => JSON.stringify(s.value)));
    const declared = Object.keys(levelMachine.root.states).map((key) => JSON.stringify(key));
    expect([...reached].sort()).toEqual(declared.sort());
  });

  it('generates paths that cover the full adjacency map', () => {
    const covered = new Set<string>();
    for (const path of paths) {
      let previous = serializeState(createActor(levelMachine, { input: input() }).getSnapshot());
      for (const step of path.steps) {
        covered.add(`${previous} ${JSON.stringify(step.event)}`);
        previous = serializeState(step.state);
      }
    }
    const all = Object.entries(adjacency).flatMap(([from, v]) => Object.keys(v.transitions).map((e) => `${from} ${e}`));
    expect(all.length).toBe(edges.length);
    expect(all.filter((edge) => !covered.has(edge))).toEqual([]);
  });

  it('replays every path on a live actor: same states, same context, and every defined transition taken', async () => {
    const taken = new Set<string>();
    for (const path of paths) {
      const { pending, effects } = controllableEffects();
      const actor = createActor(provideLevelMachine(effects), {
        input: input(),
        inspect: (e: InspectionEvent) => {
          if (e.type === '@xstate.microstep') for (const t of (e as unknown as { _transitions: never[] })._transitions) taken.add(describeTransition(t));
        },
      });
      actor.start();
      for (const step of path.steps) {
        const event = step.event;
        if (event.type === 'xstate.init') continue; // the start of every path: the actor's own initial snapshot
        const match = /^xstate\.(done|error)\.actor\.(\w+)$/.exec(event.type);
        if (match) {
          const invoked = pending.get(match[2]!);
          expect(
            invoked,
            `${event.type} while the actor is not running; path ${path.steps.map((s) => s.event.type).join(' > ')}; live ${JSON.stringify(actor.getSnapshot().value)}`,
          ).toBeDefined();
          pending.delete(match[2]!);
          if (match[1] === 'done') invoked!.resolve(event.output);
          else invoked!.reject(new Error((event.error as { message: string }).message));
        } else {
          actor.send(event as never);
        }
        await flush();
        const live = actor.getSnapshot();
        expect(live.value).toEqual(step.state.value);
        expect(live.context, path.steps.map((s) => JSON.stringify(s.event)).join(' > ')).toEqual(step.state.context);
        expect(live.status).toBe(step.state.status);
        if (live.value === 'simulating') {
          // The invoked trial asks for the trial the context is on, captures only on trial 1, avoids failed engines.
          const sim = pending.get('simulate')?.input as SimulateInput;
          expect(sim).toEqual({ level: LEVEL, trial: live.context.trial, capture: live.context.trial === 1, avoidEngines: live.context.failedEngines });
        }
      }
      actor.stop();
    }
    // The machine's own definitions are the ground truth: every branch of every state was exercised.
    const defined = definedTransitions().map(describeTransition);
    expect(defined).toContain('level --CANCEL#0--> level.failed');
    expect(defined.filter((t) => !taken.has(t))).toEqual([]);
  });
});

/** Effects from scripted outputs, recording what the machine asked for. */
function scripted(script: Partial<Record<keyof LevelEffects, unknown[]>>) {
  const calls: Array<{ name: string; input: unknown; signal: AbortSignal }> = [];
  const effect = (name: keyof LevelEffects, fallback: unknown) => async (input: unknown, signal: AbortSignal) => {
    calls.push({ name, input, signal });
    const next = script[name]?.length ? script[name]!.shift() : fallback;
    if (next instanceof Error) throw next;
    if (next === 'never') return new Promise(() => {});
    return next;
  };
  const effects = {
    extract: effect('extract', { status: 'ok', cached: false }),
    convert: effect('convert', { status: 'ok', cached: false }),
    simulate: effect('simulate', ok(1)),
    capture: effect('capture', { status: 'ok', cached: false }),
    commit: effect('commit', { status: 'ok', cached: false }),
  } as unknown as LevelEffects;
  return { calls, machine: provideLevelMachine(effects) };
}

describe('level machine scenarios', () => {
  it('a level stable on the first trial is simulated once, captured and committed', async () => {
    const { calls, machine } = scripted({});
    const outcome = await startLevel(machine, input());
    expect(outcome.status).toBe('done');
    expect(outcome.stageReached).toBe('image');
    expect(outcome.stability).toEqual({ score: 1, startingObjects: 4, movingObjects: 0, trialsRun: 1 });
    expect(calls.map((c) => c.name)).toEqual(['extract', 'convert', 'simulate', 'capture', 'commit']);
    expect(calls[3]!.input).toEqual({ level: LEVEL, captured: true, avoidEngines: [] });
  });

  it('keeps the best of up to three trials and the counts of the last one (evaluator bookkeeping)', async () => {
    const trial = (score: number, moving: number): SimulateOutput => ({
      status: 'ok',
      cached: false,
      captured: true,
      score,
      startingObjects: 5,
      movingObjects: moving,
      moving: Array.from({ length: moving }, (_, i) => i),
      engineId: 'e0',
    });
    const { calls, machine } = scripted({ simulate: [trial(0.6, 2), trial(0.8, 1), trial(0.4, 3)] });
    const outcome = await startLevel(machine, input());
    // Unity keeps the score as a float32 (`Mathf.Max` over floats).
    expect(outcome.stability).toEqual({ score: Math.fround(0.8), startingObjects: 5, movingObjects: 3, trialsRun: 3 });
    const sims = calls.filter((c) => c.name === 'simulate').map((c) => c.input as SimulateInput);
    expect(sims.map((s) => [s.trial, s.capture])).toEqual([
      [1, true],
      [2, false],
      [3, false],
    ]);
  });

  it('stops after the trial that reaches 1.0', async () => {
    const { calls, machine } = scripted({ simulate: [ok(0.5), ok(1)] });
    const outcome = await startLevel(machine, input());
    expect(outcome.stability?.trialsRun).toBe(2);
    expect(calls.filter((c) => c.name === 'simulate')).toHaveLength(2);
  });

  it('retries a trial on another engine after an engine fault, avoiding the one that failed', async () => {
    const crash: SimulateOutput = { status: 'engine-fault', kind: 'crashed', engineId: 'e1', reason: 'engine e1 failed: connection lost' };
    const { calls, machine } = scripted({ simulate: [crash, ok(1)] });
    const outcome = await startLevel(machine, input());
    expect(outcome.status).toBe('done');
    expect(outcome.retries).toEqual([{ stage: 'simulate', trial: 1, engineId: 'e1', kind: 'crashed', reason: 'engine e1 failed: connection lost' }]);
    const sims = calls.filter((c) => c.name === 'simulate').map((c) => c.input as SimulateInput);
    expect(sims.map((s) => [s.trial, s.avoidEngines])).toEqual([
      [1, []],
      [1, ['e1']],
    ]);
  });

  it('fails with kind engine once the retries are spent, naming the retries', async () => {
    const stall = (id: string): SimulateOutput => ({ status: 'engine-fault', kind: 'stalled', engineId: id, reason: `engine ${id} stalled` });
    const { machine } = scripted({ simulate: [stall('e1'), stall('e2'), stall('e3')] });
    const outcome = await startLevel(machine, input({ maxEngineRetries: 2 }));
    expect(outcome.failure).toEqual({ stage: 'simulate', kind: 'engine', reason: 'engine e3 stalled (after 2 retries on other engines)' });
    expect(outcome.retries.map((r) => r.engineId)).toEqual(['e1', 'e2']);
    expect(outcome.stageReached).toBe('level');
  });

  it('does not retry when no engine is left', async () => {
    const { calls, machine } = scripted({
      simulate: [{ status: 'engine-fault', kind: 'no-engines', engineId: undefined, reason: 'no engine left to run it' }],
    });
    const outcome = await startLevel(machine, input());
    expect(outcome.failure?.kind).toBe('engine');
    expect(calls.filter((c) => c.name === 'simulate')).toHaveLength(1);
  });

  const failures: Array<[string, Partial<Record<keyof LevelEffects, unknown[]>>, object, string]> = [
    [
      'no code in the response',
      { extract: [{ status: 'failed', reason: 'Code not found.' }] },
      { stage: 'extract', kind: 'level', reason: 'Code not found.' },
      'raw',
    ],
    [
      'no response at all',
      { extract: [{ status: 'failed', reason: 'no response file', missingInput: true }] },
      { stage: 'extract', kind: 'level', reason: 'no response file' },
      'none',
    ],
    [
      'a level outside the grid',
      { convert: [{ status: 'failed', reason: 'Height boundary is intruded.' }] },
      { stage: 'convert', kind: 'level', reason: 'Height boundary is intruded.' },
      'intermediate',
    ],
    [
      'a level the engine cannot load',
      { simulate: [{ status: 'level-error', reason: 'unknown block type' }] },
      { stage: 'simulate', kind: 'level', reason: 'unknown block type' },
      'level',
    ],
    [
      'a capture that cannot be framed',
      { capture: [{ status: 'level-error', reason: 'no block' }] },
      { stage: 'capture', kind: 'level', reason: 'no block' },
      'simulated',
    ],
    ['an I/O error', { convert: [new Error('EIO: i/o error')] }, { stage: 'convert', kind: 'error', reason: 'EIO: i/o error' }, 'intermediate'],
    ['a commit that fails', { commit: [{ status: 'failed', reason: 'disk full' }] }, { stage: 'commit', kind: 'error', reason: 'disk full' }, 'image'],
  ];
  for (const [name, script, failure, reached] of failures) {
    it(`records ${name} as a failure with its stage and reason`, async () => {
      const { machine } = scripted(script);
      const outcome = await startLevel(machine, input());
      expect(outcome.status).toBe('failed');
      expect(outcome.failure).toEqual(failure);
      expect(outcome.stageReached).toBe(reached);
    });
  }

  it('fails a state that outlives its named timeout and aborts the invoked effect', async () => {
    const { calls, machine } = scripted({ simulate: ['never'] });
    const outcome = await startLevel(machine, input({ timeouts: { extract: HOUR, convert: HOUR, simulate: 30, capture: HOUR, commit: HOUR } }));
    expect(outcome.failure).toEqual({ stage: 'simulate', kind: 'timeout', reason: 'simulate took longer than 30 ms' });
    expect(calls.find((c) => c.name === 'simulate')!.signal.aborted).toBe(true);
  });

  it('cancels from the signal: the level fails as cancelled and the running effect is aborted', async () => {
    const { calls, machine } = scripted({ simulate: ['never'] });
    const controller = new AbortController();
    const done = startLevel(machine, input(), { signal: controller.signal });
    await flush();
    controller.abort(new Error('SIGINT'));
    const outcome = await done;
    expect(outcome.failure).toEqual({ stage: 'simulate', kind: 'cancelled', reason: 'cancelled: SIGINT' });
    expect(calls.find((c) => c.name === 'simulate')!.signal.aborted).toBe(true);
  });

  it('reports its transitions through inspection under a deterministic actor id', async () => {
    const { machine } = scripted({});
    const seen: string[] = [];
    await startLevel(machine, input(), {
      inspect: (e) => {
        if (e.type === '@xstate.snapshot' && (e.actorRef as { id?: string }).id === `level:${LEVEL.id}`)
          seen.push(JSON.stringify((e.snapshot as Snapshot).value));
      },
    });
    expect(seen.filter((v, i) => v !== seen[i - 1])).toEqual([
      '"queued"',
      '"extracting"',
      '"converting"',
      '"simulating"',
      '"capturing"',
      '"scoringReady"',
      '"done"',
    ]);
  });
});
