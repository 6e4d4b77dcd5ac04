import { SbevalError } from '../../core/errors.js';
import { ALPHABET } from '../layout/competition.js';

/**
 * `--chars` accepts the 26 upper-case letters the competitions use (llms4pcg `run_evaluation` rejects
 * anything else with "Character X is not in the alphabet."): single letters and ranges, comma
 * separated, e.g. `A-Z`, `A,B,C`, `A-C,X`. The result is in alphabetical order without duplicates, so
 * the work order (and nothing else) does not depend on how the list was written.
 */
export function parseCharacters(spec: string): string[] {
  const chosen = new Set<string>();
  for (const rawPart of spec.split(',')) {
    const part = rawPart.trim();
    if (part === '') continue;
    const range = /^([A-Za-z])\s*-\s*([A-Za-z])$/.exec(part);
    if (range) {
      const from = ALPHABET.indexOf(range[1]!.toUpperCase());
      const to = ALPHABET.indexOf(range[2]!.toUpperCase());
      if (from > to) throw new SbevalError('config', `character range "${part}" runs backwards`, 'write ranges as A-Z');
      for (let i = from; i <= to; i += 1) chosen.add(ALPHABET[i]!);
      continue;
    }
    const letter = part.toUpperCase();
    if (!ALPHABET.includes(letter)) {
      throw new SbevalError('config', `Character ${part} is not in the alphabet.`, 'use letters A-Z, e.g. --chars A-Z or --chars A,I,L');
    }
    chosen.add(letter);
  }
  if (chosen.size === 0) throw new SbevalError('config', `no characters in "${spec}"`, 'e.g. --chars A-Z');
  return ALPHABET.filter((c) => chosen.has(c));
}
