// How a run's output ends, by how complete the run is: -o FILE is replaced only by a complete run (or under
// --replace-incomplete); otherwise FILE stays byte for byte as it was and the rows obtained go to
// FILE.partial. stdout, devices and pipes were written as the rows came: nothing to keep or take back.
import type { OutputTarget } from '../../output/target.js';
import { isComplete, type RunStats, stopCause } from '../../run/stats.js';
import { againWords } from '../exit-codes.js';
import { groupedNumber } from '../output/format.js';

export interface EndChoice {
  /** -o as the user gave it. */
  target: string | undefined;
  replaceIncomplete: boolean;
  maxLookups: number | null;
  refresh: boolean;
}

/** What became of the output: the summary's line about it (null when there is nothing to say), and the partial file if one was kept. */
export interface OutputEnd {
  line: string | null;
  partial: string | null;
  /** Where the rows went and how many, for the summary ("wrote 1,000 rows to out.csv"); null when nothing was kept there. */
  wrote: string | null;
}

/** The summary's line naming where a run's rows went: every row read is written, each once. */
export function wroteLine(stats: Readonly<RunStats>, where: string): string {
  const rows = stats.found + stats.missing + stats.errors + stats.invalid;
  return `wrote ${groupedNumber(rows)} row${rows === 1 ? '' : 's'} to ${where}`;
}

/** Makes the output final or keeps it aside, and says which. */
export async function endOutput(out: OutputTarget, stats: Readonly<RunStats>, choice: EndChoice): Promise<OutputEnd> {
  const file = choice.target ?? 'the output';
  // A run refused at its first answer bought one host for a file it was told not to run partly: a file
  // already at -o is worth more than that, and no partial is worth keeping (so is one a closed reader will
  // never see). Even under --replace-incomplete: these runs did not run, rather than ran partly.
  if (stats.stoppedBy === 'closed' || stats.stoppedBy === 'short') {
    await out.abort();
    // A refused run is told of its file too: the one host it bought is in the cache, not in a partial.
    const refused = stats.stoppedBy === 'short' && out.kind === 'file';
    return {
      line: refused ? `${file} ${out.existed ? 'unchanged' : 'not written'} (the run was refused: ${stopCause('short', null)})` : null,
      partial: null,
      wrote: null,
    };
  }
  const complete = isComplete(stats);
  if (out.kind !== 'file' || choice.replaceIncomplete || complete) {
    await out.commit();
    // A device or pipe is named as the user gave it; stdout as such.
    const where = out.kind === 'stdout' || choice.target === undefined || choice.target === '-' ? 'stdout' : choice.target;
    return { line: out.kind === 'file' ? replaced(file, stats, complete, choice.maxLookups) : null, partial: null, wrote: wroteLine(stats, where) };
  }
  const partial = await out.keepPartial();
  const reason = incompleteReason(stats, choice.maxLookups);
  // Every row read is written, each once: invalid ones, answered ones (found, missing) and those in error.
  const rows = stats.found + stats.missing + stats.errors + stats.invalid;
  // After a quota stop, the same command finishes only once there are lookups again.
  // After Ctrl-C the exit's warning says how to resume (or that --no-cache kept nothing): not said twice.
  const again =
    stats.stoppedBy === 'aborted'
      ? ''
      : stats.stoppedBy === 'quota'
        ? '; run the same command again once the quota renews (or with a pack) to finish'
        : `; ${againWords(stats, choice, 'finish')}`;
  return {
    line: `${file} ${out.existed ? 'unchanged' : 'not written'} (incomplete: ${reason}); ${groupedNumber(rows)} rows in ${partial}${again}`,
    partial,
    wrote: null,
  };
}

/**
 * The line for a file replaced by a run that met trouble (a stop, rows in error, older answers): said, so a
 * warning or error after it is not read as "the file was kept". A clean run's replacement goes without saying.
 */
function replaced(file: string, stats: Readonly<RunStats>, complete: boolean, maxLookups: number | null): string | null {
  if (!complete) return `${file} replaced by an incomplete run (--replace-incomplete: ${incompleteReason(stats, maxLookups)})`;
  // Why they are older (an outage, the quota): under --quiet this line and the exit's warning are all a log gets.
  if (stats.stale > 0)
    return `${file} replaced: every row answered, ${groupedNumber(stats.stale)} from older answers${stats.staleCause ? ` (${stats.staleCause})` : ''}`;
  if (stats.stoppedBy !== null) return `${file} replaced: every row answered before the run stopped (${stopCause(stats.stoppedBy, maxLookups)})`;
  return null;
}

/** Why a run is incomplete, in words: its stop, or else its rows in error. */
function incompleteReason(stats: Readonly<RunStats>, maxLookups: number | null): string {
  return stats.stoppedBy !== null ? stopCause(stats.stoppedBy, maxLookups) : `${groupedNumber(stats.errors)} rows in error`;
}
