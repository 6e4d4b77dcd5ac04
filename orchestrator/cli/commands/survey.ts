import { InvalidArgumentError, type Command } from 'commander';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { resolveSettings, settingsLine } from '../../config/index.js';
import { buildSurvey, defaultSurveyDir } from '../../survey/build.js';
import { collectSurvey } from '../../survey/collect.js';
import { loadMetrics } from '../../survey/metrics.js';
import { startSurveyServer } from '../../survey/server.js';
import { confineWrites, guardWrite } from '../../../core/write-guard.js';
import { removeDeadTemps, scanRoot } from '../../layout/root-guard.js';

/**
 * `sbeval survey build|serve|collect <root>`: a human rating survey of a competition's levels, its
 * page for raters on 127.0.0.1, and the aggregation of their answers (orchestrator/survey/).
 */
function int(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`expected a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}`);
    return n;
  };
}

function list(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim()).filter((v) => v.length > 0)];
}

export function registerSurveyCommands(program: Command): void {
  const survey = program.command('survey').description('human ratings of the levels: build a survey, serve it to raters, collect the answers');

  survey
    .command('build')
    .description('a survey of the levels (all, or a seeded sample) into <root>/result/survey/')
    .argument('<root>', 'competition folder (levels and images from sbeval run)')
    .option('--sample <n>', 'a seeded sample of n levels (default: every level)', int(1))
    .option('--seed <n>', "seed of the sample and of each rater's item order (default: the config's seed, else 6280)", int(-(2 ** 31), 2 ** 31 - 1))
    .option('--metrics <file.yaml>', 'metrics and their instructions (default: looks like the letter, holds up, creative use of blocks)')
    .option('--prompts <dir>', 'folder of <team>.txt prompts to show as the history (the config\'s submissions are used when present)')
    .option('--team <name>', 'only these teams (repeatable or comma-separated)', list, [])
    .option('--chars <letters>', 'only these letters, e.g. A-Z or A,I,L')
    .option('--out <dir>', 'survey folder (default: <root>/result/survey)')
    .option('--force', 'replace an existing survey (its answers folder is kept)')
    .action(async (rootArg: string, flags: { sample?: number; seed?: number; metrics?: string; prompts?: string; team: string[]; chars?: string; out?: string; force?: boolean }) => {
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
      process.stdout.write(`survey: ${built.items} of ${built.available} levels in ${built.file}\nserve it with: sbeval survey serve ${rootArg}${flags.out ? ` --out ${flags.out}` : ''}\n`);
    });

  survey
    .command('serve')
    .description('serve the survey to raters on 127.0.0.1 and print its URL (answers saved in <survey>/answers/)')
    .argument('<root>', 'competition folder')
    .option('--out <dir>', 'survey folder (default: <root>/result/survey)')
    .option('--port <n>', 'port on 127.0.0.1 (0 = any free port)', int(0, 65535), 0)
    .addHelpText('after', '\nRaters open the URL, enter a rater id, and rate item after item; every click is saved on the server at once,\nso a reload or a later visit with the same id resumes where they left off. Stop with Ctrl-C.')
    .action(async (rootArg: string, flags: { out?: string; port: number }) => {
      const out = flags.out ? resolve(flags.out) : defaultSurveyDir(resolve(rootArg));
      // No lock (cli/root-writers.ts), but the same write guard and the same sweep of temporaries left by killed processes as `run`.
      confineWrites(resolve(rootArg));
      confineWrites(out);
      // The survey folder is checked through the guard first: a link there would carry the sweep outside the root.
      const removed = existsSync(out) ? removeDeadTemps(scanRoot(guardWrite(out, { folder: true }))) : 0;
      if (removed > 0) process.stderr.write(`sbeval: removed ${removed} temporary file(s) left by an interrupted survey server\n`);
      const server = await startSurveyServer({ out, port: flags.port });
      process.stdout.write(`sbeval survey: ${server.url}\n`);
      process.stderr.write('press Ctrl-C to stop\n');
      await new Promise<void>((done) => {
        process.once('SIGINT', () => done());
        process.once('SIGTERM', () => done());
      });
      await server.close();
    });

  survey
    .command('collect')
    .description('aggregate the answers per team × letter × metric, with Krippendorff\'s alpha and correlations with stability, similarity and the judges')
    .argument('<root>', 'competition folder')
    .option('--out <dir>', 'survey folder (default: <root>/result/survey)')
    .option('--json', 'print the summary as JSON')
    .action(async (rootArg: string, flags: { out?: string; json?: boolean }) => {
      const out = flags.out ? resolve(flags.out) : defaultSurveyDir(resolve(rootArg));
      confineWrites(out);
      const result = await collectSurvey(out);
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(result)}\n`);
        return;
      }
      process.stdout.write(`survey collect: ${result.raters} rater(s), ${result.ratings} ratings${result.skipped.length ? `, ${result.skipped.length} skipped (see results.json)` : ''}\n`);
      for (const a of result.agreement) {
        const f = (v: number | null) => (v === null ? 'undefined' : v.toFixed(3));
        process.stdout.write(`  ${a.metric.padEnd(16)} Krippendorff's alpha: interval ${f(a.interval)}, ordinal ${f(a.ordinal)} (${a.units} items rated by 2+ raters)\n`);
      }
      process.stdout.write(`  files: ${result.files.join(', ')}\n`);
    });
}
