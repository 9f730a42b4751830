// A small filesystem of our own, for disk-full and read-only cases that only a real one shows: a tmpfs
// mounted on a temp dir. Only root can mount (and CI may not be root): callers skip when it is null.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  dir: string;
  /** Remounts it read-only (what is there stays readable). */
  readOnly(): void;
  /** Unmounts and removes the mount point (one given to smallDisk too). */
  remove(): void;
}

/**
 * Mounts a tmpfs of `size` (e.g. '64k') on `at` (an existing empty directory, such as a cache directory a
 * test's environment names already) or on a new temp dir; null where that cannot be done.
 */
export function smallDisk(size: string, at?: string): SmallDisk | null {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return null;
  const dir = at ?? mkdtempSync(join(tmpdir(), 'di-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    if (at === undefined) rmSync(dir, { recursive: true, force: true });
    return null;
  }
  return {
    dir,
    readOnly() {
      execFileSync('mount', ['-o', 'remount,ro', dir], { stdio: 'ignore' });
    },
    remove() {
      try {
        execFileSync('umount', [dir], { stdio: 'ignore' });
      } catch {
        // already gone
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether this machine lets a test mount one (decided once, at collection, for skipIf). */
export const canMountSmallDisk: boolean = (() => {
  const probe = smallDisk('4k');
  probe?.remove();
  return probe !== null;
})();

/** Runs `fn` on a small disk and removes it after, however `fn` ends (for tests that skipIf(!canMountSmallDisk)). */
export async function withSmallDisk<T>(size: string, fn: (disk: SmallDisk) => Promise<T>): Promise<T> {
  const disk = smallDisk(size);
  if (!disk) throw new Error('mount failed after the probe succeeded');
  try {
    return await fn(disk);
  } finally {
    disk.remove();
  }
}
