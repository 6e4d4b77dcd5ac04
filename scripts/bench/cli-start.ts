import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchSuite } from './suite.js';

/**
 * How long `sbeval --help` (and one command's help) takes to start, against `node -e 0` on the same
 * machine in the same run: the two alternate, pair by pair, so a change of the machine's speed moves
 * both. The CLI loads only the command it runs (cli/main.ts); the built CLI (`npm run build`) is timed,
 * as `npx sbeval` runs it.
 */
const ROUNDS = 15;
const BIN = join(import.meta.dirname, '..', '..', 'bin', 'sbeval.js');

function wallMs(args: readonly string[]): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

export const cliStartSuite: BenchSuite = {
  name: 'cli-start',
  description: `start-up of the built CLI against node -e 0, ${ROUNDS} alternating rounds (median wall ms; ratio = median of the pairwise ratios)`,
  async run() {
    if (!existsSync(join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: npm run build');
    const rows: Array<Record<string, string | number>> = [];
    for (const command of [['--help'], ['run', '--help'], ['score', '--help']]) {
      const node: number[] = [];
      const cli: number[] = [];
      wallMs(['-e', '0']);
      wallMs([BIN, ...command]);
      for (let round = 0; round < ROUNDS; round += 1) {
        node.push(wallMs(['-e', '0']));
        cli.push(wallMs([BIN, ...command]));
      }
      const ratios = cli.map((ms, i) => ms / node[i]!);
      rows.push({
        command: `sbeval ${command.join(' ')}`,
        'sbeval ms': Math.round(median(cli)),
        'node -e 0 ms': Math.round(median(node)),
        ratio: Number(median(ratios).toFixed(2)),
      });
    }
    return rows;
  },
};
