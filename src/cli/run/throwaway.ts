// --no-cache's throwaway caches: a directory of TMPDIR per run, removed when the run ends. A run that cannot end
// in order (kill -9, a second Ctrl-C, a machine gone) leaves its directory behind, tens of MB for a large file:
// a nightly job killed by its timeout left one every night (a trial). Each --no-cache run clears those left by
// others first: a directory whose newest file was last written a day ago or more, which no live run leaves (a
// run's throwaway cache is written with every batch it buys). A process id would not tell: machines in PID
// namespaces of their own share one /tmp.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** The name a throwaway cache's directory starts with (mkdtemp adds six characters). */
export const THROWAWAY_PREFIX = 'domain-intel-run-';
/** How long a throwaway cache may go unwritten before it counts as left behind. */
const LEFT_AFTER_MS = 24 * 60 * 60_000;

/** Removes the throwaway caches in `tmp` left behind by runs that did not end in order; never fails. */
export async function clearLeftThrowaways(tmp: string, now: number): Promise<void> {
  const names = await readdir(tmp).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(THROWAWAY_PREFIX)) continue;
    const dir = join(tmp, name);
    const newest = await newestWrite(dir);
    if (newest !== null && now - newest >= LEFT_AFTER_MS) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** When anything in `dir` (or the directory itself) was last written; null when it cannot be read (not ours to judge). */
async function newestWrite(dir: string): Promise<number | null> {
  try {
    const self = await stat(dir);
    if (!self.isDirectory()) return null;
    let newest = self.mtimeMs;
    for (const name of await readdir(dir)) {
      const st = await stat(join(dir, name)).catch(() => null);
      if (st !== null) newest = Math.max(newest, st.mtimeMs);
    }
    return newest;
  } catch {
    return null;
  }
}
