import { InvalidArgumentError, Option } from 'commander';
import { invariant } from '../core/invariant.js';

/**
 * Every option of the CLI is built by `option()` and parsed by the parsers below, so `--help` says
 * each default once and in one form, `(default: …)`:
 *
 * - `default`: the value when the flag is absent; commander prints it (or `defaultText` in its place);
 * - `defaultText` alone: a default resolved later (the root's config, then orchestrator/config's
 *   defaults, or one per host …) that the flag must leave undefined, printed the same way.
 *
 * A description therefore never mentions its default itself (test/cli/cli-help.test.ts walks
 * every command's help), and a list option has no default: its parser starts the list.
 */
interface OptionSpec<T> {
  /** Checks and converts the text; a thrown InvalidArgumentError is commander's one-line usage error. */
  parse?: (value: string, previous: T) => T;
  default?: T;
  defaultText?: string;
  choices?: readonly string[];
  /** Old spellings, accepted with a note but not shown. */
  hidden?: boolean;
  required?: boolean;
}

export function option<T = string>(flags: string, description: string, spec: OptionSpec<T> = {}): Option {
  const text = spec.default === undefined && spec.defaultText !== undefined ? `${description} (default: ${spec.defaultText})` : description;
  const built = new Option(flags, text);
  // commander's choices() installs its own parser; both at once would skip the choice check.
  invariant(!(spec.choices && spec.parse), `${flags}: an option takes choices or a parser, not both`);
  if (spec.choices) built.choices(spec.choices);
  if (spec.parse) built.argParser(spec.parse);
  if (spec.default !== undefined) built.default(spec.default, spec.defaultText);
  if (spec.hidden) built.hideHelp();
  if (spec.required) built.makeOptionMandatory();
  return built;
}

/** A whole number from `min` (to `max`). */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(max === Number.MAX_SAFE_INTEGER ? `expected a whole number ≥ ${min}` : `expected a whole number from ${min} to ${max}`);
    }
    return n;
  };
}

/** A finite number ≥ 0 (seconds, a temperature, a tolerance). */
export function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number ≥ 0');
  return n;
}

/** A finite number > 0. */
export function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a number > 0');
  return n;
}

/** A share from 0 to 1. */
export function share(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('expected a share from 0 to 1');
  return n;
}

/** `--team a,b --team c` → ['a', 'b', 'c'] (comma-separated and repeatable). */
export function list(value: string, previous: readonly string[] | undefined = []): string[] {
  return [
    ...(previous ?? []),
    ...value
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v.length > 0),
  ];
}

/** `--levels a --levels b` → ['a', 'b'] (repeatable; a value may hold commas, as a path may). */
export function repeatable(value: string, previous: readonly string[] | undefined = []): string[] {
  return [...(previous ?? []), value];
}

/** A port on this machine, 0 for any free one. */
export const port = wholeNumber(0, 65535);

/**
 * A help paragraph wrapped at `width` columns (the hand-wrapped help texts use about 105); an indented
 * line (a list item) keeps its indent, and its continuation lines are indented two more.
 */
export function wrapHelp(text: string, width = 105): string {
  return text
    .split('\n')
    .map((line) => {
      const indent = /^ */.exec(line)![0];
      const hanging = indent === '' ? '' : `${indent}  `;
      const out: string[] = [];
      let current = '';
      for (const word of line.slice(indent.length).split(' ')) {
        const lead = out.length === 0 ? indent : hanging;
        if (current !== '' && lead.length + current.length + 1 + word.length > width) {
          out.push(lead + current);
          current = word;
        } else current = current === '' ? word : `${current} ${word}`;
      }
      out.push((out.length === 0 ? indent : hanging) + current);
      return out.join('\n');
    })
    .join('\n');
}
