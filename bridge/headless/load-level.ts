import { describeError, SbevalError } from '../../core/errors.js';
import type { Level } from '../../levels/level.js';
import { parseLevelXml } from '../../levels/xml-read.js';

/** A level the engine cannot load: the pool does not retry it elsewhere (`levelError`). */
export class LevelLoadError extends SbevalError {
  readonly levelError = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super('input', message, undefined, options);
    this.name = 'LevelLoadError';
  }
}

/** The level of an XML text, or a `LevelLoadError` saying why not (no Node API: the playground's bundle loads levels with it). */
export function loadLevel(xml: string): Level {
  try {
    return parseLevelXml(xml);
  } catch (error) {
    throw new LevelLoadError(`level XML cannot be loaded: ${describeError(error)}`, { cause: error });
  }
}
