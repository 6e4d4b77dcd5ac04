import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  diversityDenominator,
  diversityFile,
  diversityTrialId,
  formatPythonFloat,
  formatUnityFloat,
  parseDiversityJson,
  parseSimilarityJson,
  parseStabilityJson,
  type StabilityEntry,
  similarityFile,
  stabilityFile,
  stabilityTag,
  unityStabilityRate,
  unityStabilityScore,
  writeDiversityJson,
  writeSimilarityJson,
  writeStabilityJson,
} from '../../scoring/formats/index.js';
import { GOLDEN, PROJECT_ROOT, REFERENCE_LEVELS } from '../helpers/cli.js';

const PY_FIXTURES = fileURLToPath(new URL('./fixtures/python-json/', import.meta.url));

/** Every real evaluator stability file in the golden data. */
function goldenStabilityFiles(): string[] {
  const files: string[] = [join(GOLDEN, 'sample-levels', 'sample-stability.json')];
  const root = REFERENCE_LEVELS;
  for (const set of readdirSync(root)) {
    for (const name of readdirSync(join(root, set, 'stability'))) files.push(join(root, set, 'stability', name));
  }
  return files;
}

describe('stability format (Unity JsonUtility)', () => {
  const files = goldenStabilityFiles();

  it('finds the ten golden evaluator files', () => {
    expect(files).toHaveLength(10);
  });

  it.each(files.map((f) => [relative(PROJECT_ROOT, f), f]))('rewrites %s byte for byte from its parsed content', (_name, file) => {
    const text = readFileSync(file, 'utf8');
    const parsed = parseStabilityJson(text, file);
    expect(writeStabilityJson(parsed)).toBe(text);
  });

  it.each(files.map((f) => [relative(PROJECT_ROOT, f), f]))('recomputes dataCount and rate of %s from the entries alone', (_name, file) => {
    const text = readFileSync(file, 'utf8');
    const entries: StabilityEntry[] = parseStabilityJson(text, file).raws;
    expect(writeStabilityJson(entries)).toBe(text);
  });

  it('prints every golden float the way Unity does', () => {
    // The pairs come straight from the golden files: the number as JSON.parse reads it, the text Unity wrote.
    const seen = new Map<number, string>();
    for (const file of files) {
      for (const m of readFileSync(file, 'utf8').matchAll(/"(?:rate|score)": ([^,\n]+)/g)) seen.set(Number(m[1]), m[1] as string);
    }
    expect(seen.size).toBeGreaterThan(15);
    for (const [value, text] of seen) expect(formatUnityFloat(value)).toBe(text);
    // Grisu2's non-shortest-closest digits, which Python/JS printing would not give:
    expect(seen.get(Math.fround(0.2))).toBe('0.20000000298023225');
    expect(formatUnityFloat(0.2)).toBe('0.20000000298023225');
  });

  it('computes the evaluator scores exactly in float32 (1 − moving/starting)', () => {
    // Scores are best of 3 trials while counts come from the last one, so each golden score must be
    // one of the values the formula can give for its number of objects.
    let checked = 0;
    expect(unityStabilityScore(3, 2)).toBe(Math.fround(1 / 3));
    for (const file of files.slice(1)) {
      for (const raw of parseStabilityJson(readFileSync(file, 'utf8'), file).raws) {
        const starting = raw.startingObjects ?? 0;
        const possible = Array.from({ length: starting + 1 }, (_, m) => unityStabilityScore(starting, m));
        expect(possible).toContain(raw.score);
        if (raw.score === unityStabilityScore(starting, raw.movingObjects ?? 0)) checked++;
      }
    }
    expect(checked).toBeGreaterThan(80);
  });

  it('uses the float32 running sum for rate (not the double mean)', () => {
    const scores = [1, 1, 1, Math.fround(2 / 3), 1];
    const f = Math.fround;
    expect(unityStabilityRate(scores)).toBe(f(f(f(3 + f(2 / 3)) + 1) / 5));
    expect(unityStabilityRate(scores)).not.toBe(f(scores.reduce((a, b) => a + b, 0) / 5));
    expect(formatUnityFloat(unityStabilityRate(scores))).toBe('0.9333333969116211'); // sample-stability.json
    expect(unityStabilityRate([])).toBe(0);
  });

  it('writes an empty file visibly and keeps tags with backslashes escaped', () => {
    expect(writeStabilityJson([])).toBe('{\n    "dataCount": 0,\n    "rate": 0.0,\n    "raws": []\n}');
    const tag = stabilityTag('t1', 'A', 't1_A_1.xml');
    expect(tag).toBe('competition\\t1\\levels\\A\\t1_A_1.xml');
    const text = writeStabilityJson([{ tag, score: 0.5, startingObjects: 2, movingObjects: 1 }]);
    expect(text).toContain('"tag": "competition\\\\t1\\\\levels\\\\A\\\\t1_A_1.xml"');
    expect(JSON.parse(text).raws[0].tag).toBe(tag);
    expect(stabilityFile([{ tag, score: 0.1 }]).raws[0]?.score).toBe(Math.fround(0.1));
  });

  it('refuses a file mixing the old and new entry formats', () => {
    expect(() =>
      writeStabilityJson([
        { tag: 'a_1', score: 1 },
        { tag: 'a_2', score: 1, startingObjects: 1, movingObjects: 0 },
      ]),
    ).toThrow(/mix/);
  });

  it('reads the older format without counts and names the file on bad input', () => {
    const old = parseStabilityJson(readFileSync(join(GOLDEN, 'sample-levels', 'sample-stability.json'), 'utf8'));
    expect(old.raws[3]).toEqual({ tag: 'Assets/StreamingAssets/Levels\\V1_L_1.xml', score: 0.6666666865348816 });
    expect(() => parseStabilityJson('{"dataCount": 1, "rate": NaN, "raws": []}', 'x/stability/A.json')).toThrow(/x\/stability\/A\.json: not valid JSON/);
    expect(() => parseStabilityJson('{"dataCount": 1, "rate": 1, "raws": [{"tag": 3, "score": 1}]}', 'B.json')).toThrow(/B\.json: raws\.0\.tag/);
  });
});

describe('Python json.dumps (similarity and diversity scripts)', () => {
  const names = readdirSync(PY_FIXTURES).filter((n) => n.endsWith('.json'));

  it('has fixtures written by CPython', () => {
    expect(names.sort()).toEqual(['diversity-2024-A.json', 'diversity-2025-Q.json', 'similarity-2024-A.json', 'similarity-2025-Q.json']);
  });

  it.each(names.filter((n) => n.startsWith('similarity')))('rewrites %s byte for byte', (name) => {
    const text = readFileSync(join(PY_FIXTURES, name), 'utf8');
    expect(writeSimilarityJson(parseSimilarityJson(text, name))).toBe(text);
  });

  it.each(names.filter((n) => n.startsWith('diversity')))('rewrites %s byte for byte', (name) => {
    const text = readFileSync(join(PY_FIXTURES, name), 'utf8');
    expect(writeDiversityJson(parseDiversityJson(text, name))).toBe(text);
  });

  it.each([
    ['similarity-2024-A.json', 'A'],
    ['similarity-2025-Q.json', 'Q'],
  ])('builds %s from classifier outputs (rate = sum / count as the script does)', (name, character) => {
    const text = readFileSync(join(PY_FIXTURES, name), 'utf8');
    const golden = parseSimilarityJson(text);
    const built = similarityFile(
      character,
      golden.similarities.map((s) => ({
        id: s.id,
        probabilities: Float32Array.from(s.raws.map((r) => r.softmax_prob)),
        ...(s.cls_embedding ? { clsEmbedding: Float32Array.from(s.cls_embedding) } : {}),
      })),
    );
    expect(writeSimilarityJson(built)).toBe(text);
  });

  it.each([
    ['diversity-2024-A.json', 'similarity-2024-A.json'],
    ['diversity-2025-Q.json', 'similarity-2025-Q.json'],
  ])('builds %s with the fixed denominator 45 and the pair order i < j', (name, simName) => {
    const text = readFileSync(join(PY_FIXTURES, name), 'utf8');
    const golden = parseDiversityJson(text);
    const sim = parseSimilarityJson(readFileSync(join(PY_FIXTURES, simName), 'utf8'));
    expect(golden.trials.map((t) => t.trial)).toEqual(sim.similarities.map((s) => diversityTrialId(s.id)));
    // The distances come from the fixture (this module only lays out the file and the rate).
    const byPair = new Map(golden.diversities.map((d) => [`${d.pair.trial1}|${d.pair.trial2}`, d.distance]));
    const vectors = new Map(golden.trials.map((t) => [t.vector, t.trial]));
    const built = diversityFile(golden.trials, (a, b) => byPair.get(`${vectors.get(a as number[])}|${vectors.get(b as number[])}`) ?? NaN);
    expect(writeDiversityJson(built)).toBe(text);
    expect(diversityDenominator(10)).toBe(45);
  });

  it('prints floats as Python repr does', () => {
    // Examples from the Python documentation of repr/float formatting rules.
    const cases: Array<[number, string]> = [
      [1, '1.0'],
      [1e-5, '1e-05'],
      [3.2e-7, '3.2e-07'],
      [0.0001, '0.0001'],
      [1e16, '1e+16'],
      [1234567890123456, '1234567890123456.0'],
      [0.1 + 0.2, '0.30000000000000004'],
      [-0, '-0.0'],
      [NaN, 'NaN'],
      [-Infinity, '-Infinity'],
      [1.5e300, '1.5e+300'],
    ];
    for (const [value, text] of cases) expect(formatPythonFloat(value)).toBe(text);
  });

  it('prints floats that read back as the same double', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const text = formatPythonFloat(x);
        expect(Object.is(Number(text.replace(/e\+/, 'e')), x)).toBe(true);
        expect(text).toMatch(/^-?\d+\.\d+$|^-?\d(\.\d+)?e[-+]\d{2,3}$/);
      }),
      { seed: 42, numRuns: 2000 },
    );
  });

  it('rejects similarity vectors of the wrong length and unknown characters', () => {
    expect(() => similarityFile('A', [{ id: 'x_A_1.png', probabilities: [1, 0] }])).toThrow(/26 probabilities/);
    expect(() => similarityFile('a', [])).toThrow(/A\.\.Z/);
    expect(writeSimilarityJson(similarityFile('A', []))).toBe('{\n  "count": 0,\n  "similarityRate": 0,\n  "trials": [],\n  "similarities": []\n}');
  });
});
