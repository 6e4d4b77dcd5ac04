import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { evaluateLevel } from '../../orchestrator/machine/index.js';
import { EnginePool } from '../../orchestrator/pool/index.js';
import { parseStabilityJson } from '../../scoring/formats/stability.js';
import { OFFICIAL_RULE } from '../../scoring/stability.js';
import { GOLDEN, REFERENCE_LEVELS, runSbeval } from '../helpers/cli.js';

/**
 * `sbeval simulate` over the official layout, with the evaluator's own results as the expectation:
 * the reference team `v1` (30 levels, commit 84df32e of modified-science-birds) plus one broken level.
 */
const REFERENCE = join(REFERENCE_LEVELS, 'v1');
let root: string;

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => statSync(join(dir, f)).isFile())
    .sort();
}

/** SHA-256 of every official output file (images, stability), keyed by path. */
function outputs(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const stage of ['images', 'stability']) {
    const dir = join(root, 'v1', stage);
    for (const f of files(dir))
      out[`${stage}/${f}`] = createHash('sha256')
        .update(readFileSync(join(dir, f)))
        .digest('hex');
  }
  return out;
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'sbeval-simulate-'));
  for (const c of ['I', 'L', 'U']) {
    cpSync(join(REFERENCE, 'levels', c), join(root, 'v1', 'levels', c), { recursive: true, filter: (src) => !src.endsWith('.txt') });
  }
  // A level the evaluator could not load: recorded with its reason, not fatal, not in the JSON.
  writeFileSync(join(root, 'v1', 'levels', 'I', 'V1_I_11.xml'), '<?xml version="1.0"?>\n<Level width="3">\n  <GameObjects>\n');
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('sbeval simulate', () => {
  let first: Record<string, string>;

  it("writes the evaluator's stability JSON byte for byte and one image per level; logs the broken level", async () => {
    const result = await runSbeval(['simulate', root, '--workers', '2', '--json']);
    expect(result.exitCode).toBe(0);
    const summary = JSON.parse(result.stdout) as { succeeded: number; failed: number; reasons: Record<string, number>; characters: string[] };
    expect(summary).toMatchObject({ succeeded: 30, failed: 1, characters: ['v1/I', 'v1/L', 'v1/U'] });
    for (const c of ['I', 'L', 'U']) {
      const ours = readFileSync(join(root, 'v1', 'stability', `${c}.json`), 'utf8');
      const unity = readFileSync(join(REFERENCE, 'stability', `${c}.json`), 'utf8');
      expect(ours).toBe(unity);
      expect(parseStabilityJson(ours).dataCount).toBe(10);
    }
    // Exactly the official files: one PNG per loadable level, nothing else in images/ or stability/.
    expect(files(join(root, 'v1', 'images'))).toEqual(
      files(join(REFERENCE, 'images'))
        .filter((f) => !f.includes('_raw'))
        .sort(),
    );
    expect(files(join(root, 'v1', 'stability'))).toEqual(['I.json', 'L.json', 'U.json']);
    const [log] = files(join(root, 'logs'));
    expect(log).toMatch(/^stability_log_.*\.txt$/);
    const lines = readFileSync(join(root, 'logs', log!), 'utf8')
      .trim()
      .split('\n');
    expect(lines).toHaveLength(31);
    expect(lines.filter((l) => l.includes('Failed'))).toEqual([
      expect.stringMatching(/team: v1 - character: I - trial: V1_I_11\.xml - Failed - level XML cannot be loaded: /),
    ]);
    expect(existsSync(join(root, '.sbeval', 'simulate', 'v1', 'I', 'V1_I_1.json'))).toBe(true);
    first = outputs();
    expect(Object.keys(first)).toHaveLength(33);
  }, 120_000);

  it('a second run finds everything done and changes nothing', async () => {
    const result = await runSbeval(['simulate', root, '--json']);
    expect(JSON.parse(result.stdout)).toMatchObject({ succeeded: 0, failed: 0, skipped: 31 });
    expect(outputs()).toEqual(first);
  }, 60_000);

  it('a forced run recomputes every level with one worker and produces byte-identical outputs', async () => {
    const result = await runSbeval(['simulate', root, '--force', '--workers', '1', '--json']);
    expect(JSON.parse(result.stdout)).toMatchObject({ succeeded: 30, failed: 1 });
    expect(outputs()).toEqual(first);
  }, 120_000);

  it('resumes: only levels whose image or cache is missing run again; filters select characters', async () => {
    rmSync(join(root, 'v1', 'images', 'L', 'V1_L_3.png'));
    rmSync(join(root, '.sbeval', 'simulate', 'v1', 'U', 'V1_U_2.json'));
    const result = await runSbeval(['simulate', root, '--chars', 'L,U', '--json']);
    expect(JSON.parse(result.stdout)).toMatchObject({ succeeded: 2, failed: 0, skipped: 18, characters: ['v1/L', 'v1/U'] });
    expect(outputs()).toEqual(first);
  }, 60_000);

  it('refuses bad options with a usage error', async () => {
    expect((await runSbeval(['simulate', root, '--sim-trials', '4'])).exitCode).toBe(2);
    const engine = await runSbeval(['simulate', root, '--engine', 'quantum', '--force']);
    expect(engine.exitCode).toBe(2);
    // A choice of the option: commander refuses it and lists the engines.
    expect(engine.stderr).toMatch(/option '--engine <kind>' argument 'quantum' is invalid\. Allowed choices are headless, headless-ws, unity, bridge\./);
  }, 60_000);
});

describe('sbeval level', () => {
  it("prints the objects, the moving ones and the evaluator's score; writes the image", async () => {
    const out = join(root, 'one.png');
    const level = join(REFERENCE, 'levels', 'L', 'V1_L_1.xml');
    const result = await runSbeval(['level', level, '--json', '--image', out]);
    expect(result.exitCode).toBe(0);
    const json = JSON.parse(result.stdout) as {
      score: number;
      startingObjects: number;
      movingObjects: number;
      objects: Array<{ moving: boolean; type: string }>;
    };
    const unity = parseStabilityJson(readFileSync(join(REFERENCE, 'stability', 'L.json'), 'utf8')).raws.find((r) => r.tag.endsWith('V1_L_1.xml'))!;
    expect(json).toMatchObject({ score: unity.score, startingObjects: unity.startingObjects, movingObjects: unity.movingObjects });
    expect(json.objects.filter((o) => o.moving)).toHaveLength(unity.movingObjects!);
    expect(readFileSync(out).subarray(1, 4).toString()).toBe('PNG');
    const text = await runSbeval(['level', level]);
    expect(text.stdout).toMatch(/MOVING \(destroyed\)/);
    expect(text.stdout).toMatch(/score 0\.3333333432674408 \(4 of 6 moving\)/);
  }, 60_000);

  it("a .txt drop program is converted the official way first (same result as the converter's XML)", async () => {
    const sample = join(GOLDEN, 'sample-levels');
    const fromText = await runSbeval(['level', join(sample, 'result_22.input.txt'), '--json']);
    expect(fromText.exitCode).toBe(0);
    const pool = new EnginePool({ engines: [new HeadlessEngine()] });
    const fromXml = await evaluateLevel(pool, 'x', readFileSync(join(sample, 'result_22.expected.xml'), 'utf8'), {
      trials: 3,
      damage: 'contact-point',
      rule: OFFICIAL_RULE,
      capture: false,
      rawImages: false,
    });
    await pool.close();
    const json = JSON.parse(fromText.stdout) as { score: number; startingObjects: number; objects: Array<{ last: [number, number] }> };
    expect(json.score).toBe(fromXml.stability.score);
    expect(json.startingObjects).toBe(fromXml.stability.startingObjects);
    expect(json.objects.map((o) => o.last)).toEqual(fromXml.details.map((d) => d.last));
  }, 60_000);
});
