// How a run's output ends, by how complete the run is: -o FILE is replaced only by a complete run (or under
// --replace-incomplete); otherwise FILE stays byte for byte as it was and the rows obtained go to
// FILE.partial. stdout, devices and pipes were written as the rows came: nothing to keep or take back.
import type { OutputTarget } from '../pipeline/output-target.js';
import { isComplete, type RunStats, stopCause } from '../pipeline/stats.js';
import { groupedNumber } from './output/format.js';

export interface EndChoice {
  /** -o as the user gave it. */
  target: string | undefined;
  replaceIncomplete: boolean;
  maxLookups: number | null;
}

/** Makes the output final or keeps it aside; returns the summary's line about it, or null when there is nothing to say. */
export async function endOutput(out: OutputTarget, stats: Readonly<RunStats>, choice: EndChoice): Promise<string | null> {
  // A run refused at its first answer bought one host for a file it was told not to run partly: a file
  // already at -o is worth more than that, and no partial is worth keeping (so is one a closed reader will
  // never see). Even under --replace-incomplete: these runs did not run, rather than ran partly.
  if (stats.stoppedBy === 'closed' || stats.stoppedBy === 'short') {
    await out.abort();
    // A refused run is told of its file too: the one host it bought is in the cache, not in a partial.
    if (stats.stoppedBy === 'short' && out.kind === 'file')
      return `${choice.target} ${out.existed ? 'unchanged' : 'not written'} (the run was refused: ${stopCause('short', null)})`;
    return null;
  }
  if (out.kind !== 'file' || choice.replaceIncomplete || isComplete(stats)) {
    await out.commit();
    return null;
  }
  const partial = await out.keepPartial();
  const file = choice.target ?? 'the output';
  const reason = stats.stoppedBy !== null ? stopCause(stats.stoppedBy, choice.maxLookups) : `${stats.errors} rows in error`;
  // Every row read is written, each once: invalid ones, answered ones (found, missing) and those in error.
  const rows = stats.found + stats.missing + stats.errors + stats.invalid;
  return `${file} ${out.existed ? 'unchanged' : 'not written'} (incomplete: ${reason}); ${groupedNumber(rows)} rows in ${partial}; run the same command again to finish`;
}
