import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { confineWrites, guardWrite } from '../../core/write-guard.js';
import { resolveSettings } from '../../llm/config.js';
import { buildSurvey, defaultSurveyDir } from '../../llm/survey/build.js';
import { collectSurvey } from '../../llm/survey/collect.js';
import { createInvites, inviteLink } from '../../llm/survey/invites.js';
import { loadMetrics } from '../../llm/survey/metrics.js';
import { startSurveyServer } from '../../llm/survey/server.js';
import { DEFAULTS, settingsLine } from '../../orchestrator/config/index.js';
import { removeDeadTemps, scanRoot } from '../../orchestrator/layout/root-guard.js';
import { serveUntilStopped } from '../interrupt.js';
import { list, option, port, wholeNumber } from '../options.js';
import { COMMAND_SUMMARIES } from './summaries.js';

/**
 * `sbeval survey build|invite|serve|collect <root>`: a human rating survey of a competition's levels,
 * invitations for its raters, its page (on this machine or for remote raters), and the aggregation of
 * their answers (llm/survey/, docs/survey.md).
 */
/** The survey folder option of every survey command. */
const outOption = () => option('--out <dir>', 'survey folder', { defaultText: '<root>/result/survey' });

function registerBuild(survey: Command): void {
  survey
    .command('build')
    .description('a survey of the levels (all, or a seeded sample) into <root>/result/survey/')
    .argument('<root>', 'competition folder (levels and images from sbeval run)')
    .addOption(option('--sample <n>', 'a seeded sample of n levels, spread evenly over team × letter', { parse: wholeNumber(1), defaultText: 'every level' }))
    .addOption(
      option('--seed <n>', "seed of the sample and of each rater's item order", {
        parse: wholeNumber(-(2 ** 31), 2 ** 31 - 1),
        defaultText: `the config's seed, else ${DEFAULTS.seed}`,
      }),
    )
    .addOption(option('--metrics <file.yaml>', 'metrics and their instructions', { defaultText: 'looks like the letter, holds up, creative use of blocks' }))
    .addOption(option('--prompts <dir>', "folder of <team>.txt prompts to show as the history (the config's submissions are used when present)"))
    .addOption(
      option('--team <name>', 'only these teams (repeatable or comma-separated)', { parse: list, defaultText: "the config's teams, else every team folder" }),
    )
    .addOption(option('--chars <letters>', 'only these letters, e.g. A-Z or A,I,L', { defaultText: "the config's characters, else every letter folder" }))
    .addOption(outOption())
    .option('--force', 'replace an existing survey (its answers folder is kept)')
    .action(
      async (
        rootArg: string,
        flags: { sample?: number; seed?: number; metrics?: string; prompts?: string; team?: string[]; chars?: string; out?: string; force?: boolean },
      ) => {
        const root = resolve(rootArg);
        // The settings every command resolves (orchestrator/config/settings.ts), printed in one line.
        const config = resolveSettings(root, { teams: flags.team, chars: flags.chars }, { command: 'survey build' });
        process.stderr.write(`${settingsLine(config, 'survey build')}\n`);
        const out = flags.out ? resolve(flags.out) : defaultSurveyDir(root);
        // A survey folder given with --out is guarded like the root (core/write-guard.ts).
        confineWrites(out);
        const built = await buildSurvey({
          root,
          out,
          filter: { teams: config.teams, characters: config.sources.characters === 'default' ? undefined : config.characters },
          metrics: loadMetrics(flags.metrics === undefined ? undefined : resolve(flags.metrics)),
          sample: flags.sample,
          seed: flags.seed ?? config.seed,
          prefix: config.prefix,
          rules: config.rules,
          submissions: config.submissions,
          promptsDir: flags.prompts === undefined ? undefined : resolve(flags.prompts),
          force: flags.force === true,
        });
        const outFlag = flags.out ? ` --out ${flags.out}` : '';
        process.stdout.write(
          `survey: ${built.items} of ${built.available} levels in ${built.file}\ninvite raters with: sbeval survey invite ${rootArg} <number of raters>${outFlag}\nserve it with: sbeval survey serve ${rootArg}${outFlag}\n`,
        );
      },
    );
}

function registerInvite(survey: Command): void {
  survey
    .command('invite')
    .description('create invitation links for n raters (each an unguessable token; the survey keeps only their digests)')
    .argument('<root>', 'competition folder')
    .argument('<n>', 'number of raters to invite', wholeNumber(1, 10_000))
    .addOption(outOption())
    .addOption(option('--public-url <url>', 'the address raters open', { defaultText: 'http://127.0.0.1:<port>/ as `survey serve` prints it' }))
    .addHelpText(
      'after',
      '\nPrints one link per rater: send each rater their own. The links are shown once; a lost link is replaced by\na new invitation. Raters can be invited while the survey is being served.',
    )
    .action(async (rootArg: string, n: number, flags: { out?: string; publicUrl?: string }) => {
      const out = flags.out ? resolve(flags.out) : defaultSurveyDir(resolve(rootArg));
      confineWrites(out);
      const created = await createInvites(out, n);
      for (const c of created)
        process.stdout.write(`${c.rater}\t${flags.publicUrl ? inviteLink(flags.publicUrl, c.token) : `<survey URL>#invite=${c.token}`}\n`);
      if (!flags.publicUrl) process.stderr.write('put the URL `sbeval survey serve` prints in front of each #invite=…\n');
    });
}

function registerServe(survey: Command): void {
  survey
    .command('serve')
    .description('serve the survey to invited raters and print its URL (answers saved in <survey>/answers/)')
    .argument('<root>', 'competition folder')
    .addOption(outOption())
    .addOption(
      option('--host <address>', "address to listen on: 127.0.0.1 (this machine), an interface's address, or 0.0.0.0 (every interface, with --public-url)", {
        default: '127.0.0.1',
      }),
    )
    .addOption(option('--public-url <url>', 'the address raters open, e.g. behind a reverse proxy (its Host is then accepted)'))
    .addOption(option('--port <n>', 'port (0 = any free port)', { parse: port, default: 0 }))
    .addHelpText(
      'after',
      '\nRaters open their invite links (sbeval survey invite) and rate item after item; every click is saved on the\nserver at once, so a reload or a later visit resumes where they left off. Requests without a valid invitation\nare refused. Stop with Ctrl-C.',
    )
    .action(async (rootArg: string, flags: { out?: string; host: string; publicUrl?: string; port: number }) => {
      const out = flags.out ? resolve(flags.out) : defaultSurveyDir(resolve(rootArg));
      // No lock (cli/root-writers.ts), but the same write guard and the same sweep of temporaries left by killed processes as `run`.
      confineWrites(resolve(rootArg));
      confineWrites(out);
      // The survey folder is checked through the guard first: a link there would carry the sweep outside the root.
      const removed = existsSync(out) ? removeDeadTemps(scanRoot(guardWrite(out, { folder: true }))) : 0;
      if (removed > 0) process.stderr.write(`sbeval: removed ${removed} temporary file(s) left by an interrupted survey server\n`);
      const server = await startSurveyServer({ out, port: flags.port, host: flags.host, ...(flags.publicUrl ? { publicUrl: flags.publicUrl } : {}) });
      await serveUntilStopped(`sbeval survey: ${server.url}`, server);
    });
}

function registerCollect(survey: Command): void {
  survey
    .command('collect')
    .description("aggregate the answers per team × letter × metric, with Krippendorff's alpha and correlations with stability, similarity and the judges")
    .argument('<root>', 'competition folder')
    .addOption(outOption())
    .option('--json', 'print the summary as JSON')
    .action(async (rootArg: string, flags: { out?: string; json?: boolean }) => {
      const out = flags.out ? resolve(flags.out) : defaultSurveyDir(resolve(rootArg));
      confineWrites(out);
      const result = await collectSurvey(out);
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(result)}\n`);
        return;
      }
      for (const w of result.warnings) process.stderr.write(`warning: ${w}\n`);
      process.stdout.write(
        `survey collect: ${result.raters} rater(s), ${result.ratings} ratings, ${result.comments} comment(s)${result.skipped.length ? `, ${result.skipped.length} answers skipped (see results.json)` : ''}\n`,
      );
      const f = (v: number | null) => (v === null ? 'undefined' : v.toFixed(3));
      for (const a of result.agreement) {
        const ci = a.low === null ? '' : ` [${f(a.low)}, ${f(a.high)}]`;
        process.stdout.write(
          `  ${a.metric.padEnd(16)} Krippendorff's alpha: interval ${f(a.interval)}${ci}, ordinal ${f(a.ordinal)} (${a.units} items rated by 2+ raters)\n`,
        );
      }
      for (const a of result.judges)
        process.stdout.write(
          `  ${a.a} vs ${a.b}: ${a.statistic === 'alpha' ? 'alpha' : 'Spearman rho'} ${f(a.value)}${a.interval ? ` [${f(a.interval.low)}, ${f(a.interval.high)}]` : ''} (${a.units} levels)\n`,
        );
      process.stdout.write(`  files: ${result.files.join(', ')}\n`);
    });
}

export function registerSurveyCommands(program: Command): void {
  const survey = program.command('survey').description(COMMAND_SUMMARIES.survey);
  registerBuild(survey);
  registerInvite(survey);
  registerServe(survey);
  registerCollect(survey);
}
