// The options of a run's progress display, a part of the one option table (options.ts spreads them in).
import { InvalidArgumentError } from 'commander';
import { durationText } from '../../config/values.js';
import { duration } from './parsers.js';
import type { OptionRow } from './row.js';

/** A plain line more often than this would flood a log (and a timer at 0 ms would spin). */
const FASTEST_MS = 10;

function interval(value: string): number {
  const ms = duration(value);
  if (ms < FASTEST_MS) throw new InvalidArgumentError(`expected at least ${FASTEST_MS}ms, got ${JSON.stringify(value)}`);
  return ms;
}

/** How often --progress writes its plain line off a terminal, by default. */
export const PROGRESS_INTERVAL_MS = 10_000;

/** The progress options of the enrichment commands, in the order help lists them. */
export const PROGRESS_OPTIONS = {
  progress: {
    flags: '--progress',
    help: 'show progress even when stderr is not a terminal: a plain line every --progress-interval, for logs',
    commands: ['lookup', 'batch', 'traffic', 'employees'],
  },
  progressInterval: {
    flags: '--progress-interval <duration>',
    help: `how often --progress writes its line when stderr is not a terminal (default ${durationText(PROGRESS_INTERVAL_MS)}; implies --progress)`,
    commands: ['lookup', 'batch', 'traffic', 'employees'],
    parse: interval,
  },
} as const satisfies Record<string, OptionRow>;
