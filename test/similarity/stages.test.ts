import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDiversityJson } from '../../scoring/formats/diversity.js';
import { parseSimilarityJson, type SimilarityFile } from '../../scoring/formats/similarity.js';
import { goldenPath, runSbeval } from '../helpers/cli.js';

/**
 * `sbeval similarity` / `sbeval diversity` end to end through the CLI, on real PNGs, with a tiny ViT whose
 * expected outputs were computed by Hugging Face transformers + PyTorch on the same images the way the
 * official script runs (fixtures/hf-tiny-vit, scripts/fixtures/hf-tiny-vit.py).
 */
const HF = fileURLToPath(new URL('./fixtures/hf-tiny-vit/', import.meta.url));
const PILLOW_INPUTS = fileURLToPath(new URL('./fixtures/pillow/inputs/', import.meta.url));
interface Expected {
  image: string;
  logits: number[];
  softmax: number[];
  cls_embedding: number[];
}
const expected = (JSON.parse(readFileSync(join(HF, 'expected.json'), 'utf8')) as { images: Expected[] }).images;
const source = (label: string) => (label.startsWith('golden/') ? goldenPath(label) : join(PILLOW_INPUTS, label.slice('pillow/'.length)));
const byImage = (label: string) => expected.find((e) => e.image === label)!;

const tmp = mkdtempSync(join(tmpdir(), 'sbeval-sim-'));
const model = join(tmp, 'tiny.onnx');
const root = join(tmp, 'competition');

// images/<C>/<file> → which expected.json image it is a copy of
const LAYOUT: Record<string, string> = {
  'alpha/images/I/alpha_I_1.png': 'golden/reference-levels/v1/images/I/V1_I_1.png',
  'alpha/images/I/alpha_I_2.png': 'golden/reference-levels/v1/images/I/V1_I_1.png', // same level, same picture
  'alpha/images/I/alpha_I_10.png': 'golden/reference-levels/v2/images/L/V2_L_1.png',
  'alpha/images/L/alpha_L_1.png': 'golden/sample-levels/result_23.snapshot.png',
  'alpha/images/L/alpha_L_2.png': 'pillow/rgba-gradient-300x200.png',
  'beta/images/A/beta_A_1.png': 'pillow/rgb-noise-37x53.png',
};

function maxAbsDiff(a: readonly number[], b: readonly number[]): number {
  expect(a.length).toBe(b.length);
  return Math.max(...a.map((v, i) => Math.abs(v - b[i]!)));
}

function lastJsonLine(stdout: string): Record<string, unknown> {
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as Record<string, unknown>;
}

beforeAll(async () => {
  const res = await runSbeval(['model', 'convert', HF, '--out', model]);
  expect(res.exitCode, res.stderr).toBe(0);
  for (const [dest, src] of Object.entries(LAYOUT)) {
    mkdirSync(join(root, dest, '..'), { recursive: true });
    copyFileSync(source(src), join(root, dest));
  }
  // The evaluator's raw screenshot is skipped; other files are ignored with a notice; a broken PNG fails.
  copyFileSync(source('pillow/rgb-noise-37x53.png'), join(root, 'alpha/images/I/alpha_I_1_raw.png'));
  writeFileSync(join(root, 'alpha/images/I/notes.txt'), 'not an image');
  const png = readFileSync(source('pillow/rgb-noise-37x53.png'));
  writeFileSync(join(root, 'beta/images/A/beta_A_2.png'), png.subarray(0, png.length >> 1));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('sbeval similarity', () => {
  let first: Awaited<ReturnType<typeof runSbeval>>;
  beforeAll(async () => {
    first = await runSbeval(['similarity', root, '--model', model, '--rules', '2025', '--batch', '2', '--json']);
  });

  it('writes the official files with the probabilities and CLS vectors transformers computes', () => {
    expect(first.exitCode, first.stderr).toBe(0);
    const text = readFileSync(join(root, 'alpha/similarity/I.json'), 'utf8');
    expect(text.startsWith('{\n  "count": 3,\n  "similarityRate": ')).toBe(true);
    expect(text.endsWith('\n}')).toBe(true); // json.dumps writes no trailing newline
    const file = parseSimilarityJson(text);
    expect(file.similarities.map((s) => s.id)).toEqual(['alpha_I_1.png', 'alpha_I_2.png', 'alpha_I_10.png']);
    for (const s of file.similarities) {
      const want = byImage(LAYOUT[`alpha/images/I/${s.id}`]!);
      expect(s.raws.map((r) => r.label)).toEqual('ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split(''));
      expect(s.raws.every((r) => r.id === s.id)).toBe(true);
      expect(
        maxAbsDiff(
          s.raws.map((r) => r.softmax_prob),
          want.softmax,
        ),
      ).toBeLessThanOrEqual(1e-4);
      expect(maxAbsDiff(s.cls_embedding!, want.cls_embedding)).toBeLessThanOrEqual(1e-4);
    }
    expect(file.trials.map((t) => [t.id, t.label])).toEqual(file.similarities.map((s) => [s.id, 'I']));
    file.trials.forEach((t, i) => expect(t.similarity).toBe(file.similarities[i]!.raws[8]!.softmax_prob));
    const mean = file.trials.reduce((a, t) => a + t.similarity, 0) / 3;
    expect(file.similarityRate).toBe(mean);

    const l = parseSimilarityJson(readFileSync(join(root, 'alpha/similarity/L.json'), 'utf8'));
    expect(l.count).toBe(2);
    for (const s of l.similarities) {
      expect(
        maxAbsDiff(
          s.raws.map((r) => r.softmax_prob),
          byImage(LAYOUT[`alpha/images/L/${s.id}`]!).softmax,
        ),
      ).toBeLessThanOrEqual(1e-4);
    }
  });

  it('skips _raw.png, ignores non-PNG files with a notice, records an unreadable PNG as a failed trial', () => {
    const summary = lastJsonLine(first.stdout);
    expect(summary).toMatchObject({ stage: 'similarity', succeeded: 6, failed: 1 });
    expect(summary.ignored).toEqual([join('alpha', 'images', 'I', 'notes.txt')]);
    const beta = parseSimilarityJson(readFileSync(join(root, 'beta/similarity/A.json'), 'utf8'));
    expect(beta.similarities.map((s) => s.id)).toEqual(['beta_A_1.png']);
    const logs = readdirSync(join(root, 'logs')).filter((f) => f.startsWith('similarity_log_'));
    const log = readFileSync(join(root, 'logs', logs[0]!), 'utf8');
    expect(log).toMatch(/trial: beta_A_2\.png - Failed - Image could not be read/);
    expect(log).toMatch(/trial: alpha_I_1\.png - Succeed/);
    expect(log).not.toMatch(/_raw\.png/);
  });

  it('infers identical pictures once', () => {
    const { classifier } = lastJsonLine(first.stdout) as { classifier: { requested: number; inferred: number } };
    expect(classifier.requested).toBe(6);
    expect(classifier.inferred).toBe(5);
  });

  it('resumes by content: a second run does nothing, a touched image neither; a changed image redoes only its character', async () => {
    const iStat = statSync(join(root, 'alpha/similarity/I.json')).mtimeMs;
    const lStat = statSync(join(root, 'alpha/similarity/L.json')).mtimeMs;
    const again = await runSbeval(['similarity', root, '--model', model, '--json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(lastJsonLine(again.stdout)).toMatchObject({ succeeded: 0, failed: 0, skipped: 7 });
    expect(statSync(join(root, 'alpha/similarity/I.json')).mtimeMs).toBe(iStat);
    // A newer time alone is not a change (a copied folder has new times everywhere).
    const later = new Date(Date.now() + 5000);
    utimesSync(join(root, 'alpha/images/L/alpha_L_2.png'), later, later);
    const touched = await runSbeval(['similarity', root, '--model', model, '--json']);
    expect(lastJsonLine(touched.stdout)).toMatchObject({ succeeded: 0, failed: 0, skipped: 7 });
    // Other bytes are, whatever the file's time.
    const before = statSync(join(root, 'alpha/images/L/alpha_L_2.png')).mtime;
    copyFileSync(source('golden/reference-levels/v1/images/I/V1_I_1.png'), join(root, 'alpha/images/L/alpha_L_2.png'));
    utimesSync(join(root, 'alpha/images/L/alpha_L_2.png'), before, before);
    const third = await runSbeval(['similarity', root, '--model', model, '--json']);
    expect(lastJsonLine(third.stdout)).toMatchObject({ succeeded: 2, failed: 0, skipped: 5 });
    expect(statSync(join(root, 'alpha/similarity/I.json')).mtimeMs).toBe(iStat);
    expect(statSync(join(root, 'alpha/similarity/L.json')).mtimeMs).toBeGreaterThan(lStat);
    // The original picture back: its letter again, and the file as it was.
    copyFileSync(source(LAYOUT['alpha/images/L/alpha_L_2.png']!), join(root, 'alpha/images/L/alpha_L_2.png'));
    const fourth = await runSbeval(['similarity', root, '--model', model, '--json']);
    expect(lastJsonLine(fourth.stdout)).toMatchObject({ succeeded: 2, failed: 0, skipped: 5 });
  });

  it('2024 rules write the same file without cls_embedding', async () => {
    const root24 = join(tmp, 'competition-2024');
    cpSync(root, root24, { recursive: true });
    rmSync(join(root24, 'alpha/similarity'), { recursive: true });
    const res = await runSbeval(['similarity', root24, '--model', model, '--rules', '2024', '--chars', 'I']);
    expect(res.exitCode, res.stderr).toBe(0);
    const t24 = readFileSync(join(root24, 'alpha/similarity/I.json'), 'utf8');
    expect(t24).not.toContain('cls_embedding');
    const f25 = parseSimilarityJson(readFileSync(join(root, 'alpha/similarity/I.json'), 'utf8'));
    const stripped: SimilarityFile = { ...f25, similarities: f25.similarities.map(({ id, raws }) => ({ id, raws })) };
    expect(parseSimilarityJson(t24)).toEqual(stripped);
    expect(readdirSync(join(root24, 'alpha/similarity'))).toEqual(['I.json']); // --char
  });

  it('fails with a usage error when the model is missing', async () => {
    const res = await runSbeval(['similarity', root, '--model', join(tmp, 'nope.onnx')]);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/similarity model .*nope\.onnx does not exist \(sbeval model fetch /);
    // Without --model and nothing cached by `sbeval model fetch`, the error says how to get one.
    const none = await runSbeval(['similarity', root]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/no similarity model \(get the competition's with `sbeval model fetch /);
  });
});

describe('sbeval diversity', () => {
  function cosine(u: number[], v: number[]): number {
    const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
    return Math.abs(1 - dot(u, v) / Math.sqrt(dot(u, u) * dot(v, v)));
  }

  it('2025: CLS vectors of the similarity file, pairs i<j, fixed denominator; identical pictures → distance 0', async () => {
    writeFileSync(join(root, 'alpha/similarity/.DS_Store'), 'x');
    writeFileSync(join(root, 'alpha/similarity/readme.md'), 'not json');
    const res = await runSbeval(['diversity', root, '--rules', '2025']);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/ignoring alpha\/similarity\/readme\.md/);
    const sim = parseSimilarityJson(readFileSync(join(root, 'alpha/similarity/I.json'), 'utf8'));
    const text = readFileSync(join(root, 'alpha/diversity/I.json'), 'utf8');
    const div = parseDiversityJson(text);
    expect(div.count).toBe(3);
    expect(div.trials.map((t) => t.trial)).toEqual(['alpha_I_1', 'alpha_I_2', 'alpha_I_10']);
    expect(div.trials.map((t) => t.vector)).toEqual(sim.similarities.map((s) => s.cls_embedding));
    const vec = sim.similarities.map((s) => s.cls_embedding!);
    const want = [cosine(vec[0]!, vec[1]!), cosine(vec[0]!, vec[2]!), cosine(vec[1]!, vec[2]!)];
    div.diversities.forEach((d, i) => expect(Math.abs(d.distance - want[i]!)).toBeLessThanOrEqual(1e-12));
    expect(div.diversities[0]!.distance).toBe(0);
    expect(text).toMatch(/"trial2": "alpha_I_2"\n {6}\},\n {6}"distance": 0\n/);
    expect(div.diversityRate).toBe((div.diversities[0]!.distance + div.diversities[1]!.distance + div.diversities[2]!.distance) / 45);
    expect(readdirSync(join(root, 'alpha/diversity')).sort()).toEqual(['I.json', 'L.json']);
  });

  it('2024: the 26 softmax values instead; --trials changes the denominator; rerun with the same inputs writes nothing', async () => {
    const res = await runSbeval(['diversity', root, '--rules', '2024', '--trials', '5', '--team', 'alpha', '--json']);
    expect(res.exitCode, res.stderr).toBe(0);
    const sim = parseSimilarityJson(readFileSync(join(root, 'alpha/similarity/L.json'), 'utf8'));
    const div = parseDiversityJson(readFileSync(join(root, 'alpha/diversity/L.json'), 'utf8'));
    expect(div.trials.map((t) => t.vector)).toEqual(sim.similarities.map((s) => s.raws.map((r) => r.softmax_prob)));
    const d = cosine(div.trials[0]!.vector, div.trials[1]!.vector);
    expect(Math.abs(div.diversities[0]!.distance - d)).toBeLessThanOrEqual(1e-12);
    expect(div.diversityRate).toBe(div.diversities[0]!.distance / 10);
    const again = await runSbeval(['diversity', root, '--rules', '2024', '--trials', '5', '--team', 'alpha', '--json']);
    expect(lastJsonLine(again.stdout)).toMatchObject({ succeeded: 0, skipped: 2 });
  });
});
