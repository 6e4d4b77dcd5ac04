/**
 * `npm run bench`: every benchmark suite in one run, so ratios (headless vs the Unity estimate, batch
 * sizes, one core vs all cores) come from the same machine state. Prints a table per suite and writes
 * all numbers to bench-out/bench.json. Select suites with `npm run bench -- <name> ...`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { SUITES } from './bench/suites.js';

const wanted = process.argv.slice(2);
const selected = wanted.length ? SUITES.filter((s) => wanted.includes(s.name)) : SUITES.filter((s) => !s.onlyWhenNamed);
if (wanted.length && selected.length !== wanted.length) {
  const known = SUITES.map((s) => s.name).join(', ');
  console.error(`unknown suite in ${wanted.join(', ')}; known: ${known}`);
  process.exit(2);
}

const machine = { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version };
console.log(`machine: ${machine.cpus} cores (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}`);
const results: Record<string, unknown> = { machine, date: new Date().toISOString() };
for (const suite of selected) {
  console.log(`\n## ${suite.name}: ${suite.description}`);
  const rows = await suite.run();
  console.table(rows);
  results[suite.name] = rows;
}
mkdirSync('bench-out', { recursive: true });
writeFileSync('bench-out/bench.json', `${JSON.stringify(results, null, 2)}\n`);
console.log('\nwritten: bench-out/bench.json');
