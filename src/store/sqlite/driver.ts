// better-sqlite3, opened the quick way (issue 27: a cached `lookup` is mostly start-up). Its JavaScript is
// bundled into the CLI (scripts/build.mjs): required from node_modules it was 15 files, each resolved, read
// and compiled. Its native addon is named outright (better-sqlite3's `nativeBinding`) rather than found by the
// `bindings` package, which captures a stack trace and tries require() on a list of paths, each a thrown
// error, before it reaches build/Release. Both only when they fit: the installed package is the version the
// bundle holds (the addon and its JavaScript go together), and its addon is the Release build where bindings
// would find it (it looks in build/ and build/Debug/ first). Otherwise the installed package is required as
// it is, bindings and all.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Bundled from 'better-sqlite3';

/** The version of better-sqlite3 bundled into the CLI, injected at build time; none when run from source. */
declare const __SQLITE_VERSION__: string;
const BUNDLED_VERSION: string | null = typeof __SQLITE_VERSION__ === 'string' ? __SQLITE_VERSION__ : null;

let driver: { Sqlite: typeof Bundled; nativeBinding: string | undefined } | undefined;

/** Opens the SQLite file `file` with `options` (better-sqlite3's). */
export function openSqliteFile(file: string, options: Bundled.Options = {}): Bundled.Database {
  driver ??= load();
  return new driver.Sqlite(file, { ...options, nativeBinding: driver.nativeBinding });
}

function load(): NonNullable<typeof driver> {
  const require = createRequire(import.meta.url);
  const installed = installedAddon(require);
  // From source, the import above is the installed package itself.
  if (installed !== null && installed.version === (BUNDLED_VERSION ?? installed.version)) return { Sqlite: Bundled, nativeBinding: installed.addon };
  return { Sqlite: require('better-sqlite3') as typeof Bundled, nativeBinding: undefined };
}

/** The installed better-sqlite3's version and Release addon, when that addon is the one bindings would load; else null. */
function installedAddon(require: NodeJS.Require): { version: string; addon: string } | null {
  try {
    const manifest = require.resolve('better-sqlite3/package.json');
    const root = dirname(manifest);
    const addon = (...dirs: string[]) => join(root, ...dirs, 'better_sqlite3.node');
    if (existsSync(addon('build')) || existsSync(addon('build', 'Debug')) || !existsSync(addon('build', 'Release'))) return null;
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
    return { version, addon: addon('build', 'Release') };
  } catch {
    return null;
  }
}
