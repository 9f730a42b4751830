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
  /** Unmounts and removes the mount point. */
  remove(): void;
}

/** Mounts a tmpfs of `size` (e.g. '64k') on a new temp dir; null where that cannot be done. */
export function smallDisk(size: string): SmallDisk | null {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return null;
  const dir = mkdtempSync(join(tmpdir(), 'di-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    rmSync(dir, { recursive: true, force: true });
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
