import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HeadlessEngine } from '../../bridge/headless/engine.js';
import { runSimulateStage } from '../../orchestrator/stages/simulate.js';
import { REFERENCE_LEVELS } from '../helpers/cli.js';
import { SlyEngine } from './helpers/lies.js';

/**
 * `sbeval simulate` keeps nothing an engine gave once the pool discredits it. The
 * sly engine (no sbeval rules: a stand-in for any engine behind a socket) streams its first level as
 * if nothing moved — a stream no check can refuse — and then claims every level cannot run. Its claim
 * is refuted by the other engine's run, it is discredited, and the level it had "simulated" loses its
 * cache entry and image and runs again: the stability files equal a run on the honest engine alone,
 * and a second `simulate` does not count that level as done.
 */

/** Every file under `dir` (relative path → content), hidden ones left out. */
function files(dir: string, under = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(join(dir, under), { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'logs') continue;
    const rel = join(under, entry.name);
    if (entry.isDirectory()) for (const [k, v] of files(dir, rel)) out.set(k, v);
    else out.set(rel, readFileSync(join(dir, rel)).toString('base64'));
  }
  return out;
}

describe('sbeval simulate with an engine that lies', () => {
  it('drops and reruns what a discredited engine gave, and ends with the honest files', async () => {
    // Six levels that collapse (the sly engine's "nothing moved" changes their score).
    const root = mkdtempSync(join(tmpdir(), 'sbeval-simulate-claims-'));
    const reference = REFERENCE_LEVELS;
    mkdirSync(join(root, 'team', 'levels', 'L'), { recursive: true });
    for (const [version, name] of [
      ['v1', 'V1_L_1'],
      ['v1', 'V1_L_2'],
      ['v2', 'V2_L_2'],
      ['v2', 'V2_L_6'],
      ['v3', 'V3_L_5'],
      ['v3', 'V3_L_7'],
    ]) {
      cpSync(join(reference, version!, 'levels', 'L', `${name}.xml`), join(root, 'team', 'levels', 'L', `${name}.xml`));
    }
    const honestRoot = mkdtempSync(join(tmpdir(), 'sbeval-simulate-honest-'));
    cpSync(join(root, 'team'), join(honestRoot, 'team'), { recursive: true });

    const sly = new SlyEngine();
    const summary = await runSimulateStage({ root, engines: [sly, new HeadlessEngine('honest')] });
    expect(sly.loads).toBeGreaterThan(1); // it lied on a later level, and was found out
    expect(summary.unfinished).toBe(0);
    await runSimulateStage({ root: honestRoot, engines: [new HeadlessEngine('alone')] });
    expect(existsSync(join(root, 'team', 'stability', 'L.json'))).toBe(true);
    expect(files(root)).toEqual(files(honestRoot));

    // Nothing of the liar is cached: a second run finds every level done, with the same files.
    const again = await runSimulateStage({ root, engines: [new HeadlessEngine('again')] });
    expect(again.succeeded + again.failed).toBe(0);
    expect(files(root)).toEqual(files(honestRoot));
  }, 300_000);
});
