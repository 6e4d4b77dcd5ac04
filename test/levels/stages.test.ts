import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLevelXml } from '../../levels/xml-read.js';
import type { ProgressSink, TickOutcome } from '../../orchestrator/progress/types.js';
import { runConvertStage } from '../../orchestrator/stages/convert.js';
import { runExtractStage } from '../../orchestrator/stages/extract.js';
import { copyExampleSources, GOLDEN, runSbeval } from '../helpers/cli.js';
import { Gen, response } from './generators.js';
import { readZip } from './zip.js';

/**
 * The level stages through the real CLI (child processes) on generated competition folders, checked
 * against what the official scripts would write: the official package computes every expected file
 * (code-extraction-script: `extractCode`, text-to-xml-converter-script: `convertTextToXML`), and the
 * official scripts' naming (`<name without last extension>.txt|.xml`, nothing on failure).
 */
const official = createRequire(import.meta.url)('chatgpt4pcg') as {
  extractCode(text: string, prefix?: string): string | null;
  convertTextToXML(text: string, prefix?: string): string;
};

const SEED = Number(process.env.SBEVAL_SEED ?? 7);
let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sbeval-levels-'));
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** Every file under `dir` as relative path → content (hidden files excluded, like the official listings). */
function tree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const name of readdirSync(d)) {
      if (name.startsWith('.')) continue;
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

/** Files under `<root>/<team>/<stage>/` of every team. */
function stageFiles(root: string, stage: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const team of readdirSync(root)) {
    if (team === 'logs' || team.startsWith('.') || !statSync(join(root, team)).isDirectory()) continue;
    for (const [path, content] of tree(join(root, team, stage))) out.set(`${team}/${stage}/${path}`, content);
  }
  return out;
}

/** What the official extraction and conversion scripts write for a competition folder. */
function officialOutputs(root: string, prefix: string) {
  const intermediate = new Map<string, string>();
  const levels = new Map<string, string>();
  const reasons = { extract: new Map<string, number>(), convert: new Map<string, number>() };
  const count = (m: Map<string, number>, r: string) => m.set(r, (m.get(r) ?? 0) + 1);
  for (const [path, content] of stageFiles(root, 'raw')) {
    const [team, , character, file] = path.split('/') as [string, string, string, string];
    const base = file.split('.').slice(0, -1).join('.');
    const code = official.extractCode(content, prefix);
    if (code === null) {
      count(reasons.extract, 'Code not found.');
      continue;
    }
    intermediate.set(`${team}/intermediate/${character}/${base}.txt`, code);
    try {
      levels.set(`${team}/levels/${character}/${base}.xml`, official.convertTextToXML(code, `${prefix}(`));
    } catch (error) {
      count(reasons.convert, (error as Error).message);
    }
  }
  return { intermediate, levels, reasons };
}

/** A seeded competition: teams × letters × trials of generated responses, plus awkward files. */
function makeCompetition(root: string, seed: number, prefix: string, teams = ['alpha', 'Beta', 'gamma_3'], letters = ['A', 'I', 'L', 'U'], trials = 6) {
  const g = new Gen(seed);
  for (const team of teams) {
    for (const letter of letters) {
      const dir = join(root, team, 'raw', letter);
      mkdirSync(dir, { recursive: true });
      for (let n = 1; n <= trials; n++) writeFileSync(join(dir, `${team}_${letter}_${n}.txt`), response(g, prefix));
    }
  }
  const first = join(root, teams[0]!, 'raw', letters[0]!);
  // A BOM, CRLF line ends and a second dot in the name; a non-.txt file (the official scripts read every file).
  writeFileSync(join(first, `${teams[0]}_${letters[0]}_${trials + 1}.v2.txt`), `\uFEFF\`\`\`\r\n${prefix}('b31', 5)\r\n${prefix}("b13", 5)\r\n\`\`\`\r\n`);
  writeFileSync(join(first, `${teams[0]}_${letters[0]}_${trials + 2}.md`), `# Answer\n\n\`\`\`python\n${prefix}('b11', 0)\n\`\`\`\n`);
  // Ignored by the official listings: hidden files, the logs folder; a team without raw is only logged.
  writeFileSync(join(first, '.DS_Store'), 'x');
  mkdirSync(join(root, 'no-raw-team', 'images'), { recursive: true });
  mkdirSync(join(root, teams.at(-1)!, 'raw', 'Z'), { recursive: true });
}

function parseSummary(stdout: string) {
  const m = /(\w+): (\d+) succeeded, (\d+) failed, (\d+) already done/.exec(stdout);
  if (!m) throw new Error(`no summary in ${JSON.stringify(stdout)}`);
  const reasons = new Map<string, number>();
  for (const line of stdout.split('\n')) {
    const r = /^ {2}(\d+) × (.+)$/.exec(line);
    if (r) reasons.set(r[2]!, Number(r[1]));
  }
  return { stage: m[1], succeeded: Number(m[2]), failed: Number(m[3]), skipped: Number(m[4]), reasons };
}

function logLines(root: string, stage: string): string[] {
  const dir = join(root, 'logs');
  return readdirSync(dir)
    .filter((f) => f.startsWith(`${stage}_log_`))
    .sort()
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter((l) => l.length > 0),
    );
}

describe('sbeval extract + convert on a generated competition', () => {
  it('write exactly the files the official scripts would, byte for byte, and log every trial', async () => {
    const root = join(work, 'generated');
    makeCompetition(root, SEED, 'drop_block');
    const expected = officialOutputs(root, 'drop_block');
    expect(expected.levels.size).toBeGreaterThan(10);
    expect(expected.reasons.extract.get('Code not found.') ?? 0).toBeGreaterThan(0);

    const extract = await runSbeval(['extract', root]);
    expect(extract.stderr).not.toMatch(/error|sbeval:/i);
    expect(extract.exitCode).toBe(0);
    expect(stageFiles(root, 'intermediate')).toEqual(expected.intermediate);
    const extractSummary = parseSummary(extract.stdout);
    expect(extractSummary).toMatchObject({ stage: 'extract', succeeded: expected.intermediate.size, skipped: 0 });
    expect(extractSummary.reasons).toEqual(expected.reasons.extract);

    const convert = await runSbeval(['convert', root]);
    expect(convert.exitCode).toBe(0);
    expect(stageFiles(root, 'levels')).toEqual(expected.levels);
    const convertSummary = parseSummary(convert.stdout);
    expect(convertSummary).toMatchObject({ stage: 'convert', succeeded: expected.levels.size, skipped: 0 });
    expect(convertSummary.reasons).toEqual(expected.reasons.convert);

    // One official log line per trial, in the official wording.
    const lines = logLines(root, 'levels');
    const trialLines = lines.filter((l) => / - trial: /.test(l));
    expect(trialLines).toHaveLength(expected.intermediate.size);
    for (const line of trialLines) {
      expect(line).toMatch(
        /^\[\d{4}-\d\d-\d\dT[\d:.]+Z\] Processing - team: \S+ - character: [A-Z] - trial: \S+ - (Succeed|Failed - (Height boundary is intruded\.|Width boundary is intruded\.|BlockType does not exist\.))$/,
      );
    }
    const extractLog = logLines(root, 'intermediate');
    expect(extractLog.filter((l) => l.endsWith(' - Failed - Code not found.'))).toHaveLength(expected.reasons.extract.get('Code not found.')!);
    expect(extractLog.some((l) => l.includes('team: no-raw-team - Failed'))).toBe(true);
    expect(extractLog.some((l) => l.includes('team: gamma_3 - Failed - No trials found.'))).toBe(true);
    expect(extractLog.some((l) => l.includes('.DS_Store'))).toBe(false);
    // Every written level is one the strict reader accepts without a Unity quirk.
    for (const xml of expected.levels.values()) expect(readLevelXml(xml).warnings).toEqual([]);

    // A second run does no work; a changed input is redone; an input that now fails loses its stale output.
    const mtimes = new Map([...expected.levels.keys()].map((k) => [k, statSync(join(root, k)).mtimeMs] as const));
    const again = await runConvertStage({ root });
    // Done trials are skipped; failed ones have no output, so they are tried (and fail) again.
    const convertFailures = [...expected.reasons.convert.values()].reduce((a, b) => a + b, 0);
    expect(again).toMatchObject({ succeeded: 0, failed: convertFailures, skipped: expected.levels.size });
    for (const [path, mtime] of mtimes) expect(statSync(join(root, path)).mtimeMs).toBe(mtime);
    const [firstLevel] = [...expected.levels.keys()].sort();
    const program = join(root, firstLevel!.replace('/levels/', '/intermediate/').replace(/\.xml$/, '.txt'));
    const levelPath = join(root, firstLevel!);
    writeFileSync(program, "drop_block('b31', 0)\n");
    const future = new Date(Date.now() + 5_000);
    utimesSync(program, future, future);
    const third = await runSbeval(['convert', root, '--json']);
    const json = JSON.parse(third.stdout) as { succeeded: number; failed: number; skipped: number; reasons: Record<string, number> };
    expect(json.skipped).toBe(expected.levels.size - 1);
    expect(json.reasons['Width boundary is intruded.']).toBe((expected.reasons.convert.get('Width boundary is intruded.') ?? 0) + 1);
    expect(existsSync(levelPath)).toBe(false);
  }, 240_000);

  it('honours --prefix ab_drop, --team, --chars and --force', async () => {
    const root = join(work, 'ab');
    makeCompetition(root, SEED + 1, 'ab_drop', ['t1', 't2'], ['I', 'L'], 4);
    const all = officialOutputs(root, 'ab_drop');
    const wanted = (path: string) => path.startsWith('t2/') && path.split('/')[2] === 'L';
    const extract = await runSbeval(['extract', root, '--prefix', 'ab_drop', '--team', 't2', '--chars', 'L']);
    expect(extract.exitCode).toBe(0);
    expect(stageFiles(root, 'intermediate')).toEqual(new Map([...all.intermediate].filter(([p]) => wanted(p))));
    await runSbeval(['convert', root, '--prefix', 'ab_drop', '--team', 't2', '--chars', 'L']);
    const levels = new Map([...all.levels].filter(([p]) => wanted(p)));
    expect(stageFiles(root, 'levels')).toEqual(levels);
    const forced = parseSummary((await runSbeval(['convert', root, '--prefix', 'ab_drop', '--force'])).stdout);
    expect(forced.skipped).toBe(0);
    expect(forced.succeeded).toBe(levels.size);
    // With the 2024 prefix the same 2023 responses keep only their stray drop_block calls.
    const other = join(work, 'ab-as-2024');
    cpSync(join(root, 't1'), join(other, 't1'), { recursive: true });
    const summary = await runExtractStage({ root: other });
    const as2024 = officialOutputs(other, 'drop_block');
    expect(stageFiles(other, 'intermediate')).toEqual(as2024.intermediate);
    expect(summary.succeeded).toBe(as2024.intermediate.size);
    expect(as2024.intermediate.size).toBeLessThan(officialOutputs(other, 'ab_drop').intermediate.size);
  }, 240_000);

  it('fails with a usage error (exit 2) for a missing root or a hostile prefix', async () => {
    const missing = await runSbeval(['extract', join(work, 'does-not-exist')]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/does-not-exist does not exist/);
    const prefix = await runSbeval(['convert', work, '--prefix', '.*(']);
    expect(prefix.exitCode).toBe(2);
    expect(prefix.stderr).toMatch(/not a plain identifier/);
  }, 120_000);
});

describe('stage functions', () => {
  it('report every trial to the progress sink and return the summary', async () => {
    const root = join(work, 'progress');
    makeCompetition(root, SEED + 2, 'drop_block', ['solo'], ['I'], 5);
    const ticks: Array<[string, TickOutcome]> = [];
    const starts: Array<[string, number]> = [];
    const sink: ProgressSink = {
      start: (stage, total) => starts.push([stage, total]),
      tick: (stage, outcome) => ticks.push([stage, outcome]),
      note: () => {},
      end: () => {},
    };
    const expected = officialOutputs(root, 'drop_block');
    // A file without extension: the official script would write a hidden ".txt"; sbeval records why not.
    writeFileSync(join(root, 'solo/raw/I/notes'), "```\ndrop_block('b11', 1)\n```");
    const summary = await runExtractStage({ root }, sink);
    expect(starts).toEqual([['extract', 8]]);
    expect(ticks.filter(([, o]) => o === 'ok')).toHaveLength(expected.intermediate.size);
    expect(summary.succeeded + summary.failed).toBe(8);
    expect([...summary.reasons.keys()].some((r) => r.startsWith('File name has no extension'))).toBe(true);
    expect(readdirSync(join(root, 'solo/intermediate/I')).some((f) => f.startsWith('.') || f === 'notes.txt')).toBe(false);
    const converted = await runConvertStage({ root }, sink);
    expect(converted.succeeded).toBe(expected.levels.size);
    const second = await runConvertStage({ root }, sink);
    expect(second.skipped).toBe(expected.levels.size);
    expect(ticks.filter(([s, o]) => s === 'convert' && o === 'skipped')).toHaveLength(expected.levels.size);
  });
});

describe('a response that is not text', () => {
  it('is read the official way (Code not found.) and named in a note that says why', async () => {
    const root = join(work, 'not-text');
    mkdirSync(join(root, 'solo', 'raw', 'I'), { recursive: true });
    const code = "```\ndrop_block('b11', 1)\n```\n";
    writeFileSync(join(root, 'solo/raw/I/solo_I_1.txt'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(code, 'utf16le')]));
    writeFileSync(join(root, 'solo/raw/I/solo_I_2.txt'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0xc3]));
    writeFileSync(join(root, 'solo/raw/I/solo_I_3.txt'), code);
    const notes: string[] = [];
    const sink: ProgressSink = { start: () => {}, tick: () => {}, note: (_stage, message) => notes.push(message), end: () => {} };
    const summary = await runExtractStage({ root }, sink);
    expect(summary.succeeded).toBe(1);
    expect([...summary.reasons.keys()]).toEqual(['Code not found.']);
    expect(notes).toEqual([
      'solo/I/solo_I_1.txt is not UTF-8 text (a UTF-16 byte order mark): read as UTF-8 the official way; save it as UTF-8 text',
      'solo/I/solo_I_2.txt is not UTF-8 text (NUL bytes: binary data or UTF-16): read as UTF-8 the official way; save it as UTF-8 text',
    ]);
  });
});

describe('the example competition', () => {
  it('yields the levels the official scripts would, most of them', async () => {
    const root = join(work, 'example');
    copyExampleSources(root);
    const expected = officialOutputs(root, 'drop_block');
    await runExtractStage({ root });
    await runConvertStage({ root });
    expect(stageFiles(root, 'intermediate')).toEqual(expected.intermediate);
    expect(stageFiles(root, 'levels')).toEqual(expected.levels);
    const raw = stageFiles(root, 'raw').size;
    expect(raw).toBe(45);
    expect(expected.levels.size).toBeGreaterThanOrEqual(raw * 0.75);
    expect(expected.levels.size).toBeLessThan(raw);
  }, 30_000);
});

describe('sbeval qualify', () => {
  it('gives the official 2023 verdicts on the published prompts, with numbers, and copies the qualified ones', async () => {
    const dir = join(work, 'prompts2023', 'prompts');
    mkdirSync(dir, { recursive: true });
    for (const [name, data] of readZip(readFileSync(join(GOLDEN, 'scoring/2023/prompts.zip')))) {
      if (name.startsWith('prompts/')) writeFileSync(join(dir, name.slice('prompts/'.length)), data);
    }
    const expected = JSON.parse(readFileSync(join(GOLDEN, 'official-1.4.1/qualification-2023-prompts.json'), 'utf8')) as Array<{
      file: string;
      words: number;
      exceeds900: boolean;
      disallowed: boolean;
      hasObject: boolean;
    }>;
    const out = join(work, 'prompts2023', 'qualified');
    const result = await runSbeval(['qualify', dir, '--json', '--copy-to', out]);
    expect(result.exitCode).toBe(1); // three prompts fail
    const json = JSON.parse(result.stdout) as {
      prompts: Array<{ file: string; words: number; qualified: boolean; disallowedCharacters: string[]; objectTokens: number }>;
    };
    expect(json.prompts).toHaveLength(18);
    for (const e of expected) {
      const p = json.prompts.find((q) => q.file.endsWith(`/${e.file}`))!;
      expect(p.words).toBe(e.words);
      expect(p.disallowedCharacters.length > 0).toBe(e.disallowed);
      expect(p.objectTokens > 0).toBe(e.hasObject);
      expect(p.qualified).toBe(!e.exceeds900 && !e.disallowed && e.hasObject);
    }
    const copied = readdirSync(out)
      .filter((f) => f !== 'logs')
      .sort();
    expect(copied).toEqual(
      expected
        .filter((e) => !e.exceeds900 && !e.disallowed && e.hasObject)
        .map((e) => e.file)
        .sort(),
    );
    const log = readdirSync(join(out, 'logs'));
    expect(log).toHaveLength(1);
    const lines = readFileSync(join(out, 'logs', log[0]!), 'utf8')
      .trim()
      .split('\n');
    // Official: checks stop at the first failure, so a prompt over 900 words has only its maxLength line.
    expect(lines.filter((l) => l.includes('team: BirdBirdBird '))).toEqual([
      expect.stringMatching(/^\[[\d-]+T[\d_.]+Z\] Processing - team: BirdBirdBird - maxLength: Failed$/),
    ]);
    expect(lines.filter((l) => l.includes('team: pixelArt '))).toHaveLength(2);
    expect(lines.filter((l) => l.endsWith('objectToken: Success'))).toHaveLength(15);

    const text = await runSbeval(['qualify', join(dir, 'pixelArt.txt'), join(dir, 'Hope.txt')]);
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toMatch(/DISQUALIFIED .*pixelArt\.txt .*disallowChars.* 354\/900 words.*"°" \(U\+00B0\)/);
    expect(text.stdout).toMatch(/qualified .*Hope\.txt .*61\/900 words/);
    expect((await runSbeval(['qualify', join(dir, 'Hope.txt')])).exitCode).toBe(0);
    expect((await runSbeval(['qualify', join(dir, 'missing.txt')])).exitCode).toBe(2);
  }, 240_000);
});
