import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the calibration data of this installation is: `calibration/` at the package root, shipped by
 * `npm pack` (package.json `files`). It holds the evaluator's reference levels with its own results
 * (`reference-levels/`, for `npm run fidelity` and `sbeval unity calibrate`) and the timing-ruler
 * levels (`ruler/`). The product reads it here, never from `test/`. From the TypeScript sources this
 * module is two folders below the root; compiled, under `dist/`, three.
 */
function packageDataDir(): string {
  const candidates = ['../../calibration/', '../../../calibration/'].map((c) => fileURLToPath(new URL(c, import.meta.url)));
  return candidates.find((dir) => existsSync(join(dir, 'reference-levels'))) ?? (candidates[0] as string);
}

const CALIBRATION_DIR = packageDataDir();
/** The evaluator's 90 reference levels (chatgpt4pcg/modified-science-birds @84df32e): levels, stability JSON, images. */
export const REFERENCE_LEVELS = join(CALIBRATION_DIR, 'reference-levels');
/** The timing-ruler levels (`ruler/levels/<group>/*.xml`; calibration/README.md). */
export const RULER_DIR = join(CALIBRATION_DIR, 'ruler');
