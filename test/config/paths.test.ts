import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheDir, configDir, configFile, makeDirs } from '../../src/config/paths.js';

describe('configDir', () => {
  it('honours DOMAIN_INTEL_CONFIG_DIR first', () => {
    expect(configDir({ DOMAIN_INTEL_CONFIG_DIR: '/tmp/x', XDG_CONFIG_HOME: '/xdg', HOME: '/home/u' }, 'linux')).toBe('/tmp/x');
  });
  it('follows XDG on Linux, with the ~/.config fallback', () => {
    expect(configDir({ XDG_CONFIG_HOME: '/xdg', HOME: '/home/u' }, 'linux')).toBe('/xdg/domain-intel');
    expect(configDir({ HOME: '/home/u' }, 'linux')).toBe('/home/u/.config/domain-intel');
    expect(configDir({ XDG_CONFIG_HOME: '', HOME: '/home/u' }, 'linux')).toBe('/home/u/.config/domain-intel');
    expect(configDir({ XDG_CONFIG_HOME: 'relative', HOME: '/home/u' }, 'linux')).toBe('/home/u/.config/domain-intel');
  });
  it('uses the platform locations on macOS and Windows', () => {
    expect(configDir({ HOME: '/Users/u' }, 'darwin')).toBe('/Users/u/Library/Preferences/domain-intel');
    expect(configDir({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32')).toBe('C:\\Users\\u\\AppData\\Roaming\\domain-intel\\Config');
  });
  it('names the settings file', () => {
    expect(configFile({ DOMAIN_INTEL_CONFIG_DIR: '/tmp/x' }, 'linux')).toBe('/tmp/x/config.json');
  });
});

describe('cacheDir', () => {
  it('prefers DOMAIN_INTEL_CACHE_DIR, then XDG_CACHE_HOME, then ~/.cache', () => {
    expect(cacheDir({ DOMAIN_INTEL_CACHE_DIR: '/c', XDG_CACHE_HOME: '/xc', HOME: '/home/u' }, 'linux')).toBe('/c');
    expect(cacheDir({ XDG_CACHE_HOME: '/xc', HOME: '/home/u' }, 'linux')).toBe('/xc/domain-intel');
    expect(cacheDir({ HOME: '/home/u' }, 'linux')).toBe('/home/u/.cache/domain-intel');
  });
  it('uses ~/Library/Caches on macOS and %LOCALAPPDATA% on Windows', () => {
    expect(cacheDir({ HOME: '/Users/u' }, 'darwin')).toBe('/Users/u/Library/Caches/domain-intel');
    expect(cacheDir({ LOCALAPPDATA: 'C:\\L' }, 'win32')).toBe('C:\\L\\domain-intel\\Cache');
  });
});

describe('makeDirs', () => {
  it('creates every missing level with the mode asked, and accepts a directory that exists', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'di-mkdirs-'));
    const deep = path.join(root, 'a', 'b', 'c');
    makeDirs(deep, 0o700);
    expect(fs.statSync(deep).isDirectory()).toBe(true);
    if (process.platform !== 'win32') expect(fs.statSync(path.join(root, 'a')).mode & 0o777).toBe(0o700);
    expect(() => makeDirs(deep, 0o700)).not.toThrow();
    fs.rmSync(root, { recursive: true, force: true });
  });

  // Node's recursive mkdirSync spins for ever there; a cache dir set under /proc must fail, not hang.
  it.runIf(fs.existsSync('/proc/self'))('fails at once under /proc instead of hanging', () => {
    expect(() => makeDirs('/proc/domain-intel-nope/cache', 0o700)).toThrow(/ENOENT|EACCES|EPERM/);
  });
});
