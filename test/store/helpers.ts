// Temp directories for store tests; each test gets its own and removes it afterwards.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

const made: string[] = [];

/** A fresh temp directory, removed after the current test. */
export function tempDir(prefix = 'domain-intel-store-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A 48-hex-character test key with the documented shape. */
export function fakeKey(last4 = '9f3a', prefix = 'di_live_'): string {
  return `${prefix}${'0123456789abcdef'.repeat(3).slice(0, 44)}${last4}`;
}

/** The permission bits of a path. */
export function mode(p: string): number {
  return fs.statSync(p).mode & 0o777;
}
