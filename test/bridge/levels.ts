import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_SIMULATION, type LevelJob, type SimulationSettings } from '../../bridge/engine.js';
import { programToXml } from '../../levels/pipeline.js';
import { GOLDEN } from '../helpers/cli.js';

/** A golden competition level (official XML). */
export function goldenLevel(name = 'V1_L_1'): string {
  return readFileSync(join(GOLDEN, 'sample-levels', `${name}.xml`), 'utf8');
}

/**
 * A 30-block level written with the official drop program (levels/pipeline): five thin towers of six
 * blocks (vertical RectSmall and SquareTiny alternating) — a busy frame stream, the worst case for
 * trace size.
 */
export function thirtyBlockLevel(): string {
  const calls: string[] = [];
  for (let layer = 0; layer < 6; layer += 1) {
    for (const column of [1, 5, 9, 13, 17]) calls.push(`drop_block('${layer % 2 === 0 ? 'b13' : 'b11'}', ${column})`);
  }
  return programToXml(calls.join('\n'));
}

export function job(levelId: string, xml: string, settings: Partial<SimulationSettings> = {}): LevelJob {
  return { levelId, xml, settings: { ...DEFAULT_SIMULATION, ...settings } };
}
