import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../orchestrator/config/index.js';

/** The uncertainty settings resolve like every other: flags, then the root's config, then the defaults. */
function competition(config?: string): string {
  const root = mkdtempSync(join(tmpdir(), 'sbeval-uncertainty-settings-'));
  mkdirSync(join(root, 'team', 'raw', 'A'), { recursive: true });
  if (config !== undefined) writeFileSync(join(root, 'sbeval.config.yaml'), config);
  return root;
}

describe('uncertainty settings', () => {
  it('default on, 2000 resamples, seed 1', () => {
    const settings = resolveSettings(competition());
    expect(settings.uncertainty).toEqual({ enabled: true, resamples: 2000, seed: 1 });
    expect(settings.sources.uncertainty).toBe('default');
  });

  it('the config sets them (on/off or a boolean), flags override the config', () => {
    const root = competition('uncertainty: off\nresamples: 500\nuncertaintySeed: 7\n');
    expect(resolveSettings(root).uncertainty).toEqual({ enabled: false, resamples: 500, seed: 7 });
    expect(resolveSettings(root, { uncertainty: 'on', resamples: 300, uncertaintySeed: 8 }).uncertainty).toEqual({ enabled: true, resamples: 300, seed: 8 });
    expect(resolveSettings(competition('uncertainty: false\n')).uncertainty.enabled).toBe(false);
    expect(resolveSettings(competition('uncertainty: true\n')).uncertainty.enabled).toBe(true);
  });

  it('refuses values out of range, naming the setting', () => {
    expect(() => resolveSettings(competition(), { resamples: 0 })).toThrow(/--resamples must be a whole number from 1 to 100000/);
    expect(() => resolveSettings(competition(), { uncertainty: 'maybe' })).toThrow(/--uncertainty "maybe" is not one of on, off/);
    expect(() => resolveSettings(competition('resamples: 200000\n'))).toThrow(/resamples/);
  });
});
