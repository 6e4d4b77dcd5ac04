import { resolve } from 'node:path';
import type { Command } from 'commander';
import { publishSite } from '../../orchestrator/publish/site.js';
import { option } from '../options.js';
import { COMMAND_SUMMARIES } from './summaries.js';

/** `sbeval publish <root> --out <dir>`: the scored competition as a static site. */
interface PublishFlags {
  out: string;
  title?: string;
}

async function publishAction(root: string, flags: PublishFlags): Promise<void> {
  const out = resolve(flags.out);
  const site = await publishSite(resolve(root), out, flags.title === undefined ? {} : { title: flags.title });
  const kib = (site.bytes / 1024).toFixed(1);
  process.stdout.write(
    `sbeval publish: ${site.trials} trials, ${site.files} files, ${kib} KiB in ${out} (open index.html from any static host or from disk)\n`,
  );
}

export function registerPublishCommand(program: Command): void {
  program
    .command('publish')
    .description(COMMAND_SUMMARIES.publish)
    .argument('<root>', 'a competition folder after sbeval run or sbeval score (with result/)')
    .addOption(option('--out <dir>', 'a new or empty folder for the site', { required: true }))
    .addOption(option('--title <text>', 'the title of the site'))
    .addHelpText(
      'after',
      `
The site: index.html with the ranking (result/prompt_scores_ranks.csv, with the interval of
result/score_intervals.csv when there is one), every trial's thumbnail and one table per letter, and a
page per trial (trial.html#team=…&letter=…&trial=…): the verdict the stability file recorded, the
failure reason, and the level replayed in the browser from its XML by the playground's evaluation,
marked when the two disagree. Nothing in it asks for a file outside its folder (docs/publish.md).

Example: sbeval publish examples/competition --out site/results`,
    )
    .action(publishAction);
}
