// Where settings and the answer cache live. Every function takes `env` (and `platform`) as parameters so
// tests can point them at temp directories without mutating process.env.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Env = Record<string, string | undefined>;

/** The project's directory name under the platform's config and cache roots. */
const PROJECT_NAME = 'domain-intel';
/** File name of the settings file inside the config directory. */
export const CONFIG_FILE_NAME = 'config.json';

// An empty variable counts as unset (XDG basedir spec), and XDG_* must be absolute or be ignored.
function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function xdg(value: string | undefined): string | undefined {
  const v = nonEmpty(value);
  return v !== undefined && path.posix.isAbsolute(v) ? v : undefined;
}

/** The user's home directory as this environment sees it. */
function homeDir(env: Env = process.env, platform: NodeJS.Platform = process.platform): string {
  return nonEmpty(platform === 'win32' ? env.USERPROFILE : env.HOME) ?? os.homedir();
}

/**
 * The settings directory: $DOMAIN_INTEL_CONFIG_DIR, else the platform's config location as conf/env-paths
 * lay it out for 'domain-intel' (without conf's '-nodejs' suffix, to sit beside the cache directory).
 */
export function configDir(env: Env = process.env, platform: NodeJS.Platform = process.platform): string {
  const override = nonEmpty(env.DOMAIN_INTEL_CONFIG_DIR);
  if (override !== undefined) return path.resolve(override);
  const home = homeDir(env, platform);
  if (platform === 'win32') {
    const appData = nonEmpty(env.APPDATA) ?? path.win32.join(home, 'AppData', 'Roaming');
    return path.win32.join(appData, PROJECT_NAME, 'Config');
  }
  if (platform === 'darwin') return path.posix.join(home, 'Library', 'Preferences', PROJECT_NAME);
  return path.posix.join(xdg(env.XDG_CONFIG_HOME) ?? path.posix.join(home, '.config'), PROJECT_NAME);
}

/** Full path of the settings file. */
export function configFile(env: Env = process.env, platform: NodeJS.Platform = process.platform): string {
  const dir = configDir(env, platform);
  return (platform === 'win32' ? path.win32 : path.posix).join(dir, CONFIG_FILE_NAME);
}

/** The cache directory: $DOMAIN_INTEL_CACHE_DIR, else $XDG_CACHE_HOME/domain-intel, else the platform default. */
export function cacheDir(env: Env = process.env, platform: NodeJS.Platform = process.platform): string {
  const override = nonEmpty(env.DOMAIN_INTEL_CACHE_DIR);
  if (override !== undefined) return path.resolve(override);
  const home = homeDir(env, platform);
  if (platform === 'win32') {
    const local = nonEmpty(env.LOCALAPPDATA) ?? path.win32.join(home, 'AppData', 'Local');
    return path.win32.join(local, PROJECT_NAME, 'Cache');
  }
  // An explicit XDG_CACHE_HOME is honoured on every Unix, macOS included: the user asked for it.
  const xdgCache = xdg(env.XDG_CACHE_HOME);
  if (xdgCache !== undefined) return path.posix.join(xdgCache, PROJECT_NAME);
  if (platform === 'darwin') return path.posix.join(home, 'Library', 'Caches', PROJECT_NAME);
  return path.posix.join(home, '.cache', PROJECT_NAME);
}

/**
 * `mkdir -p DIR` with `mode` for each directory it creates, one level at a time. Node's own recursive
 * mkdirSync never returns under a filesystem such as /proc (it retries the ENOENT it gets there for ever, at
 * full CPU): a cache or config directory set there must fail with the error, not hang the command.
 */
export function makeDirs(dir: string, mode: number): void {
  const missing: string[] = [];
  for (let d = path.resolve(dir); !fs.existsSync(d); d = path.dirname(d)) {
    missing.push(d);
    if (path.dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    try {
      fs.mkdirSync(d, { mode });
    } catch (err) {
      // Another process (a second run) may create it between the check and here: that is what we wanted.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/**
 * True unless the process `pid` is known to be gone. For pids written into files on this machine (an output
 * temp file's name, the cache's claims, the limiter's slots): a pid that cannot be checked counts as alive.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists under another user.
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
