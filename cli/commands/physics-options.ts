import type { Command } from 'commander';
import { DEFAULT_VELOCITY_RULE } from '../../scoring/stability.js';
import { option, positiveNumber, wholeNumber } from '../options.js';
import { addSettingsOptions } from '../settings-options.js';

/**
 * The physics options `simulate` and `level` share (one place for their defaults and help). `--trials`
 * was their name for the stability trials per level; it means T (trials per character) everywhere
 * else, so here it is now `--sim-trials`, and the old spelling is accepted with a note.
 */
export function physicsOptions(command: Command): Command {
  const velocity = DEFAULT_VELOCITY_RULE.kind === 'velocity' ? DEFAULT_VELOCITY_RULE.threshold : undefined;
  return addSettingsOptions(command, ['simTrials', 'damage'])
    .addOption(option('--trials <n>', 'old spelling of --sim-trials', { parse: wholeNumber(1, 3), hidden: true }))
    .addOption(
      option('--rule <rule>', 'stability rule: displacement (official: centre moved ≥ 0.1 in 10 s) or velocity (speed above a threshold in any frame)', {
        choices: ['displacement', 'velocity'],
        default: 'displacement',
      }),
    )
    .addOption(option('--velocity-threshold <units/s>', 'threshold of the velocity rule', { parse: positiveNumber, defaultText: String(velocity) }));
}

/** `--sim-trials`, or the old `--trials` with a note. */
export function simTrialsOf(flags: { simTrials?: number | undefined; trials?: number | undefined }): number | undefined {
  if (flags.trials === undefined) return flags.simTrials;
  process.stderr.write(
    'sbeval: --trials on simulate and level is now --sim-trials (stability trials per level; --trials means T, the trials per character, on every other command)\n',
  );
  return flags.simTrials ?? flags.trials;
}
