import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineEndpoint } from '../../bridge/endpoint.js';
import { FIELD_COUNT, type SimEvent } from '../../bridge/frames.js';
import { decodePng } from '../../bridge/headless/png.js';
import { EngineLostError, type RemoteEngine, RemoteRunError } from '../../bridge/remote-engine.js';
import { OFFICIAL_WINDOW, stepsToSimulate } from '../../bridge/window.js';
import { trialStability } from '../../scoring/stability.js';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { Collected } from './collect.js';
import { type DoubleScript, startStandIn, writeScript } from './double.js';
import { job } from './levels.js';
import { type PluginBuild, sharedPluginBuild } from './mcs.js';

/**
 * The plugin's Unity half — SbevalEngineHost → LevelRun → BodyTracker → CaptureRenderer, and the
 * batch-mode entry — executed under mono through the test double (unity-plugin/TestDouble: a
 * UnityEngine with Unity's player-loop order, a fake Science Birds game whose bodies follow a script)
 * against the real TypeScript endpoint over real sockets. The stand-in editor is started with the
 * command line `sbeval unity launch` gives Unity.
 */
let build: PluginBuild;
let dir: string;
let project: string;
let scripts: string;

beforeAll(async () => {
  build = await sharedPluginBuild();
  dir = mkdtempSync(join(tmpdir(), 'sbeval-unity-double-'));
  project = join(dir, 'project');
  // What `sbeval unity install` leaves in a project (the stand-in checks the plugin is there).
  mkdirSync(join(project, 'Assets', 'Sbeval', 'Runtime'), { recursive: true });
  writeFileSync(join(project, 'Assets', 'Sbeval', 'Runtime', 'Protocol.cs'), '// installed\n');
  scripts = join(dir, 'scripts');
  mkdirSync(scripts);
}, 900_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// --- the scripted level -----------------------------------------------------------------------------

const G = -3.5; // ground top
/** The out-of-world limit of a width-3 level (±LevelWidth/2 = ±26.25) and a SquareTiny's half width. */
const WORLD_EDGE = 26.25;
/**
 * A block sliding right 0.01 per step whose x-extent leaves the world on step `k` (and not before):
 * the game's Update kills it in that frame (ABGameObject.DestroyIfOutScreen).
 */
const leavesOn = (k: number) => WORLD_EDGE + 0.11 + 0.005 - 0.01 * k;
const LEAVES_IN_WINDOW = 300;
/** The image step: this block dies in the Update of the frame the evaluator's camera renders. */
const LEAVES_ON_IMAGE = 514;
/** XML order mixes kinds; the game creates pigs, blocks, platforms, then TNT — ids must follow the XML. */
const OBJECTS: Array<{ el: string; type: string; x: number; y: number; rotation: number; material?: string }> = [
  { el: 'Block', type: 'RectSmall', x: 3.0, y: G + 0.11, rotation: 0 }, // 0: settles 0.15 in step 1, then still
  { el: 'Pig', type: 'BasicSmall', x: -5.0, y: G + 0.225, rotation: 0 }, // 1: jumps 0.15 on step 503 (the last read); outside the camera's view
  { el: 'Block', type: 'SquareTiny', x: 4.0, y: G + 0.105, rotation: 0 }, // 2: overlaps 3 exactly; pushed −0.1 in step 1; jumps on step 504
  { el: 'Block', type: 'SquareTiny', x: 4.0, y: G + 0.105, rotation: 0 }, // 3: overlaps 2; pushed +0.1 in step 1
  { el: 'TNT', type: '', x: 6.0, y: G + 0.33, rotation: 0 }, // 4: creeps, dies on step 40
  { el: 'Platform', type: 'Platform', x: 2.5, y: -1.0, rotation: 0 }, // 5: kinematic, still
  { el: 'Block', type: 'RectSmall', x: 3.5, y: G + 0.36, rotation: 90 }, // 6: slides and turns steadily
  { el: 'Block', type: 'SquareTiny', material: 'stone', x: 4.6, y: G + 0.105, rotation: 0 }, // 7: stone, still
  { el: 'Block', type: 'RectSmall', material: 'ice', x: 5.6, y: G + 0.11, rotation: 0 }, // 8: ice, still
  { el: 'Block', type: 'SquareTiny', x: leavesOn(LEAVES_IN_WINDOW), y: G + 0.105, rotation: 0 }, // 9: leaves the world on step 300
  { el: 'Block', type: 'SquareTiny', x: leavesOn(LEAVES_ON_IMAGE), y: G + 0.105, rotation: 0 }, // 10: leaves the world on step 514
];
/** Where block 9 is removed: `Invoke(0.5 s)` from its death in frame 300 goes in the Update of the 26th frame after (0.02 added 25 times is 0.49999999 < 0.5). */
const REMOVED_9 = LEAVES_IN_WINDOW + 26;

function levelXml(objects = OBJECTS, marker = ''): string {
  const lines = objects.map((o) => {
    const material = o.el === 'Block' ? ` material="${o.material ?? 'wood'}"` : '';
    return `    <${o.el} type="${o.type}"${material} x="${o.x}" y="${o.y}" rotation="${o.rotation}" />`;
  });
  return [
    '<?xml version="1.0" encoding="utf-16"?>',
    '<Level width="3">',
    '  <Camera x="2" y="0" minWidth="17" maxWidth="22" />',
    '  <Birds>',
    '    <Bird type="BirdRed" />',
    '  </Birds>',
    '  <Slingshot x="-9" y="-2.5" />',
    '  <GameObjects>',
    ...lines,
    '  </GameObjects>',
    `</Level>${marker}`,
    '',
  ].join('\n');
}

const TNT_DEATH = 40;
const STEPS = 515; // rows 0 … 514

/** State of object i after k physics steps (x, y, angle rad, vx, vy, ω rad/s) — all float32 when written. Step 0: as created, at rest. */
function scripted(i: number, k: number): [number, number, number, number, number, number] {
  const o = OBJECTS[i]!;
  if (k === 0) return [o.x, o.y, (o.rotation * Math.PI) / 180, 0, 0, 0];
  const angle = (o.rotation * Math.PI) / 180;
  switch (i) {
    case 0:
      return [o.x, o.y - (k >= 1 ? 0.15 : 0), 0, 0, k === 1 ? -7.5 : 0, 0];
    case 1:
      return [o.x + (k >= 503 ? 0.15 : 0), o.y, 0, 0, 0, 0];
    case 2:
      return [o.x - (k >= 1 ? 0.1 : 0) + (k >= 504 ? 0.3 : 0), o.y, 0, k === 1 ? -5 : 0, 0, 0];
    case 3:
      return [o.x + (k >= 1 ? 0.1 : 0), o.y, 0, k === 1 ? 5 : 0, 0, 0];
    case 4: {
      const m = Math.min(k, TNT_DEATH - 1);
      return [o.x + 0.0001 * m, o.y, 0, k < TNT_DEATH ? 0.005 : 0, 0, 0];
    }
    case 6:
      return [o.x + 0.0002 * k, o.y, angle + 0.001 * k, 0.01, 0, 0.05];
    case 9:
    case 10:
      return [o.x + 0.01 * k, o.y, 0, 0.5, 0, 0];
    default:
      return [o.x, o.y, angle, 0, 0, 0];
  }
}

/** The script's alive flag (as the headless engine records it: dead from the step of the death). */
function scriptedAlive(i: number, k: number): number {
  if (i === 4) return k >= TNT_DEATH ? 0 : 1;
  if (i === 9) return k >= LEAVES_IN_WINDOW ? 0 : 1;
  if (i === 10) return k >= LEAVES_ON_IMAGE ? 0 : 1;
  return 1;
}

/**
 * What the plugin streams for object i on step k: the state right after the k-th physics step. A body
 * that leaves the world dies in that frame's Update, after the sample: alive on its last step inside
 * the stream, dead from the next with the velocity Die() zeroed; once removed, its last state — the
 * state of its removal step when the Update that removed it came after that step's physics (one step
 * per frame), of the step before when a frame without a step removed it (`lastRow9`).
 */
function streamed(i: number, k: number, lastRow9 = REMOVED_9): { state: number[]; alive: number } {
  if (i === 9 && k > LEAVES_IN_WINDOW) {
    const row = scripted(i, Math.min(k, lastRow9));
    return { state: [row[0], row[1], row[2], 0, 0, row[5]], alive: 0 };
  }
  if (i === 9 || i === 10) return { state: scripted(i, k), alive: 1 };
  return { state: scripted(i, k), alive: scriptedAlive(i, k) };
}

/**
 * Contacts of every kind of object, so that a probe missing on any kind is seen: a pig and a TNT on the
 * ground (only their own probes see those), the platform against block 6 (the platform has the lower
 * id: only its probe reports the pair), blocks with the ground and each other. The platform's contact
 * has speed 0: in the game a platform has no health, and a block hit at speed 0 loses none either.
 */
const CONTACTS = [
  { step: 1, a: 0, b: -1, speed: 0.7 },
  { step: 1, a: 2, b: 3, speed: 1.5 },
  { step: 1, a: 1, b: -1, speed: 0.4 },
  { step: 1, a: 4, b: -1, speed: 0.2 },
  { step: 30, a: 0, b: 6, speed: 0.3 },
  { step: 31, a: 5, b: 6, speed: 0 },
];

function makeScript(): DoubleScript {
  const n = OBJECTS.length;
  const states = new Float32Array(STEPS * n * FIELD_COUNT);
  const alive = new Uint8Array(STEPS * n);
  for (let k = 0; k < STEPS; k++) {
    for (let i = 0; i < n; i++) {
      states.set(scripted(i, k), (k * n + i) * FIELD_COUNT);
      alive[k * n + i] = scriptedAlive(i, k);
    }
  }
  return {
    bodies: n,
    steps: STEPS,
    states,
    alive,
    contacts: CONTACTS.map((c) => ({ ...c })),
    // Their deaths are the game's: it finds them outside the world in its Update.
    outOfWorld: [9, 10],
  };
}

const f32 = Math.fround;

/** Everything a run of the scripted level must show; [] when it does. The broken player loop must make this non-empty. */
function problemsWithScriptedRun(run: Collected, error: unknown, capture: boolean, lastRow9 = REMOVED_9): string[] {
  if (error) return [`the run failed: ${(error as Error).message}`];
  const problems: string[] = [];
  const n = OBJECTS.length;
  const bodies = run.bodies ?? [];
  // `loaded`: XML ids (creation order per kind), kinds, the creation pose.
  const expectKinds = ['block', 'pig', 'block', 'block', 'tnt', 'platform', 'block', 'block', 'block', 'block', 'block'];
  if (JSON.stringify(bodies.map((b) => [b.id, b.kind])) !== JSON.stringify(expectKinds.map((k, i) => [i, k])))
    problems.push(`body table ${JSON.stringify(bodies.map((b) => [b.id, b.kind]))}`);
  bodies.forEach((b, i) => {
    if (b.x !== f32(OBJECTS[i]!.x) || b.y !== f32(OBJECTS[i]!.y)) problems.push(`body ${i} announced at (${b.x}, ${b.y})`);
  });
  if (run.dt !== 0.02) problems.push(`dt ${run.dt}`);
  // Frames: step k of the stream is the state after k physics steps, for every k.
  let frames;
  try {
    frames = run.allFrames();
  } catch (e) {
    return [...problems, (e as Error).message];
  }
  const last = stepsToSimulate({ windowSteps: 500, capture });
  if (frames.stepCount !== last + 1) problems.push(`${frames.stepCount} steps streamed, expected ${last + 1}`);
  const diffs: string[] = [];
  for (let k = 0; k < Math.min(frames.stepCount, STEPS); k++) {
    for (let i = 0; i < n; i++) {
      const o = (k * n + i) * FIELD_COUNT;
      const expected = streamed(i, k, lastRow9);
      const want = expected.state.map(f32);
      const got = Array.from(frames.states.subarray(o, o + FIELD_COUNT));
      // x, y, vx, vy travel as the same float32; angle and ω go through Unity's degrees (one rounding each way).
      const ok =
        got[0] === want[0] &&
        got[1] === want[1] &&
        got[3] === want[3] &&
        got[4] === want[4] &&
        Math.abs(got[2]! - want[2]!) < 1e-6 &&
        Math.abs(got[5]! - want[5]!) < 1e-6;
      const aliveWant = expected.alive;
      if (!ok || frames.alive[k * n + i] !== aliveWant)
        diffs.push(`step ${k} body ${i}: ${got.join(',')} alive ${frames.alive[k * n + i]} (script ${want.join(',')} alive ${aliveWant})`);
    }
  }
  if (diffs.length > 0) problems.push(`${diffs.length} frame values differ from the script, first: ${diffs[0]}`);
  // Events: contacts from step 1 on, the game's damage, the TNT's death and removal.
  const key = (e: SimEvent): string => JSON.stringify(e);
  const events = run.eventList.map(key).sort();
  const tnt = scripted(4, TNT_DEATH);
  const want: SimEvent[] = [
    ...CONTACTS.map((c) => ({ kind: 'contact' as const, step: c.step, a: c.a, b: c.b, relativeSpeed: f32(c.speed) })),
    { kind: 'damage', step: 1, id: 0, amount: f32(5 - f32(5 - f32(0.7))), health: f32(5 - f32(0.7)) },
    { kind: 'damage', step: 1, id: 2, amount: f32(1.5), health: f32(3.5) },
    { kind: 'damage', step: 1, id: 3, amount: f32(1.5), health: f32(3.5) },
    { kind: 'damage', step: 1, id: 1, amount: f32(2 - f32(2 - f32(0.4))), health: f32(2 - f32(0.4)) },
    { kind: 'damage', step: 1, id: 4, amount: f32(2 - f32(2 - f32(0.2))), health: f32(2 - f32(0.2)) },
    { kind: 'damage', step: 30, id: 0, amount: f32(f32(5 - f32(0.7)) - f32(f32(5 - f32(0.7)) - f32(0.3))), health: f32(f32(5 - f32(0.7)) - f32(0.3)) },
    { kind: 'damage', step: 30, id: 6, amount: f32(5 - f32(5 - f32(0.3))), health: f32(5 - f32(0.3)) },
    { kind: 'destroyed', step: TNT_DEATH, id: 4 },
    { kind: 'explosion', step: TNT_DEATH, id: 4, x: f32(tnt[0]), y: f32(tnt[1]) },
    // Die() → Invoke(0.5 s): the game clock adds the float 0.02 25 times (0.49999999 < 0.5), so the
    // object goes in the Update of the 26th frame, and that step's end-of-frame read misses it.
    { kind: 'removed', step: TNT_DEATH + 26, id: 4, reason: 'death' },
    // Block 9 leaves the world on step 300: the game kills it in that frame's Update, after the plugin
    // sampled the step, so the plugin sees it dead on step 301; it is gone from the Update of frame 326.
    { kind: 'destroyed', step: LEAVES_IN_WINDOW + 1, id: 9 },
    { kind: 'removed', step: REMOVED_9, id: 9, reason: 'out-of-world' },
  ];
  const wanted = want.map(key).sort();
  const missing = wanted.filter((e) => !events.includes(e));
  const extra = events.filter((e) => !wanted.includes(e));
  if (missing.length > 0) problems.push(`missing events: ${missing.join(' ')}`);
  if (extra.length > 0) problems.push(`unexpected events: ${extra.join(' ')}`);
  // The evaluator's window on this stream: start on step 1 (body 0's settling is not movement), last read on 503 (the pig's jump is).
  const verdict = trialStability(bodies, [frames], run.eventList, 500);
  if (JSON.stringify(verdict.moving) !== JSON.stringify([1, 6, 9, 10])) problems.push(`moving ${JSON.stringify(verdict.moving)}, expected [1,6,9,10]`);
  return problems;
}

/**
 * What is wrong with a capture: colours other than pure black and white, black outside the 824 px
 * render placed at (100, 100), or a structure that does not reach the render's left edge (the
 * leftmost block's sprite overhangs the structure bound by 0.01 and is clipped at pixel 100).
 */
async function imageProblems(png: Uint8Array): Promise<string[]> {
  const { rgba, width, height } = await decodePng(png);
  const problems: string[] = [];
  let other = 0;
  let minX = width;
  let minY = height;
  let maxX = -1;
  let maxY = -1;
  for (let i = 0; i < width * height; i++) {
    const [r, g, b, a] = [rgba[i * 4], rgba[i * 4 + 1], rgba[i * 4 + 2], rgba[i * 4 + 3]];
    if (a !== 255 || !((r === 0 && g === 0 && b === 0) || (r === 255 && g === 255 && b === 255))) {
      if (other++ === 0) problems.push(`pixel (${i % width}, ${Math.floor(i / width)}) is ${r},${g},${b},${a}`);
      continue;
    }
    if (r !== 0) continue;
    minX = Math.min(minX, i % width);
    maxX = Math.max(maxX, i % width);
    minY = Math.min(minY, Math.floor(i / width));
    maxY = Math.max(maxY, Math.floor(i / width));
  }
  if (other > 0) problems.push(`${other} pixels are neither black nor white`);
  if (minX !== 100 || maxX > 923 || minY < 100 || maxY > 923)
    problems.push(`black box x ${minX}…${maxX}, y ${minY}…${maxY}: not inside the render at 100…923 from its left edge`);
  return problems;
}

/** The tEXt comment the double's renderer writes into a PNG. */
function renderInfo(png: Uint8Array): Record<string, string> {
  const text = Buffer.from(png).toString('latin1');
  const at = text.indexOf('tEXtComment\0');
  const info: Record<string, string> = {};
  if (at < 0) return info;
  const end = text.indexOf('IDAT', at);
  for (const part of text.slice(at + 12, end - 8).split(' ')) {
    const [k, v] = part.split('=');
    if (k && v !== undefined) info[k] = v;
  }
  return info;
}

/** The evaluator's structure bound on step 501 from the script: union of the rotated collider AABBs of the ABBlocks that still exist. */
function boundAt(k: number): { cx: number; cy: number; half: number } {
  const sizes: Record<string, [number, number]> = { RectSmall: [0.7, 0.22], SquareTiny: [0.22, 0.21] };
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  OBJECTS.forEach((o, i) => {
    if (o.el !== 'Block' || (i === 9 && k >= REMOVED_9)) return;
    const [x, y, a] = scripted(i, k).map(f32) as [number, number, number];
    const [w, h] = sizes[o.type]!;
    const ex = (Math.abs(Math.cos(a)) * w) / 2 + (Math.abs(Math.sin(a)) * h) / 2;
    const ey = (Math.abs(Math.sin(a)) * w) / 2 + (Math.abs(Math.cos(a)) * h) / 2;
    minX = Math.min(minX, x - ex);
    maxX = Math.max(maxX, x + ex);
    minY = Math.min(minY, y - ey);
    maxY = Math.max(maxY, y + ey);
  });
  return { cx: (minX + maxX) / 2, cy: (minY + maxY) / 2, half: Math.max(maxX - minX, maxY - minY) / 2 };
}

async function runLevel(
  engine: RemoteEngine,
  levelId: string,
  xml: string,
  settings: Parameters<typeof job>[2] = {},
): Promise<{ run: Collected; error: unknown }> {
  const run = new Collected();
  try {
    await engine.run(job(levelId, xml, settings), run.sink);
    return { run, error: undefined };
  } catch (error) {
    return { run, error };
  }
}

/** A TCP relay between the stand-in and the endpoint that the test can cut (a lost connection). */
class Relay {
  private constructor(
    private readonly server: Server,
    private readonly sockets: Set<Socket>,
    readonly port: number,
  ) {}

  static async start(targetPort: number): Promise<Relay> {
    const sockets = new Set<Socket>();
    const server = createServer((client) => {
      const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    return new Relay(server, sockets, (server.address() as { port: number }).port);
  }

  cut(): void {
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The wall-clock load limit the main stand-in runs with (-sbevalLoadTimeout): far above what a decodable level takes here. */
const LOAD_TIMEOUT_S = 3;

describe('the Unity half, run by the test double against the real endpoint', () => {
  let endpoint: EngineEndpoint;
  let relay: Relay;
  let standIn: ReturnType<typeof startStandIn>;
  let engine: RemoteEngine;
  let logFile: string;
  const xml = levelXml();

  beforeAll(async () => {
    writeScript(scripts, xml, 'any', makeScript());
    endpoint = await EngineEndpoint.listen({ heartbeatMs: 1_000 });
    relay = await Relay.start(Number(new URL(endpoint.url).port));
    logFile = join(dir, 'unity-main.log');
    standIn = startStandIn(build.standIn, {
      project,
      url: `ws://127.0.0.1:${relay.port}`,
      instance: 'double-0',
      token: endpoint.token,
      logFile,
      scripts,
      extraArgs: ['-sbevalLoadTimeout', String(LOAD_TIMEOUT_S)],
    });
    [engine] = (await endpoint.waitForEngines(1, 60_000)) as [RemoteEngine];
  }, 120_000);

  afterAll(async () => {
    await endpoint?.close();
    await relay?.close();
    const result = await standIn;
    expect(result.exitCode, readFileSync(logFile, 'utf8')).toBe(0);
  }, 60_000);

  it('announces itself as the Unity engine with capture (the OCR asset was found), its build the plugin version', () => {
    expect(engine.id).toBe('double-0');
    // The plugin ships with sbeval: its version is the package's, what a cache entry records besides the editor's.
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(engine.identity).toMatchObject({ kind: 'unity', version: '2019.4.40f1-double', build: pkg.version });
    expect(engine.capabilities).toMatchObject({ frames: true, events: true, capture: true, captureRaw: true, cancel: true });
  });

  it("frames a level without blocks as the evaluator does on its first level: around the render camera's scene position, blank", async () => {
    const pigOnly = levelXml([{ el: 'Pig', type: 'BasicSmall', x: 3, y: G + 0.225, rotation: 0 }]);
    const { run, error } = await runLevel(engine, 'pig-only', pigOnly);
    expect(error).toBeUndefined();
    const png = run.captures[0]!.png;
    // 20 × 20 around (330.58395, 249.06973), the camera's position in BatchSimilarityTest.unity: nothing there.
    const info = renderInfo(png);
    const [x, y, z] = info.camera!.split(',').map(Number) as [number, number, number];
    expect(x).toBeCloseTo(330.58395, 4);
    expect(y).toBeCloseTo(249.06973, 4);
    expect(z).toBe(-15);
    expect(info).toMatchObject({ size: '10', sprites: '0' });
    const { rgba } = await decodePng(png);
    expect(rgba.every((v) => v === 255)).toBe(true);
  }, 60_000);

  it('streams the scripted motion exactly, step k = after k physics steps, with contacts from step 1, and captures on steps 501/507/514 in a separate image pass', async () => {
    const { run, error } = await runLevel(engine, 'scripted', xml, { captureRaw: true, framesPerBatch: 64 });
    expect(problemsWithScriptedRun(run, error, true)).toEqual([]);
    // The image pass: bound on step 501 sets the camera; `_raw` renders step 507, the image step 514.
    const image = renderInfo(run.captures[0]!.png);
    const raw = renderInfo(run.captures[0]!.raw!);
    expect(raw.steps).toBe(String(OFFICIAL_WINDOW.rawStep));
    expect(image.steps).toBe(String(OFFICIAL_WINDOW.imageStep));
    const bound = boundAt(OFFICIAL_WINDOW.boundStep);
    const [cx, cy, cz] = image.camera!.split(',').map(Number) as [number, number, number];
    expect(cx).toBeCloseTo(bound.cx, 5);
    expect(cy).toBeCloseTo(bound.cy, 5);
    expect(cz).toBe(-15); // the gameplay camera's z
    expect(Number(image.size)).toBeCloseTo(bound.half, 5);
    // The two passes ran in their scenes at their time scales, in this order.
    const log = readFileSync(logFile, 'utf8');
    const tail = log.slice(log.lastIndexOf('Time.timeScale = 10', log.lastIndexOf('StabilityGameWorld.unity')));
    expect(tail).toMatch(
      /Time.timeScale = 10[\s\S]*scene loaded: Assets\/ICE\/Scenes\/StabilityGameWorld.unity[\s\S]*scene unloaded: Assets\/ICE\/Scenes\/StabilityGameWorld.unity[\s\S]*Time.timeScale = 5[\s\S]*scene loaded: Assets\/ICE\/Scenes\/SimilarityGameWorld.unity[\s\S]*scene unloaded: Assets\/ICE\/Scenes\/SimilarityGameWorld.unity/,
    );
    // The image: black OCR sprites of every material on white, inside the 824 px render at (100, 100).
    expect(await imageProblems(run.captures[0]!.png)).toEqual([]);
    // Rendered after the frame's game logic: block 10 left the world in the Update of frame 514 and is
    // not drawn (Die cleared its colour); the `_raw` image of step 507 still shows it. The pig is
    // outside the view, the TNT died on step 40, block 9 is gone: 6 blocks, and 7 on the raw image.
    expect(image.sprites).toBe('6');
    expect(raw.sprites).toBe('7');
  }, 120_000);

  it('without a capture: the stability pass only, steps 0 … 503', async () => {
    const { run, error } = await runLevel(engine, 'scripted-no-capture', xml, { capture: false });
    expect(problemsWithScriptedRun(run, error, false)).toEqual([]);
    expect(run.captures).toHaveLength(0);
  }, 60_000);

  it('blames the level when the game does not create what the XML lists (an unknown block type stops DecodeLevel)', async () => {
    const broken = levelXml([OBJECTS[0]!, { el: 'Block', type: 'RectHuge', x: 4, y: G + 0.11, rotation: 0 }, OBJECTS[6]!]);
    const { error } = await runLevel(engine, 'unknown-type', broken);
    expect(error).toBeInstanceOf(RemoteRunError);
    expect((error as RemoteRunError).levelError).toBe(true);
    expect((error as Error).message).toMatch(/the game created 1 block, the level XML lists 3/);
    // The engine goes on serving.
    const { run, error: again } = await runLevel(engine, 'after-mismatch', xml, { capture: false });
    expect(problemsWithScriptedRun(run, again, false)).toEqual([]);
  }, 60_000);

  it('waits for a slow world load by the clock, not by frames: a load of 700 frames (an uncapped batch-mode editor) still runs', async () => {
    const slow = levelXml(OBJECTS, '\n<!-- sbeval-double: load-frames=700 -->');
    writeScript(scripts, slow, 'any', makeScript());
    const { run, error } = await runLevel(engine, 'slow-load', slow, { capture: false });
    expect(problemsWithScriptedRun(run, error, false)).toEqual([]);
    expect(readFileSync(logFile, 'utf8')).toMatch(/scene loaded: Assets\/ICE\/Scenes\/StabilityGameWorld\.unity \(frame \d+\)/);
  }, 60_000);

  it('fails a level the game never decodes once the wall-clock limit has passed, and serves the next one', async () => {
    const never = levelXml(OBJECTS, '\n<!-- sbeval-double: no-decode -->');
    const { error } = await runLevel(engine, 'no-decode', never, { capture: false });
    expect(error).toBeInstanceOf(RemoteRunError);
    expect((error as Error).message).toMatch(new RegExp(`ABGameWorld did not decode the level within ${LOAD_TIMEOUT_S} s \\(wall clock\\)`));
    const { run, error: next } = await runLevel(engine, 'after-no-decode', xml, { capture: false });
    expect(problemsWithScriptedRun(run, next, false)).toEqual([]);
  }, 60_000);

  it('ends a cancelled level with an error, unloads its scene, and serves the next level exactly', async () => {
    const abort = new AbortController();
    const slow = new Collected();
    const cancelled = engine.run(
      job('long', xml, { windowSteps: 50_000, capture: false, framesPerBatch: 10 }),
      {
        ...slow.sink,
        frames: (batch) => {
          slow.sink.frames(batch);
          if (batch.firstStep >= 20) abort.abort();
        },
      },
      abort.signal,
    );
    await expect(cancelled).rejects.toThrow(/cancelled/);
    const { run, error } = await runLevel(engine, 'after-cancel', xml, { capture: false });
    expect(problemsWithScriptedRun(run, error, false)).toEqual([]);
  }, 60_000);

  it('survives a lost connection mid-level: reconnects, unloads the abandoned level, serves the next one exactly', async () => {
    const next = new Promise<RemoteEngine>((resolve) => {
      const off = endpoint.onEngine((e) => {
        off();
        resolve(e);
      });
    });
    const lost = engine.run(job('lost', xml, { windowSteps: 50_000, capture: false, framesPerBatch: 10 }), {
      ...new Collected().sink,
      frames: () => relay.cut(),
    });
    await expect(lost).rejects.toBeInstanceOf(EngineLostError);
    engine = await next;
    expect(engine.id).toBe('double-0');
    const { run, error } = await runLevel(engine, 'after-reconnect', xml, { captureRaw: false });
    expect(problemsWithScriptedRun(run, error, true)).toEqual([]);
    const log = readFileSync(logFile, 'utf8');
    expect(log).toMatch(/\[sbeval\] connection ended \(.*\); reconnecting in \d+ ms/);
  }, 120_000);
});

describe('the same checks on other player loops', () => {
  let endpoint: EngineEndpoint;
  beforeAll(async () => {
    endpoint = await EngineEndpoint.listen();
  });
  afterAll(async () => {
    await endpoint.close();
  });

  async function oneRun(exe: string, name: string, extraArgs: string[] = []) {
    const xml = levelXml();
    writeScript(scripts, xml, 'any', makeScript());
    const logFile = join(dir, `unity-${name}.log`);
    const child = startStandIn(exe, { project, url: endpoint.url, instance: name, token: endpoint.token, logFile, scripts, extraArgs });
    const found = new Promise<RemoteEngine>((resolve) => {
      const off = endpoint.onEngine((e) => {
        if (e.id === name) {
          off();
          resolve(e);
        }
      });
    });
    const engine = await found;
    const result = await runLevel(engine, name, xml, { capture: false });
    await engine.close();
    const exit = await child;
    return { ...result, exit, log: readFileSync(logFile, 'utf8') };
  }

  it('frames faster than physics steps (1 ms at time scale 10: a step every other frame) give the same stream', async () => {
    const { run, error, log } = await oneRun(build.standIn, 'fast-frames', ['-doubleFrameMs', '1']);
    // Block 9's removal (0.5 s of 0.01-s frames after its death) comes in a frame between steps 325 and 326.
    expect(problemsWithScriptedRun(run, error, false, REMOVED_9 - 1)).toEqual([]);
    expect(log).toContain('-doubleFrameMs 1');
  }, 120_000);

  it('a player loop that steps physics before FixedUpdate (probes attached after the first step) fails the checks above', async () => {
    expect(existsSync(build.brokenStandIn)).toBe(true);
    const { run, error, log } = await oneRun(build.brokenStandIn, 'broken-loop');
    const problems = problemsWithScriptedRun(run, error, false);
    expect(problems).not.toEqual([]);
    expect(problems.join('\n')).toMatch(/went through a physics step before the plugin saw them/);
    expect(log).toMatch(/went through a physics step before the plugin saw them/);
  }, 120_000);
});

describe('an editor without a graphics device (-nographics)', () => {
  let endpoint: EngineEndpoint;
  beforeAll(async () => {
    endpoint = await EngineEndpoint.listen();
  });
  afterAll(async () => {
    await endpoint.close();
  });

  it('does not announce capture, says why, and refuses a level that asks for one; it still simulates', async () => {
    const xml = levelXml();
    writeScript(scripts, xml, 'any', makeScript());
    const logFile = join(dir, 'unity-nographics.log');
    const child = startStandIn(build.standIn, {
      project,
      url: endpoint.url,
      instance: 'nographics',
      token: endpoint.token,
      logFile,
      scripts,
      extraArgs: ['-nographics'],
    });
    const engine = (await endpoint.waitForEngines(1, 60_000)).find((e) => e.id === 'nographics') as RemoteEngine;
    expect(engine.capabilities).toMatchObject({ capture: false, captureRaw: false, frames: true });
    expect(engine.identity.description).toMatch(/no capture: no graphics device \(the editor runs with -nographics\)/);
    const refused = await runLevel(engine, 'wants-capture', xml);
    expect(String(refused.error)).toMatch(/cannot run level wants-capture: it lacks capture/);
    const { run, error } = await runLevel(engine, 'no-capture', xml, { capture: false });
    expect(problemsWithScriptedRun(run, error, false)).toEqual([]);
    await engine.close();
    expect((await child).exitCode).toBe(0);
  }, 120_000);
});

describe('an editor whose graphics device renders nothing (-doubleBroken blank-capture)', () => {
  it('refuses the blank capture of a level with blocks, naming SystemInfo.graphicsDeviceType, and serves the next level', async () => {
    const endpoint = await EngineEndpoint.listen();
    const xml = levelXml();
    writeScript(scripts, xml, 'any', makeScript());
    const logFile = join(dir, 'unity-blank.log');
    const child = startStandIn(build.standIn, {
      project,
      url: endpoint.url,
      instance: 'blank',
      token: endpoint.token,
      logFile,
      scripts,
      extraArgs: ['-doubleBroken', 'blank-capture'],
    });
    try {
      const engine = (await endpoint.waitForEngines(1, 60_000)).find((e) => e.id === 'blank') as RemoteEngine;
      expect(engine.capabilities).toMatchObject({ capture: true });
      const refused = await runLevel(engine, 'blank', xml);
      expect(String(refused.error)).toMatch(
        /while rendering its capture: the capture is blank: every pixel of the 824 × 824 render is \(255, 255, 255, 255\) although \d+ block\(s\) are in view — this editor's graphics device \(SystemInfo\.graphicsDeviceType OpenGLCore\) rendered nothing/,
      );
      expect(refused.run.captures).toEqual([]);
      const { run, error } = await runLevel(engine, 'after-blank', xml, { capture: false });
      expect(problemsWithScriptedRun(run, error, false)).toEqual([]);
    } finally {
      await endpoint.close();
    }
    expect((await child).exitCode).toBe(0);
  }, 120_000);
});

describe('shutdown on a Mono whose ClientWebSocket.Abort() throws NotImplementedException (-doubleBroken abort-throws)', () => {
  it('serves a level, then on bye closes the socket with Dispose() instead and still exits 0', async () => {
    const endpoint = await EngineEndpoint.listen();
    const xml = levelXml();
    writeScript(scripts, xml, 'any', makeScript());
    const logFile = join(dir, 'unity-abort-throws.log');
    const child = startStandIn(build.standIn, {
      project,
      url: endpoint.url,
      instance: 'abort-throws',
      token: endpoint.token,
      logFile,
      scripts,
      extraArgs: ['-doubleBroken', 'abort-throws'],
    });
    try {
      const engine = (await endpoint.waitForEngines(1, 60_000)).find((e) => e.id === 'abort-throws') as RemoteEngine;
      const { run, error } = await runLevel(engine, 'before-bye', xml, { capture: false });
      expect(problemsWithScriptedRun(run, error, false)).toEqual([]);
    } finally {
      await endpoint.close();
    }
    const result = await child;
    const log = readFileSync(logFile, 'utf8');
    expect(result.exitCode, log).toBe(0);
    expect(log).toMatch(/\[double\] ClientWebSocket\.Abort\(\): throwing NotImplementedException/);
    expect(log).toMatch(/\[sbeval\] ClientWebSocket\.Abort\(\) threw NotImplementedException; closed the socket with Dispose\(\) instead/);
    expect(log).toMatch(/\[sbeval\] quitting with exit code 0/);
  }, 120_000);
});

describe('batch-mode entry: the editor command line', () => {
  let endpoint: EngineEndpoint;
  beforeAll(async () => {
    endpoint = await EngineEndpoint.listen();
  });
  afterAll(async () => {
    await endpoint.close();
  });

  const logOf = (name: string): string => join(dir, `args-${name}.log`);

  it('exits 2 without -sbevalUrl, and 2 with a URL but no token', async () => {
    const noUrl = await startStandIn(build.standIn, { project, logFile: logOf('no-url') });
    expect(noUrl.exitCode).toBe(2);
    expect(readFileSync(logOf('no-url'), 'utf8')).toMatch(/\[sbeval\] missing -sbevalUrl/);
    const noToken = await startStandIn(build.standIn, { project, url: endpoint.url, logFile: logOf('no-token') });
    expect(noToken.exitCode).toBe(2);
    expect(readFileSync(logOf('no-token'), 'utf8')).toMatch(/-sbevalUrl given without a token: pass -sbevalToken or set SBEVAL_TOKEN/);
  }, 60_000);

  it('exits 1 when the plugin is not installed in the project (the entry method does not exist)', async () => {
    const bare = join(dir, 'bare-project');
    mkdirSync(bare, { recursive: true });
    const result = await startStandIn(build.standIn, { project: bare, url: endpoint.url, token: endpoint.token, logFile: logOf('bare') });
    expect(result.exitCode).toBe(1);
    expect(readFileSync(logOf('bare'), 'utf8')).toMatch(/executeMethod method Sbeval\.Bridge\.EditorTools\.SbevalBatchEntry\.Run could not be found/);
  }, 60_000);

  it('takes the token from -sbevalToken, the name from -sbevalInstance, and the stability time scale from -sbevalTimeScale', async () => {
    const xml = levelXml();
    const child = startStandIn(build.standIn, {
      project,
      url: endpoint.url,
      instance: 'named',
      token: endpoint.token,
      tokenOnCommandLine: true,
      logFile: logOf('named'),
      scripts,
      extraArgs: ['-sbevalTimeScale', '4'],
    });
    const engine = (await endpoint.waitForEngines(1, 60_000)).find((e) => e.id === 'named') as RemoteEngine;
    expect(engine).toBeDefined();
    const { error } = await runLevel(engine, 'time-scale', xml, { windowSteps: 20 });
    expect(error).toBeUndefined();
    await engine.close();
    const result = await child;
    expect(result.exitCode).toBe(0);
    const log = readFileSync(logOf('named'), 'utf8');
    expect(log).toMatch(/Time.timeScale = 4[\s\S]*StabilityGameWorld[\s\S]*Time.timeScale = 5[\s\S]*SimilarityGameWorld[\s\S]*Time.timeScale = 4/);
    expect(log).toContain('-sbevalToken');
  }, 60_000);
});
