import { InvalidArgumentError, Option, type Command } from 'commander';
import { resolve } from 'node:path';
import { SbevalError } from '../../../core/errors.js';
import { VIEWS, type ViewKind } from '../../../scoring/judges/views.js';
import { PERSPECTIVES } from '../../../scoring/judges/order-prompt.js';
import { resolveSettings, settingsLine } from '../../config/index.js';
import { DEFAULT_POOL_SETTINGS, withModelCalls } from '../../generate/host-pool.js';
import { runOrderJudge, ORDER_STAGE, type OrderJudgeSummary } from '../../judges/order-stage.js';
import { loadRubric } from '../../judges/rubric-file.js';
import { runRubricJudge, RUBRIC_STAGE, type RubricJudgeSummary } from '../../judges/rubric-stage.js';
import type { JudgeSettings } from '../../judges/runner.js';
import type { LevelFilter } from '../../judges/levels.js';
import { createProgressDisplay } from '../../progress/index.js';

/**
 * `sbeval judge rubric|order <root>`: LLM judges beyond the ViT, through Ollama (the generation
 * stage's client and host pool). Settings resolve as for every command: flags, then the root's
 * sbeval.config.yaml (teams, characters, trials, seed, hosts, prefix), then the defaults.
 */
function list(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim()).filter((v) => v.length > 0)];
}

function int(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`expected a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}`);
    return n;
  };
}

function nonNegative(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number ≥ 0');
  return n;
}

interface CommonFlags {
  judge: string;
  hosts?: string[];
  team: string[];
  chars?: string;
  trials?: number;
  view: ViewKind;
  seed?: number;
  temperature: number;
  retries: number;
  maxTokens: number;
  concurrency?: number;
  retryFailed?: boolean;
  force?: boolean;
  stallTimeout: number;
  maxAttempts: number;
  json?: boolean;
}

function commonOptions(command: Command): Command {
  return command
    .requiredOption('--judge <model>', 'the Ollama model that judges (a vision model for --view image, e.g. llava:13b, qwen2.5vl:7b)')
    .option('--hosts <url,url>', 'Ollama hosts sharing the calls (default: the config\'s hosts, else $OLLAMA_HOST or http://127.0.0.1:11434)', (v: string) => list(v))
    .option('--team <name>', 'only these teams (repeatable or comma-separated)', list, [])
    .option('--chars <letters>', 'only these letters, e.g. A-Z or A,I,L (default: the letters found)')
    .option('--trials <n>', 'only trials 1…n of each letter (default: every trial found)', int(1, 100_000))
    .option('--seed <n>', 'seed of the first attempt; a retry k uses seed + k (default: the config\'s seed, else 6280)', int(-(2 ** 31), 2 ** 31 - 1))
    .option('--temperature <t>', 'sampling temperature of the judge', nonNegative, 0)
    .option('--retries <n>', 'further attempts after an answer that does not parse (missing tags, out of range …)', int(0, 20), 2)
    .option('--max-tokens <n>', 'cap on the judge\'s answer (Ollama num_predict)', int(16, 1_000_000), 2048)
    .option('--concurrency <n>', 'calls in flight at once (default: one per host)', int(1, 1024))
    .option('--retry-failed', 'ask again the levels whose answers never parsed in an earlier run (with new seeds)')
    .option('--force', 'replace results written with other settings (another judge model, view, rubric …)')
    .option('--stall-timeout <s>', 'retry a call on another host when the host sends nothing for this long (0 = never)', nonNegative, DEFAULT_POOL_SETTINGS.call.stallTimeoutMs / 1000)
    .option('--max-attempts <n>', 'failed attempts (network errors, 5xx) before a call gives up', int(1, 1000), DEFAULT_POOL_SETTINGS.maxAttempts)
    .option('--json', 'progress and summary as JSON lines on stdout');
}

/** The settings every command resolves (orchestrator/config/settings.ts), printed in one line. */
function settingsFrom(root: string, flags: CommonFlags, command: string) {
  const config = resolveSettings(root, { teams: flags.team, chars: flags.chars, trials: flags.trials, hosts: flags.hosts }, { command });
  process.stderr.write(`${settingsLine(config, command)}\n`);
  const filter: LevelFilter = {
    teams: config.teams,
    characters: config.sources.characters === 'default' ? undefined : config.characters,
    trials: config.sources.trials === 'default' ? undefined : config.trials,
  };
  const hosts = config.hosts;
  const judge: JudgeSettings = {
    model: flags.judge,
    temperature: flags.temperature,
    seed: flags.seed ?? config.seed,
    retries: flags.retries,
    maxTokens: flags.maxTokens,
    concurrency: flags.concurrency ?? hosts.length,
    retryFailed: flags.retryFailed === true,
  };
  // The API, call deadline and answer cap as every command resolves them (config `api`, `limits.callSeconds`, `limits.answerBytes`).
  const pool = withModelCalls({ ...DEFAULT_POOL_SETTINGS, maxAttempts: flags.maxAttempts, call: { ...DEFAULT_POOL_SETTINGS.call, stream: true, stallTimeoutMs: flags.stallTimeout * 1000 } }, config.modelCalls);
  return { config, filter, hosts, judge, pool };
}

/** Ctrl-C / SIGTERM stop the calls in flight; what is answered is kept. */
function cancelOnSignals(onStop: () => void): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const handler = () => {
    if (controller.signal.aborted) process.exit(130);
    onStop();
    controller.abort();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return { signal: controller.signal, dispose: () => (process.off('SIGINT', handler), process.off('SIGTERM', handler)) };
}

function countsLine(c: { ok: number; failed: number; cached: number; unfinished: number; calls: number }): string {
  return `${c.ok} judged now, ${c.failed} refused after retries, ${c.cached} already done, ${c.unfinished} unfinished, ${c.calls} calls`;
}

export function registerJudgeCommands(program: Command): void {
  const judge = program.command('judge').description('LLM judges beyond the ViT: a tiered rubric per level, an ordering of the teams\' levels');

  commonOptions(
    judge
      .command('rubric')
      .description('judge every level with the tiered rubric (100 → n×50 → n×25 → 0) into <root>/<team>/judge-rubric/<C>.json')
      .argument('<root>', 'competition folder (levels, images from sbeval run)'),
  )
    .addOption(new Option('--view <view>', 'what the judge sees: the final image (vision models), the drop grid as text, or the level XML').choices([...VIEWS]).default('image'))
    .option('--rubric <file.yaml>', 'criteria per score level: a template with {letter} and/or per-letter rubrics (default: the shipped rubric for letter-shaped levels)')
    .addHelpText(
      'after',
      `
The judge answers <analysis>one line per item: "[50.1] met" …</analysis><score>0|25|50|75|100</score>.
An answer without both tags, with more than a number in <score>, or with a score the rubric cannot give
(e.g. 150, 60) is refused, kept with its reason, and asked again with the next seed (--retries).
Temperature 0 and a fixed seed by default; every answer is journaled in <root>/.sbeval/judges/, so the
same command resumes a killed run without asking anything twice. Calls: <root>/logs/judge-rubric_<time>.jsonl.
Exit 0 when every level was judged or refused after its retries, 1 when some are unfinished (hosts down).

Example: sbeval judge rubric competition --judge llava:13b --hosts http://gpu1:11434 --chars A-Z`,
    )
    .action(async (rootArg: string, flags: CommonFlags & { rubric?: string }) => {
      const root = resolve(rootArg);
      const { config, filter, hosts, judge: settings, pool } = settingsFrom(root, flags, 'judge rubric');
      const rubric = loadRubric(flags.rubric === undefined ? undefined : resolve(flags.rubric));
      const display = createProgressDisplay({ json: flags.json === true });
      const stop = cancelOnSignals(() => display.note(RUBRIC_STAGE, 'interrupted: stopping the calls in flight (again to quit at once)'));
      let summary: RubricJudgeSummary;
      try {
        summary = await runRubricJudge({ root, filter, view: flags.view, rubric, prefix: config.prefix, hosts, judge: settings, pool, force: flags.force === true }, display, stop.signal);
      } finally {
        stop.dispose();
        display.close();
      }
      if (flags.json) {
        process.stdout.write(`${JSON.stringify({ type: 'summary', stage: RUBRIC_STAGE, ...summary.counts, noLevel: summary.noLevel, inconsistent: summary.inconsistent, files: summary.files, logFile: summary.logFile, stopped: summary.stopped ?? null })}\n`);
      } else {
        process.stdout.write(`${RUBRIC_STAGE}: ${countsLine(summary.counts)}; ${summary.noLevel} without a level (score 0)${summary.inconsistent > 0 ? `; ${summary.inconsistent} scores disagree with the judge's own item verdicts` : ''}\n`);
        process.stdout.write(`  ${summary.files.length} letter file(s) in <team>/judge-rubric/; calls: ${summary.logFile}\n`);
        if (summary.stopped) process.stdout.write(`  stopped early: ${summary.stopped}\n`);
      }
      if (summary.stopped || summary.counts.unfinished > 0) process.exitCode = 1;
    });

  commonOptions(
    judge
      .command('order')
      .description('order the teams\' levels per letter and trial (Assistant 1..4, ties allowed) into <root>/result/judge-order/<perspective>/')
      .argument('<root>', 'competition folder (levels, images from sbeval run)'),
  )
    .addOption(new Option('--view <view>', 'what the judge sees: the final images (vision models), the drop grids as text, or the level XML').choices([...VIEWS]).default('image'))
    .option('--reference <team>', 'the baseline team: win / tie / lose of every other team against it in metric.json')
    .addOption(new Option('--perspective <name>', 'what the judge compares').choices(Object.keys(PERSPECTIVES)).default('general'))
    .addHelpText(
      'after',
      `
Per letter and trial, up to 4 teams are one question ("Assistant 1" … "Assistant 4"); with more teams a
seeded schedule of groups of 4 covers every pair of teams. Each group is asked twice, in a seeded order
and in its reverse; the two answers are averaged and their disagreement is reported (position bias).
Ranks score 10 / 7.5 / 5 / 2.5; tied assistants share a rank and its score; a team without a level for
that letter and trial is ranked after the others. Outputs: metric.json, review.jsonl, ordering.txt,
scores.csv, levels.csv, position-bias.json, settings.json.

Example: sbeval judge order competition --judge llava:13b --reference zero_shot`,
    )
    .action(async (rootArg: string, flags: CommonFlags & { reference?: string; perspective: string }) => {
      const root = resolve(rootArg);
      const { config, filter, hosts, judge: settings, pool } = settingsFrom(root, flags, 'judge order');
      if (flags.reference === 'tie' || flags.reference === 'model') throw new SbevalError('config', `--reference "${flags.reference}" collides with a key of metric.json`, 'rename the team folder');
      const display = createProgressDisplay({ json: flags.json === true });
      const stop = cancelOnSignals(() => display.note(ORDER_STAGE, 'interrupted: stopping the calls in flight (again to quit at once)'));
      let summary: OrderJudgeSummary;
      try {
        summary = await runOrderJudge(
          { root, filter, view: flags.view, perspective: flags.perspective, reference: flags.reference, prefix: config.prefix, hosts, judge: settings, pool, force: flags.force === true },
          display,
          stop.signal,
        );
      } finally {
        stop.dispose();
        display.close();
      }
      if (flags.json) {
        process.stdout.write(`${JSON.stringify({ type: 'summary', stage: ORDER_STAGE, ...summary.counts, questions: summary.questions, outDir: summary.outDir, teams: summary.teams, logFile: summary.logFile, stopped: summary.stopped ?? null })}\n`);
      } else {
        process.stdout.write(`${ORDER_STAGE}: ${summary.questions} questions; ${countsLine(summary.counts)}\n`);
        for (const t of summary.teams) process.stdout.write(`  ${t.team.padEnd(24)} score ${t.meanScore === null ? '–' : t.meanScore.toFixed(3)}  mean rank ${t.meanRank === null ? '–' : t.meanRank.toFixed(3)}  (${t.questions} questions)\n`);
        process.stdout.write(`  results: ${summary.outDir}; calls: ${summary.logFile}\n`);
        if (summary.stopped) process.stdout.write(`  stopped early: ${summary.stopped}\n`);
      }
      if (summary.stopped || summary.counts.unfinished > 0) process.exitCode = 1;
    });
}
