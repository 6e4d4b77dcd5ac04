import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DETAILED_REFUSALS_PER_KIND, EngineEndpoint } from '../../bridge/endpoint.js';
import { portFromHint, sbeval } from '../helpers/bridge-run.js';
import { exampleCopy, readRunLog, runLogs } from '../orchestrator/helpers/competition.js';

/**
 * The endpoint's log is bounded whatever strangers do. A log throttle keyed on the stranger's own close
 * reason lets 3,000 tokenless connections with distinct reasons write 3,000 run-log lines (≈ 0.5 GiB/h from one client) and grows the `refusals` map without bound.
 */
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A stranger that opens a WebSocket and closes it at once with its own reason (no hello). */
function closeWith(url: string, reason: string): Promise<void> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    ws.on('error', () => resolve());
    ws.once('open', () => ws.close(4000, reason));
    ws.once('close', () => resolve());
  });
}

/** A distinct word per number, without digits (so no normalisation of numbers can merge two reasons). */
const letters = (n: number): string => n.toString(26).replace(/[0-9]/g, (d) => String.fromCharCode(0x71 + Number(d)));

/** `count` strangers, `parallel` at a time (below the endpoint's cap on unauthenticated connections), each with a distinct reason. */
async function strangers(url: string, count: number, parallel = 32): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next;
      next += 1;
      await closeWith(url, `stranger ${letters(i)} says goodbye`);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

describe('refused connections are counted per kind, never logged one line per stranger', () => {
  it('1,000 closes with distinct reasons: a handful of lines and one summary, a map of one key', async () => {
    const lines: string[] = [];
    const ep = await EngineEndpoint.listen({ log: (line) => lines.push(line) });
    cleanups.push(() => ep.close());
    await strangers(ep.url, 1000);
    // Every close has arrived at the endpoint once it counted all of them.
    const deadline = Date.now() + 60_000;
    while ((ep.refusals.get('closed-before-hello') ?? 0) < 1000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(ep.refusals.get('closed-before-hello')).toBe(1000);
    expect([...ep.refusals.keys()]).toEqual(['closed-before-hello']);
    // The first few verbatim (with the stranger's reason), the rest in the summary written at close.
    expect(lines).toHaveLength(DETAILED_REFUSALS_PER_KIND);
    expect(lines[0]).toMatch(/^connection from 127\.0\.0\.1:\d+ refused \(closed-before-hello\): code 4000: stranger [a-z]+ says goodbye$/);
    await ep.close();
    expect(lines.length).toBeLessThanOrEqual(DETAILED_REFUSALS_PER_KIND + 2);
    const summaries = lines.slice(DETAILED_REFUSALS_PER_KIND);
    const counted = summaries.map((l) => Number(/^(\d+) more connection\(s\) refused: closed-before-hello \d+/.exec(l)?.[1]));
    expect(counted.reduce((a, b) => a + b, 0)).toBe(1000 - DETAILED_REFUSALS_PER_KIND);
    expect(summaries.at(-1)).toMatch(/\(1000 refused since the endpoint started\)$/);
  }, 120_000);

  it('sums up every interval while strangers keep coming (a summary per interval that had refusals)', async () => {
    const lines: string[] = [];
    const ep = await EngineEndpoint.listen({ log: (line) => lines.push(line), refusalSummaryMs: 50 });
    cleanups.push(() => ep.close());
    await strangers(ep.url, DETAILED_REFUSALS_PER_KIND + 20, 4);
    const deadline = Date.now() + 30_000;
    while (!lines.some((l) => / more connection\(s\) refused/.test(l)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    // Written by the timer, before the endpoint closed.
    expect(lines.some((l) => / more connection\(s\) refused: closed-before-hello \d+/.test(l))).toBe(true);
  });
});

describe('sbeval run --engine bridge against 3,000 strangers', () => {
  it('adds fewer than 50 lines to the run log, and the run still finishes with an engine that has the token', async () => {
    const root = exampleCopy({ teams: ['BlockSmith'], letters: ['I'] });
    const run = sbeval(['run', root, '--engine', 'bridge', '--workers', '1'], { SBEVAL_TOKEN: '' });
    cleanups.push(() => run.kill('SIGKILL'));
    const port = await portFromHint(run);
    const [log] = runLogs(root);
    // Read while the run is writing: a line still being written is not counted yet (readRunLog).
    const endpointLines = () =>
      readRunLog(log!)
        .filter((l) => l.type === 'endpoint')
        .map((l) => JSON.stringify(l));
    const before = endpointLines().length;
    await strangers(`ws://127.0.0.1:${port}`, 3000);
    const engine = sbeval(['engine', '--connect', `ws://127.0.0.1:${port}`, '--token-file', join(root, '.sbeval', 'bridge-token')]);
    cleanups.push(() => engine.kill('SIGKILL'));
    const result = await run;
    expect(result.exitCode, result.all).toBe(0);
    const added = endpointLines().length - before;
    expect(added, endpointLines().join('\n')).toBeLessThan(50);
    // The strangers are not forgotten: the summary counts them all.
    expect(endpointLines().join('\n')).toMatch(/\(300\d refused since the endpoint started\)/);
  }, 240_000);
});
