import { resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { DAMAGE_FORMULAS, type DamageFormula, DEFAULT_SIMULATION } from '../../bridge/engine.js';
import { BOX2D_NAMES, type Box2dName } from '../../bridge/headless/settings.js';
import { createProgressDisplay } from '../../orchestrator/progress/index.js';
import { recordCorpus } from '../../orchestrator/stages/record.js';
import { type VerifySummary, verifyCorpus } from '../../orchestrator/stages/verify.js';
import { DEFAULT_TOLERANCE, type Divergence } from '../../scoring/trial-comparison.js';
import { EXIT_CHECK_FAILED } from '../exit-codes.js';
import { nonNegativeNumber, option } from '../options.js';
import { COMMAND_SUMMARIES } from './summaries.js';

/**
 * `sbeval record <levels-dir> --out <corpus>` and `sbeval verify <corpus>`: regression of an engine
 * against recorded simulations.
 */
function box2dSetting(value: string, previous: Partial<Record<Box2dName, number>> = {}): Partial<Record<Box2dName, number>> {
  const m = /^([A-Za-z]+)=(.+)$/.exec(value);
  if (!m) throw new InvalidArgumentError('expected name=value, e.g. baumgarte=0.1');
  const name = m[1]! as Box2dName;
  if (!BOX2D_NAMES.includes(name)) throw new InvalidArgumentError(`unknown Box2D constant "${m[1]}"; choose one of ${BOX2D_NAMES.join(', ')}`);
  const n = Number(m[2]);
  if (!Number.isFinite(n)) throw new InvalidArgumentError(`${name} needs a number`);
  return { ...previous, [name]: n };
}

const num = (v: number): string => (Math.abs(v) >= 1e-3 || v === 0 ? v.toFixed(4) : v.toExponential(2));

function describeDivergence(d: Divergence): string {
  if (d.field === 'bodies') return `the body tables differ (${d.recorded} vs ${d.replayed} bodies)`;
  if (d.field === 'steps') return `the runs have ${d.recorded} vs ${d.replayed} steps`;
  if (d.field === 'alive') return `step ${d.step}, body #${d.body} ${d.type}: ${d.recorded ? 'alive' : 'dead'} → ${d.replayed ? 'alive' : 'dead'}`;
  return `step ${d.step}, body #${d.body} ${d.type}: ${d.field} ${num(d.recorded)} → ${num(d.replayed)} (Δ ${num(d.delta)})`;
}

function formatVerify(summary: VerifySummary): string {
  const lines: string[] = [];
  const c = summary.counts;
  lines.push(
    `verify ${summary.corpus}: ${summary.levels.length} traces against ${summary.engine.kind} ${summary.engine.version} (tolerance ${summary.tolerance})`,
  );
  lines.push(
    `  identical ${c.identical}, within tolerance ${c['within-tolerance']}, diverged ${c.diverged}, failed ${c.failed}; stability verdict changed in ${summary.verdictChanges}; ${(summary.elapsedMs / 1000).toFixed(1)} s`,
  );
  const engines = new Set(
    summary.levels
      .map((l) => (l.recordedEngine ? `${l.recordedEngine.kind} ${l.recordedEngine.version} (${l.recordedEngine.description})` : ''))
      .filter((e) => e),
  );
  if (engines.size > 0) lines.push(`  recorded with: ${[...engines].join('; ')}`);
  for (const l of summary.levels) {
    if (l.error) {
      lines.push(`  FAILED    ${l.trace}: ${l.error}`);
      continue;
    }
    const cmp = l.comparison!;
    if (cmp.agreement === 'identical' && !cmp.verdictChanged) continue;
    const verdict = cmp.verdictChanged
      ? `VERDICT CHANGED: score ${cmp.recorded.score} → ${cmp.replayed.score}, moving [${cmp.recorded.moving.join(',')}] → [${cmp.replayed.moving.join(',')}]`
      : `verdict unchanged (score ${cmp.recorded.score})`;
    if (cmp.agreement === 'diverged') {
      lines.push(`  diverged  ${l.trace}: first divergence at ${describeDivergence(cmp.firstDivergence!)}; ${verdict}`);
    } else {
      const first = cmp.firstDifference
        ? `first difference at ${describeDivergence(cmp.firstDifference)}`
        : `events differ from #${cmp.firstEventDifference?.index}`;
      lines.push(`  within    ${l.trace}: max Δ position ${num(cmp.maxPositionDelta)}, angle ${num(cmp.maxAngleDelta)}; ${first}; ${verdict}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

interface RecordFlags {
  out: string;
  damage: DamageFormula;
  capture?: boolean;
}

interface VerifyFlags {
  tolerance: number;
  damage?: DamageFormula;
  box2d?: Partial<Record<Box2dName, number>>;
  json?: boolean;
}

export function registerVerifyCommands(program: Command): void {
  program
    .command('record')
    .description(COMMAND_SUMMARIES.record)
    .argument('<levels-dir>', 'folder searched recursively for .xml levels')
    .requiredOption('--out <corpus>', 'corpus folder: <relative level path>.sbtrace.gz per level + corpus.json')
    .addOption(option('--damage <formula>', 'damage at contact begin: contact-point or body', { choices: DAMAGE_FORMULAS, default: DEFAULT_SIMULATION.damage }))
    .option('--capture', 'also keep the black-on-white capture in each trace (bigger corpus; the viewer shows it)')
    .addHelpText(
      'after',
      `
Each level runs once (trial 1, the evaluator's 500-step window) on the headless engine. Traces carry
the level XML, the settings and the engine identity, so the corpus is self-contained; recording the
same levels with the same engine gives byte-identical files.

Example: sbeval record calibration/reference-levels --out my-corpus`,
    )
    .action(async (levelsDir: string, flags: RecordFlags) => {
      const display = createProgressDisplay({ stream: process.stderr });
      let summary;
      try {
        summary = await recordCorpus(
          { levelsDir: resolve(levelsDir), out: resolve(flags.out), settings: { damage: flags.damage, capture: flags.capture === true } },
          display,
        );
      } finally {
        display.close();
      }
      process.stdout.write(
        `recorded ${summary.recorded.length} levels into ${flags.out} (${(summary.bytes / 1024).toFixed(1)} KiB of traces)${summary.failed.length ? `, ${summary.failed.length} failed` : ''}\n`,
      );
      for (const f of summary.failed) process.stdout.write(`  failed ${f.level}: ${f.reason}\n`);
      if (summary.failed.length > 0) process.exitCode = EXIT_CHECK_FAILED;
    });

  program
    .command('verify')
    .description(COMMAND_SUMMARIES.verify)
    .argument('<corpus>', 'folder searched recursively for *.sbtrace[.gz] (sbeval record, sbeval level --trace)')
    .addOption(
      option('--tolerance <value>', 'largest difference in x, y (units) and angle (radians) that still agrees', {
        parse: nonNegativeNumber,
        default: DEFAULT_TOLERANCE,
      }),
    )
    .addOption(option('--damage <formula>', 'replay with another damage formula than recorded', { choices: DAMAGE_FORMULAS, defaultText: 'the recorded one' }))
    .addOption(option('--box2d <name=value>', `replay with a Box2D constant changed (repeatable): ${BOX2D_NAMES.join(', ')}`, { parse: box2dSetting }))
    .option('--json', 'print the full comparison as JSON')
    .addHelpText(
      'after',
      `
Exit code 1 when the official stability verdict (score or which objects moved) changed for any level,
or a level could not be replayed; 0 otherwise, even when frames diverged (they are listed).

Example: sbeval record my-levels --out corpus                # once, before a change
         sbeval verify corpus                                 # after it
         sbeval verify corpus --box2d baumgarte=0.1           # what would this change do?`,
    )
    .action(async (corpus: string, flags: VerifyFlags) => {
      const display = createProgressDisplay({ stream: process.stderr });
      let summary: VerifySummary;
      try {
        summary = await verifyCorpus(
          { corpus: resolve(corpus), tolerance: flags.tolerance, box2d: flags.box2d ?? {}, ...(flags.damage ? { settings: { damage: flags.damage } } : {}) },
          display,
        );
      } finally {
        display.close();
      }
      if (flags.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      else process.stdout.write(formatVerify(summary));
      if (summary.verdictChanges > 0 || summary.counts.failed > 0) process.exitCode = EXIT_CHECK_FAILED;
    });
}
