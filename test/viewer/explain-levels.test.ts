import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTrace } from '../../bridge/trace.js';
import { BLOCK_BODY } from '../../levels/catalog.js';
import { type Explanation, explainFrames } from '../../scoring/explain.js';
import { parseStabilityJson } from '../../scoring/formats/stability.js';
import { simulateTrialData } from '../../viewer/simulate-trial.js';
import { explainTrial } from '../../viewer/trial.js';
import { REFERENCE_LEVELS, runSbeval } from '../helpers/cli.js';

/**
 * explain on real simulations: constructed levels whose failure is known by construction, and the
 * reference levels the Unity evaluator scored below 1 (from the committed corpus of recorded traces).
 */
const CORPUS = new URL('../fixtures/corpus/', import.meta.url);

function level(blocks: string[]): string {
  const objects = blocks.map((b) => `    ${b}\n`).join('');
  return `<?xml version="1.0" encoding="utf-16"?>\n<Level width="3">\n  <Camera x="2" y="0" minWidth="17" maxWidth="22" />\n  <Birds>\n    <Bird type="BirdRed" />\n  </Birds>\n  <Slingshot x="-9" y="-2.5" />\n  <GameObjects>\n${objects}  </GameObjects>\n</Level>\n`;
}
const block = (type: string, x: number, y: number, rotation = 0) => `<Block type="${type}" material="wood" x="${x}" y="${y}" rotation="${rotation}" />`;

// Geometry (colliders from levels/catalog.ts): a vertical RectSmall (0.70 × 0.22 turned 90°) standing
// on the ground (top y = −3.5) at x = 3 reaches y ≈ −2.79 and spans x 2.89..3.11.
const PILLAR = block('RectSmall', 3, -3.14, 90);

async function explainLevel(name: string, blocks: string[]): Promise<Explanation> {
  return explainTrial(await simulateTrialData(name, level(blocks), { capture: false }));
}

// The caps are generous for a loaded 2-core CI machine (nothing here waits for a time).
describe('explain on constructed levels', { timeout: 180_000 }, () => {
  it('a plank placed over the edge of a pillar: the plank moves first, because of the overhang', async () => {
    // Plank centre at x = 3.3, 0.19 past the pillar's right edge (3.11).
    const e = await explainLevel('edge', [PILLAR, block('RectSmall', 3.3, -2.67)]);
    expect(e.firstMover).toBe(1);
    const plank = e.bodies[1]!;
    expect(plank.reason?.kind).toBe('overhang');
    expect(plank.reason?.cause).toBe(0);
    expect(plank.staticIssue).toMatchObject({ kind: 'overhang', side: 'right', edgeOf: 0, loadBodies: [1] });
    expect(plank.moved).toBe(true);
    expect(plank.motion.kind).toBe('tipped');
    expect(e.bodies[0]!.moved).toBe(false);
  });

  it('an overhang that tips: a plank fine on its own, tipped by the plank stacked out over its end', async () => {
    // Lower plank centred on the pillar; upper plank shifted 0.33 right: alone each is supported, together
    // their centre of mass (≈ 3.165) lies past the pillar's edge (3.11), so the lower plank tips with its load.
    const e = await explainLevel('overhang', [PILLAR, block('RectSmall', 3, -2.67), block('RectSmall', 3.33, -2.44)]);
    expect(e.firstMover).toBe(1);
    expect(e.bodies[1]!.reason?.kind).toBe('overhang');
    expect(e.bodies[1]!.staticIssue).toMatchObject({ kind: 'overhang', edgeOf: 0, loadBodies: [1, 2] });
    expect(e.bodies[2]!.staticIssue).toBeNull();
    expect(e.bodies[2]!.reason).toMatchObject({ kind: 'support-moved', cause: 1 });
    expect(e.origin).toBe(1);
  });

  it('a tall drop that destroys a block: the dropped plank moves first (nothing under it) and the block it hits is destroyed', async () => {
    // A square on a pillar; a plank turned 45° starts 3 units above it.
    const e = await explainLevel('drop', [PILLAR, block('SquareTiny', 3.05, -2.68), block('RectSmall', 3.1, 0.5, 45)]);
    expect(e.firstMover).toBe(2);
    expect(e.bodies[2]!.reason).toMatchObject({ kind: 'unsupported', cause: 1 });
    const square = e.bodies[1]!;
    const death = e.deaths.find((d) => d.id === 1);
    expect(death?.cause).toBe('destroyed');
    // Destroyed = health gone: at least the block's life (ABBlock._life) in damage.
    expect(square.damageTaken).toBeGreaterThanOrEqual(BLOCK_BODY.life!);
    expect(square.reason?.cause).toBe(2);
    expect(['struck', 'destroyed']).toContain(square.reason?.kind);
    // The impact is in the timeline as a contact between the two, fast enough to matter.
    expect(e.timeline.some((t) => t.kind === 'contact' && t.ids.includes(1) && t.ids.includes(2))).toBe(true);
    expect(e.timeline.some((t) => t.kind === 'destroyed' && t.ids[0] === 1)).toBe(true);
  });
});

interface GoldenLevel {
  version: string;
  character: string;
  name: string;
  score: number;
  movingObjects: number;
}

function goldenBelowOne(): GoldenLevel[] {
  const out: GoldenLevel[] = [];
  const root = REFERENCE_LEVELS;
  for (const version of readdirSync(root)) {
    for (const file of readdirSync(join(root, version, 'stability'))) {
      const character = file.replace(/\.json$/, '');
      const stability = parseStabilityJson(readFileSync(join(root, version, 'stability', file), 'utf8'));
      for (const raw of stability.raws) {
        if (raw.score >= 1) continue;
        const name = raw.tag
          .split(/[\\/]/)
          .at(-1)!
          .replace(/\.xml$/, '');
        out.push({ version, character, name, score: raw.score, movingObjects: raw.movingObjects ?? 0 });
      }
    }
  }
  return out;
}

describe('explain on the reference levels Unity scored below 1', () => {
  const levels = goldenBelowOne();

  it('finds them in the golden data', () => {
    // 24 of the 90 reference levels (v1–v3) score below 1 in the evaluator's own stability files.
    expect(levels.length).toBeGreaterThan(10);
  });

  it.each(levels.map((l) => [`${l.name} (Unity ${l.score.toFixed(3)})`, l] as const))('%s: names a first mover and a reason', async (_label, l) => {
    const trace = await readTrace(fileURLToPath(new URL(`reference/${l.version}/levels/${l.character}/${l.name}.sbtrace.gz`, CORPUS)));
    const e = explainFrames({
      levelId: l.name,
      dt: trace.dt,
      bodies: trace.bodies,
      frames: [trace.frames],
      events: trace.events,
      windowSteps: trace.header.settings.windowSteps,
    });
    expect(e.firstMover).not.toBeNull();
    const first = e.bodies.find((b) => b.id === e.firstMover)!;
    expect(first.reason).not.toBeNull();
    expect(first.reason!.kind).not.toBe('unknown');
    expect(first.reason!.kind).not.toBe('settled');
    expect(first.reason!.text.length).toBeGreaterThan(10);
    // The first mover failed (passed the threshold or died) and came no later than any other failure.
    expect(first.crossStep !== null || first.deathStep !== null).toBe(true);
    // The chain of causes ends in a body whose reason is its own.
    const origin = e.bodies.find((b) => b.id === e.origin)!;
    expect(['overlap', 'overhang', 'unsupported', 'struck', 'slid', 'destroyed']).toContain(origin.reason?.kind);
    expect(e.moving).toBeGreaterThan(0);
  });
});

describe('sbeval explain (CLI)', { timeout: 300_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sbeval-explain-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('explains a trace recorded by sbeval level --trace, as text and as JSON', async () => {
    const xml = join(REFERENCE_LEVELS, 'v1/levels/L/V1_L_1.xml');
    const trace = join(dir, 'V1_L_1.sbtrace.gz');
    const recorded = await runSbeval(['level', xml, '--trace', trace, '--trials', '1']);
    expect(recorded.exitCode, recorded.stderr).toBe(0);
    expect(recorded.stdout).toContain(`trace (trial 1): ${trace}`);

    const text = await runSbeval(['explain', trace]);
    expect(text.exitCode, text.stderr).toBe(0);
    // Unity: 4 of 6 objects moved in V1_L_1 (golden stability/L.json).
    expect(text.stdout).toContain('Verdict: 4 of 6 moved');
    expect(text.stdout).toMatch(/First mover: #\d+ RectSmall at step \d+/);
    expect(text.stdout).toContain('Order of failure');
    expect(text.stdout).toContain('Displacement from the start positions (step 1) at each second');

    const json = await runSbeval(['explain', trace, '--json']);
    expect(json.exitCode, json.stderr).toBe(0);
    const e = JSON.parse(json.stdout) as Explanation;
    expect(e.counted).toBe(6);
    expect(e.moving).toBe(4);
    expect(e.bodies).toHaveLength(6);
    expect(e.bodies[e.firstMover!]!.reason?.kind).toBe('overhang');

    // A level file is simulated once on the headless engine and explained the same way.
    const direct = await runSbeval(['explain', xml, '--json']);
    expect(direct.exitCode, direct.stderr).toBe(0);
    const d = JSON.parse(direct.stdout) as Explanation;
    expect([d.moving, d.firstMover, d.bodies[d.firstMover!]!.onsetStep]).toEqual([e.moving, e.firstMover, e.bodies[e.firstMover!]!.onsetStep]);
  });

  it('says what is wrong with a file that is not a trace', async () => {
    const bogus = join(dir, 'bogus.sbtrace');
    await writeFile(bogus, 'not a trace');
    const r = await runSbeval(['explain', bogus]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/bogus\.sbtrace/);
  });
});
