// The parsers of option values (options.ts, cli/options/sandbox.ts): each turns a command-line string into the
// option's value or throws commander's InvalidArgumentError, so a bad value is a usage error before anything
// is sent. Kept free of heavy imports: these load for every command, even --help.
import { InvalidArgumentError } from 'commander';
import type { Delimiter } from '../../domain/input-forms.js';
import { parseDelimiter } from '../../domain/input-forms.js';
import { parseDuration, parseRate } from '../../config/values.js';

/** A whole number >= min. */
export function intOption(min: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`expected a whole number, got ${JSON.stringify(value)}`);
    const n = Number.parseInt(value, 10);
    if (n < min) throw new InvalidArgumentError(`expected a number of at least ${min}`);
    return n;
  };
}

// commander reports an InvalidArgumentError as "option '--x <v>' argument 'y' is invalid. <message>".
function asOptionError<T>(rule: (value: string) => T): (value: string) => T {
  return (value) => {
    try {
      return rule(value);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
  };
}

/** A duration such as 500ms, 45s, 90m, 12h, 30d, 2w, in ms. */
export const duration = asOptionError(parseDuration);
/** A rate such as 300/1m, 20/1s or a plain 600 (per minute). */
export const rate = asOptionError(parseRate);

/** A comma-separated list. */
export function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** A comma-separated list of whole numbers of at least 1. */
export function counts(value: string): number[] {
  const one = intOption(1);
  return list(value).map(one);
}

/** A number from 0 to 1. */
export function probability(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('expected a number from 0 to 1');
  return n;
}

/** --delimiter: the character or its name (input/dialect.ts); a bad one is a usage error, not a crash. */
export function delimiter(value: string): Delimiter {
  try {
    return parseDelimiter(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}
