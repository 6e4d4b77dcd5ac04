import { resolve } from 'node:path';
import type { Command } from 'commander';
import { SbevalError } from '../../core/errors.js';
import { resolveSettings } from '../../llm/config.js';
import { DEFAULT_POOL_SETTINGS, withModelCalls } from '../../llm/generate/host-pool.js';
import { type BackendOptions, DEFAULT_MAX_REFUSAL_RATE, type FailureCounts, refusalProblem } from '../../llm/judges/judge-run.js';
import type { LevelFilter } from '../../llm/judges/levels.js';
import { ORDER_STAGE, type OrderJudgeSummary, runOrderJudge } from '../../llm/judges/order-stage.js';
import { judgeId } from '../../llm/judges/paths.js';
import { loadPromptTemplate, loadRubric } from '../../llm/judges/rubric-file.js';
import { RUBRIC_STAGE, type RubricJudgeSummary, runRubricJudge } from '../../llm/judges/rubric-stage.js';
import type { JudgeSettings } from '../../llm/judges/runner.js';
import type { Interval } from '../../llm/judges/scoring/bootstrap.js';
import { RANK_SCORES, type RankScores } from '../../llm/judges/scoring/order.js';
import { PERSPECTIVES } from '../../llm/judges/scoring/order-prompt.js';
import { LOW_TIERS, reachableScores } from '../../llm/judges/scoring/rubric.js';
import { VIEWS, type ViewKind } from '../../llm/judges/scoring/views.js';
import { modelCallSettings } from '../../llm/model-calls/settings.js';
import { DEFAULTS, settingsLine } from '../../orchestrator/config/index.js';
import { createProgressDisplay } from '../../orchestrator/progress/index.js';
import { EXIT_CHECK_FAILED } from '../exit-codes.js';
import { list, nonNegativeNumber, option, share, wholeNumber, wrapHelp } from '../options.js';
import { addSettingsOptions } from '../settings-options.js';
import { COMMAND_SUMMARIES } from './summaries.js';

/**
 * `sbeval judge rubric|order <root>`: LLM judges beyond the ViT (docs/judges.md). Settings resolve as
 * for every command: flags, then the root's sbeval.config.yaml (teams, characters, trials, seed,
 * hosts, prefix), then the defaults. Exit 0 when every level was judged or refused and the refusals
 * stay within `--max-refusal-rate`; 1 when some are unfinished (hosts down) or too many were refused.
 */
interface CommonFlags {
  judge: string;
  api?: string;
  callTimeout?: number;
  maxAnswerBytes?: number;
  label?: string;
  hosts?: string[];
  team?: string[];
  chars?: string;
  trials?: number;
  view: ViewKind;
  protocol: 'sbeval' | 'document';
  seed?: number;
  temperature: number;
  retries: number;
  maxTokens: number;
  maxRefusalRate: number;
  concurrency?: number;
  retryFailed?: boolean;
  force?: boolean;
  stallTimeout: number;
  maxAttempts: number;
  json?: boolean;
}

function commonOptions(command: Command): Command {
  // The API, call deadline and answer byte cap resolve as for every command that calls a model.
  return addSettingsOptions(command, ['api', 'callTimeout', 'maxAnswerBytes'])
    .addOption(option('--judge <model>', 'the model that judges (a vision model for --view image, e.g. llava:13b, qwen2.5vl:7b, gpt-4o)', { required: true }))
    .addOption(option('--label <name>', "the judge's folder name: keeps two settings of one model side by side", { defaultText: 'the model name' }))
    .addOption(
      option('--protocol <protocol>', "sbeval's protocol, or the document's taken literally (docs/judges.md)", {
        choices: ['sbeval', 'document'],
        default: 'sbeval',
      }),
    )
    .addOption(
      option('--hosts <url,url>', 'hosts sharing the calls: Ollama hosts, or OpenAI-style base URLs (…/v1) with --api openai', {
        parse: list,
        defaultText: "the config's hosts, else $OLLAMA_HOST or http://127.0.0.1:11434",
      }),
    )
    .addOption(
      option('--team <name>', 'only these teams (repeatable or comma-separated)', { parse: list, defaultText: "the config's teams, else every team folder" }),
    )
    .addOption(option('--chars <letters>', 'only these letters, e.g. A-Z or A,I,L', { defaultText: "the config's characters, else the letters found" }))
    .addOption(
      option('--trials <n>', 'only trials 1…n of each letter', { parse: wholeNumber(1, 100_000), defaultText: "the config's trials, else every trial found" }),
    )
    .addOption(
      option('--seed <n>', 'seed of the first attempt (a retry k uses seed + k) and of the intervals', {
        parse: wholeNumber(-(2 ** 31), 2 ** 31 - 1),
        defaultText: `the config's seed, else ${DEFAULTS.seed}`,
      }),
    )
    .addOption(option('--temperature <t>', 'sampling temperature of the judge', { parse: nonNegativeNumber, default: 0 }))
    .addOption(
      option('--retries <n>', 'further attempts after an answer that does not parse (missing tags, out of range …)', { parse: wholeNumber(0, 20), default: 2 }),
    )
    .addOption(option('--max-tokens <n>', "cap on the judge's answer in tokens", { parse: wholeNumber(16, 1_000_000), default: 2048 }))
    .addOption(
      option('--max-refusal-rate <share>', 'exit 1 when more than this share of the answers were refused after the retries', {
        parse: share,
        default: DEFAULT_MAX_REFUSAL_RATE,
      }),
    )
    .addOption(option('--concurrency <n>', 'calls in flight at once', { parse: wholeNumber(1, 1024), defaultText: 'one per host' }))
    .option('--retry-failed', 'ask again the levels whose answers never parsed in an earlier run (with new seeds)')
    .option('--force', 'replace results this judge (--label) wrote with other settings')
    .addOption(
      option('--stall-timeout <s>', 'retry a call on another host when the host sends nothing for this long (0 = never)', {
        parse: nonNegativeNumber,
        default: DEFAULT_POOL_SETTINGS.call.stallTimeoutMs / 1000,
      }),
    )
    .addOption(
      option('--max-attempts <n>', 'failed attempts (network errors, 5xx) before a call gives up', {
        parse: wholeNumber(1, 1000),
        default: DEFAULT_POOL_SETTINGS.maxAttempts,
      }),
    )
    .option('--json', 'progress and summary as JSON lines on stdout');
}

/** `0, 25, 50 or 100`. */
const orList = (scores: readonly number[]): string => (scores.length < 2 ? scores.join('') : `${scores.slice(0, -1).join(', ')} or ${scores.at(-1)}`);

/**
 * What the help says a judge may answer: the scores the shipped rubric can give (llm/judges/scoring/rubric.ts
 * `reachableScores`; an answer with another score is refused), read from the rubric file itself.
 */
function rubricAnswerHelp(): string {
  const shipped = loadRubric(undefined).template;
  const scores = (lowTier: keyof typeof LOW_TIERS) => (shipped ? orList(reachableScores(shipped, LOW_TIERS[lowTier])) : 'the scores its items can reach');
  const text = [
    `The judge answers <analysis>…</analysis><score>N</score>, N a score the rubric can give: with the shipped rubric ${scores('n25')}`,
    `(with --low-tier n20: ${scores('n20')}); with --rubric, the scores its levels and items can reach. An answer without`,
    'both tags, with more than a number in <score>, or with a score the rubric cannot give is refused, kept with its reason,',
    'and asked again with the next seed (--retries). A level with nothing to show and a level whose answers were all refused',
    'count 0 (the worst score) and stay in every mean. Every answer is journaled in <root>/.sbeval/judges/ by the content',
    'it was asked about: the same command resumes a killed run without asking anything twice, and asks again about a level',
    'whose image or XML changed. Calls: <root>/logs/judge-rubric_<time>.jsonl.',
  ].join(' ');
  return `\n${wrapHelp(text)}\n\nExample: sbeval judge rubric competition --judge llava:13b --hosts http://gpu1:11434 --chars A-Z`;
}

/** The settings every command resolves (orchestrator/config/settings.ts), printed in one line. */
function settingsFrom(root: string, flags: CommonFlags, command: 'judge rubric' | 'judge order') {
  const config = resolveSettings(
    root,
    {
      teams: flags.team,
      chars: flags.chars,
      trials: flags.trials,
      hosts: flags.hosts,
      api: flags.api,
      callTimeout: flags.callTimeout,
      maxAnswerBytes: flags.maxAnswerBytes,
    },
    { command },
  );
  process.stderr.write(`${settingsLine(config, command)}\n`);
  const filter: LevelFilter = {
    teams: config.teams,
    characters: config.sources.characters === 'default' ? undefined : config.characters,
    trials: config.sources.trials === 'default' ? undefined : config.trials,
  };
  const hosts = config.hosts;
  const modelCalls = modelCallSettings(config.modelCalls);
  const judge: JudgeSettings = {
    api: modelCalls.api,
    model: flags.judge,
    temperature: flags.temperature,
    seed: flags.seed ?? config.seed,
    retries: flags.retries,
    maxTokens: flags.maxTokens,
    concurrency: flags.concurrency ?? hosts.length,
    retryFailed: flags.retryFailed === true,
  };
  const pool = withModelCalls(
    {
      ...DEFAULT_POOL_SETTINGS,
      maxAttempts: flags.maxAttempts,
      call: { ...DEFAULT_POOL_SETTINGS.call, stream: true, stallTimeoutMs: flags.stallTimeout * 1000 },
    },
    modelCalls,
  );
  const backend: BackendOptions = { hosts, pool };
  return { config, filter, judge, backend, id: judgeId(flags.judge, flags.label) };
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
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}

function failuresLine(f: FailureCounts, calls: number, cached: number): string {
  const rate = f.refusalRate === null ? '–' : `${(100 * f.refusalRate).toFixed(1)} %`;
  return `${f.judged} judged, ${f.refused} refused after retries, ${f.missing} missing (nothing to show), ${f.unfinished} unfinished; refusal rate ${rate}; ${calls} calls, ${cached} already done`;
}

const interval = (i: Interval | null, digits: number) => (i ? ` [${i.low.toFixed(digits)}, ${i.high.toFixed(digits)}]` : '');

/** Exit code and the reason to print: unfinished or stopped → 1; too many refusals → 1. */
function finish(summary: { stopped: string | undefined; failures: FailureCounts }, maxRate: number, json: boolean): void {
  const problem = refusalProblem(summary.failures, maxRate);
  if (problem && !json) process.stderr.write(`error: ${problem}\n`);
  if (summary.stopped || summary.failures.unfinished > 0 || problem) process.exitCode = EXIT_CHECK_FAILED;
}

async function withProgress<T>(
  stage: string,
  json: boolean,
  run: (display: ReturnType<typeof createProgressDisplay>, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const display = createProgressDisplay({ json });
  const stop = cancelOnSignals(() => display.note(stage, 'interrupted: stopping the calls in flight (again to quit at once)'));
  try {
    return await run(display, stop.signal);
  } finally {
    stop.dispose();
    display.close();
  }
}

function registerRubric(judge: Command): void {
  commonOptions(
    judge
      .command('rubric')
      .description('judge every level with the tiered rubric (100 → n×50 → n×25 → 0) into <root>/<team>/judge-rubric/<judge>/<C>.json')
      .argument('<root>', 'competition folder (levels, images from sbeval run)'),
  )
    .addOption(
      option('--view <view>', 'what the judge sees: the final image (vision models), the drop grid as text, or the level XML', {
        choices: [...VIEWS],
        default: 'image',
      }),
    )
    .addOption(
      option('--rubric <file.yaml>', 'criteria per score level: a template with {letter} and/or per-letter rubrics', {
        defaultText: 'the shipped rubric for letter-shaped levels',
      }),
    )
    .addOption(
      option('--low-tier <rule>', "points per item met at the 25 level: n × 25 (the document's note) or n × 20 (its prompt)", {
        choices: Object.keys(LOW_TIERS),
        default: 'n25',
      }),
    )
    .addOption(option('--prompt-template <file>', "your own prompt (e.g. a paper's exact text) with {question} {answer} {criteria} … placeholders"))
    .addHelpText('after', rubricAnswerHelp)
    .action(async (rootArg: string, flags: CommonFlags & { rubric?: string; lowTier: keyof typeof LOW_TIERS; promptTemplate?: string }) => {
      const root = resolve(rootArg);
      const { config, filter, judge: settings, backend, id } = settingsFrom(root, flags, 'judge rubric');
      const rubric = loadRubric(flags.rubric === undefined ? undefined : resolve(flags.rubric));
      const template = flags.promptTemplate === undefined ? undefined : loadPromptTemplate(resolve(flags.promptTemplate));
      const summary: RubricJudgeSummary = await withProgress(RUBRIC_STAGE, flags.json === true, (display, signal) =>
        runRubricJudge(
          {
            root,
            filter,
            view: flags.view,
            rubric,
            protocol: flags.protocol,
            lowTier: LOW_TIERS[flags.lowTier],
            template,
            id,
            prefix: config.prefix,
            judge: settings,
            backend,
            force: flags.force === true,
          },
          display,
          signal,
        ),
      );
      if (flags.json) {
        process.stdout.write(
          `${JSON.stringify({ type: 'summary', stage: RUBRIC_STAGE, judge: id, ...summary.counts, failures: summary.failures, inconsistent: summary.inconsistent, teams: summary.teams, files: summary.files, logFile: summary.logFile, stopped: summary.stopped ?? null })}\n`,
        );
      } else {
        process.stdout.write(
          `${RUBRIC_STAGE} (${id}): ${failuresLine(summary.failures, summary.counts.calls, summary.counts.cached)}${summary.inconsistent > 0 ? `; ${summary.inconsistent} scores disagree with the judge's own item verdicts` : ''}\n`,
        );
        for (const t of summary.teams)
          process.stdout.write(`  ${t.team.padEnd(24)} mean ${t.mean === null ? '–' : t.mean.toFixed(1)}${interval(t.interval, 1)}  (${t.levels} levels)\n`);
        process.stdout.write(`  ${summary.files.length} letter file(s) in <team>/judge-rubric/${id}/; calls: ${summary.logFile}\n`);
        if (summary.stopped) process.stdout.write(`  stopped early: ${summary.stopped}\n`);
      }
      finish(summary, flags.maxRefusalRate, flags.json === true);
    });
}

type OrderFlags = CommonFlags & { reference?: string; perspective: string; rankScores: RankScores };

const ORDER_HELP = `
sbeval's protocol: per letter and trial, up to 4 teams are one question ("Assistant 1" … "Assistant 4"; more
teams: a seeded schedule of groups of 4 covering every pair, each holding --reference when given); a group of
m levels is asked m times, every team once in every position, and the answers are averaged. The document's
protocol (--protocol document): every team in one question, asked once, the reference first; the first
complete ordering is the answer; review.jsonl and questions.jsonl as the document's compute script reads them.
A team without a level to show, and every team of a presentation whose answers were all refused, is ranked
last. Outputs: metric.json, ordering.txt, scores.csv, levels.csv, summary.json, settings.json, and
presentations.jsonl + position-bias.json (sbeval) or review.jsonl + questions.jsonl (document).

Example: sbeval judge order competition --judge llava:13b --reference zero_shot`;

/** The lines (or the JSON summary) `sbeval judge order` prints when it is done. */
function printOrderSummary(summary: OrderJudgeSummary, id: string, flags: OrderFlags): void {
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({ type: 'summary', stage: ORDER_STAGE, judge: id, ...summary.counts, failures: summary.failures, questions: summary.questions, outDir: summary.outDir, teams: summary.teams, logFile: summary.logFile, stopped: summary.stopped ?? null })}\n`,
    );
  } else {
    process.stdout.write(
      `${ORDER_STAGE} (${id}, ${flags.protocol} protocol): ${summary.questions} questions; ${failuresLine(summary.failures, summary.counts.calls, summary.counts.cached)}\n`,
    );
    for (const t of summary.teams)
      process.stdout.write(
        `  ${t.team.padEnd(24)} score ${t.meanScore === null ? '–' : t.meanScore.toFixed(3)}${interval(t.interval, 3)}  mean rank ${t.meanRank === null ? '–' : t.meanRank.toFixed(3)}  (${t.questions} questions)\n`,
      );
    for (const v of summary.versus)
      process.stdout.write(
        `  ${v.team.padEnd(24)} vs ${flags.reference}: win ${v.teamWins}, tie ${v.ties}, lose ${v.referenceWins}${v.winShare === null ? '' : `, share won ${v.winShare.toFixed(3)}${interval(v.winShareInterval, 3)}`}\n`,
      );
    process.stdout.write(`  results: ${summary.outDir}; calls: ${summary.logFile}\n`);
    if (summary.stopped) process.stdout.write(`  stopped early: ${summary.stopped}\n`);
  }
}

async function orderAction(rootArg: string, flags: OrderFlags): Promise<void> {
  const root = resolve(rootArg);
  const { config, filter, judge: settings, backend, id } = settingsFrom(root, flags, 'judge order');
  if (flags.reference === 'tie' || flags.reference === 'model')
    throw new SbevalError('config', `--reference "${flags.reference}" collides with a key of metric.json`, 'rename the team folder');
  const summary: OrderJudgeSummary = await withProgress(ORDER_STAGE, flags.json === true, (display, signal) =>
    runOrderJudge(
      {
        root,
        filter,
        view: flags.view,
        perspective: flags.perspective,
        reference: flags.reference,
        protocol: flags.protocol,
        rankScores: flags.rankScores,
        id,
        prefix: config.prefix,
        judge: settings,
        backend,
        force: flags.force === true,
      },
      display,
      signal,
    ),
  );
  printOrderSummary(summary, id, flags);
  finish(summary, flags.maxRefusalRate, flags.json === true);
}

function registerOrder(judge: Command): void {
  commonOptions(
    judge
      .command('order')
      .description("order the teams' levels per letter and trial (Assistant 1..4, ties allowed) into <root>/result/judge-order/<judge>/<perspective>/")
      .argument('<root>', 'competition folder (levels, images from sbeval run)'),
  )
    .addOption(
      option('--view <view>', 'what the judge sees: the final images (vision models), the drop grids as text, or the level XML', {
        choices: [...VIEWS],
        default: 'image',
      }),
    )
    .addOption(option('--reference <team>', 'the baseline team: in every group, and win / tie / lose of every other team against it in metric.json'))
    .addOption(option('--perspective <name>', 'what the judge compares', { choices: Object.keys(PERSPECTIVES), default: 'general' }))
    .addOption(
      option('--rank-scores <scale>', "rank → score: the document's table 10/7.5/5/2.5, or 10/rank as its compute script", {
        choices: [...RANK_SCORES],
        default: 'table',
      }),
    )
    .addHelpText('after', ORDER_HELP)
    .action(orderAction);
}

export function registerJudgeCommands(program: Command): void {
  const judge = program.command('judge').description(COMMAND_SUMMARIES.judge);
  registerRubric(judge);
  registerOrder(judge);
}
