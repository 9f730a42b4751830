// better-sqlite3, opened the quick way (issue 27: a cached `lookup` is mostly start-up). Required rather than
// imported: an import() of a CommonJS package first starts the ES loader's CommonJS export scanner, which
// nothing else in a run needs. And its native addon is named outright (better-sqlite3's `nativeBinding`)
// rather than found by the `bindings` package, which captures a stack trace and tries require() on a list of
// paths, each a thrown error, before it reaches build/Release. Named only when that is where bindings would
// find it: it looks in build/ and build/Debug/ first.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type Database from 'better-sqlite3';

let driver: { Sqlite: typeof Database; nativeBinding: string | undefined } | undefined;

/** Opens the SQLite file `file` with `options` (better-sqlite3's). */
export function openSqliteFile(file: string, options: Database.Options = {}): Database.Database {
  driver ??= load();
  return new driver.Sqlite(file, { ...options, nativeBinding: driver.nativeBinding });
}

function load(): NonNullable<typeof driver> {
  const require = createRequire(import.meta.url);
  const Sqlite = require('better-sqlite3') as typeof Database;
  return { Sqlite, nativeBinding: addonPath(require) };
}

/** The addon bindings would load, when it is the Release build; else undefined (bindings finds it). */
function addonPath(require: NodeJS.Require): string | undefined {
  let root: string;
  try {
    root = dirname(require.resolve('better-sqlite3/package.json'));
  } catch {
    return undefined;
  }
  const addon = (...dirs: string[]) => join(root, ...dirs, 'better_sqlite3.node');
  if (existsSync(addon('build')) || existsSync(addon('build', 'Debug'))) return undefined;
  return existsSync(addon('build', 'Release')) ? addon('build', 'Release') : undefined;
}
