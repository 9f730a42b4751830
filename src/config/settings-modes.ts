// The settings file's directory 0700 and the file 0600 (it holds API keys): created so, and loose modes
// left by hand or by an older build fixed with a warning.
import fs from 'node:fs';
import { makeDirs } from './paths.js';

// Unix permission bits mean nothing on Windows, where the profile directory's ACL protects the file.
const CHECK_MODES = process.platform !== 'win32';
const octal = (mode: number): string => (mode & 0o777).toString(8).padStart(4, '0');

export function secureDir(dir: string, onWarning: (m: string) => void): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    makeDirs(dir, 0o700);
    return;
  }
  if (!stat.isDirectory()) throw new Error('not a directory');
  if (CHECK_MODES && (stat.mode & 0o077) !== 0) {
    fs.chmodSync(dir, 0o700);
    onWarning(`fixed permissions on ${dir} (were ${octal(stat.mode)})`);
  }
}

export function secureFile(file: string, onWarning: (m: string) => void): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // conf creates it 0600 on first write
    throw err;
  }
  if (CHECK_MODES && (stat.mode & 0o077) !== 0) {
    fs.chmodSync(file, 0o600);
    onWarning(`fixed permissions on ${file} (were ${octal(stat.mode)})`);
  }
}
