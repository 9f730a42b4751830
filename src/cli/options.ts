// Option value parsers, run by commander at parse time so a bad value is a usage error before anything is
// sent (ARCHITECTURE habit 3). Kept free of heavy imports: this file loads for every command, even --help.
import { InvalidArgumentError } from 'commander';
import { parseDuration as parseDurationRule, parseRate as parseRateRule } from '../store/config.js';

export const FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
export const BATCH_FORMATS = ['csv', 'json', 'ndjson'] as const;
export const PLAN_CHOICES = ['pro', 'business', 'business-plus'] as const;
export const INPUT_FORMATS = ['auto', 'csv', 'tsv', 'lines'] as const;

/** A whole number >= min. */
export function intOption(min: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`expected a whole number, got ${JSON.stringify(value)}`);
    const n = Number.parseInt(value, 10);
    if (n < min) throw new InvalidArgumentError(`expected a number of at least ${min}`);
    return n;
  };
}

/** A duration such as 500ms, 45s, 90m, 12h, 30d, 2w, in ms (the rule lives in store/config.ts). */
export function parseDuration(value: string): number {
  return asOptionError(() => parseDurationRule(value));
}

/** A rate such as 300/1m, 20/1s or a plain 600 (per minute). */
export function parseRate(value: string): { requests: number; windowMs: number } {
  return asOptionError(() => parseRateRule(value));
}

// commander reports an InvalidArgumentError as "option '--x <v>' argument 'y' is invalid. <message>".
function asOptionError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** A comma-separated list. */
export function listOption(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
