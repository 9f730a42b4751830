import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/api/errors.js';
import Conf from 'conf';
import { memorySettings, openSettings } from '../../src/config/settings.js';
import { mode, tempDir } from '../store/helpers.js';

const posix = process.platform !== 'win32';

describe('openSettings', () => {
  it('persists settings across opens and reads defaults when empty', async () => {
    const env = { DOMAIN_INTEL_CONFIG_DIR: path.join(tempDir(), 'cfg') };
    const a = await openSettings({ env });
    expect(a.getAll()).toEqual({ keys: {}, activeKey: null, plan: null, rpm: null, baseUrl: null, proxy: null, store: null });
    await a.set('plan', 'business');
    await a.set('rpm', 120);
    await a.set('baseUrl', 'http://127.0.0.1:8080/api/v1');
    await a.set('activeKey', 'work');
    await a.set('keys', { work: 'x' });
    const b = await openSettings({ env });
    expect(b.path).toBe(path.join(env.DOMAIN_INTEL_CONFIG_DIR, 'config.json'));
    expect(b.get('plan')).toBe('business');
    expect(b.get('rpm')).toBe(120);
    expect(b.get('baseUrl')).toBe('http://127.0.0.1:8080/api/v1');
    expect(b.get('activeKey')).toBe('work');
    expect(b.get('keys')).toEqual({ work: 'x' });
    await b.set('plan', null);
    expect((await openSettings({ env })).get('plan')).toBeNull();
    expect(JSON.parse(fs.readFileSync(b.path, 'utf8'))).not.toHaveProperty('plan');
  });

  it.runIf(posix)('creates the directory 0700 and the file 0600', async () => {
    const dir = path.join(tempDir(), 'nested', 'cfg');
    const s = await openSettings({ env: { DOMAIN_INTEL_CONFIG_DIR: dir } });
    await s.set('plan', 'pro');
    expect(mode(dir)).toBe(0o700);
    expect(mode(s.path)).toBe(0o600);
    await s.set('rpm', 10); // rewrites keep the mode
    expect(mode(s.path)).toBe(0o600);
  });

  it.runIf(posix)('fixes looser permissions and says so', async () => {
    const dir = path.join(tempDir(), 'cfg');
    fs.mkdirSync(dir, { mode: 0o755 });
    fs.chmodSync(dir, 0o755);
    const file = path.join(dir, 'config.json');
    fs.writeFileSync(file, '{"plan":"pro"}');
    fs.chmodSync(file, 0o644);
    const warnings: string[] = [];
    const s = await openSettings({ env: { DOMAIN_INTEL_CONFIG_DIR: dir }, onWarning: (m) => warnings.push(m) });
    expect(mode(dir)).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    expect(warnings).toEqual([`fixed permissions on ${dir} (were 0755)`, `fixed permissions on ${file} (were 0644)`]);
    expect(s.get('plan')).toBe('pro');
  });

  it.runIf(posix)('writes the file as conf did: tab-indented JSON, replaced whole, through a symlink to its target', async () => {
    const dir = tempDir();
    const real = path.join(dir, 'elsewhere.json');
    fs.writeFileSync(real, '{\n\t"plan": "pro"\n}', { mode: 0o600 });
    fs.symlinkSync(real, path.join(dir, 'config.json'));
    const s = await openSettings({ env: { DOMAIN_INTEL_CONFIG_DIR: dir } });
    await s.set('rpm', 60);
    expect(fs.lstatSync(path.join(dir, 'config.json')).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(real, 'utf8')).toBe('{\n\t"plan": "pro",\n\t"rpm": 60\n}');
    expect(mode(real)).toBe(0o600);
    expect(fs.readdirSync(dir).sort()).toEqual(['config.json', 'elsewhere.json']); // no temporary file left
  });

  it('ignores hand-edited invalid values with one warning each', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ plan: 'gold', rpm: -3, keys: { a: 'k', b: 5 } }), { mode: 0o600 });
    const warnings: string[] = [];
    const s = await openSettings({ env: { DOMAIN_INTEL_CONFIG_DIR: dir }, onWarning: (m) => warnings.push(m) });
    expect(s.get('plan')).toBeNull();
    expect(s.get('plan')).toBeNull();
    expect(s.get('rpm')).toBeNull();
    expect(s.get('keys')).toEqual({ a: 'k' });
    expect(warnings.filter((w) => w.includes('"plan"'))).toHaveLength(1);
    expect(warnings.some((w) => w.includes('"rpm"'))).toBe(true);
  });

  it('warns once, naming the file, when it holds JSON that is no object (an array, a number, null); never writes into it', async () => {
    for (const [text, what] of [
      ['["sk_live_x"]', 'a JSON array'],
      ['42', 'a JSON number'],
      ['"plan"', 'a JSON string'],
      ['null', 'null'],
    ] as const) {
      const dir = tempDir();
      const file = path.join(dir, 'config.json');
      fs.writeFileSync(file, text, { mode: 0o600 });
      const warnings: string[] = [];
      const s = await openSettings({ env: { DOMAIN_INTEL_CONFIG_DIR: dir }, onWarning: (m) => warnings.push(m) });
      expect(s.getAll()).toEqual({ keys: {}, activeKey: null, plan: null, rpm: null, baseUrl: null, proxy: null, store: null });
      expect(s.get('plan')).toBeNull();
      expect(warnings).toEqual([`ignoring ${file}: it holds ${what}, not an object of settings`]);
      // conf would set a property JSON drops: `keys add` would say "stored" and lose the key.
      await expect(s.set('plan', 'pro')).rejects.toThrow(`cannot read settings file ${file}: it holds ${what}, not an object of settings`);
      expect(fs.readFileSync(file, 'utf8')).toBe(text);
    }
  });

  it('refuses a file that is not JSON, naming it, without wiping it', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'config.json');
    fs.writeFileSync(file, '{ "keys": ', { mode: 0o600 });
    await expect(openSettings({ env: { DOMAIN_INTEL_CONFIG_DIR: dir } })).rejects.toThrow(UsageError);
    await expect(openSettings({ env: { DOMAIN_INTEL_CONFIG_DIR: dir } })).rejects.toThrow(file);
    expect(fs.readFileSync(file, 'utf8')).toBe('{ "keys": ');
  });

  it('rejects invalid values on write', async () => {
    const s = memorySettings();
    await expect(s.set('rpm', 0)).rejects.toThrow(UsageError);
    await expect(s.set('plan', 'gold' as never)).rejects.toThrow(UsageError);
  });

  it('reads a file written by conf, and conf reads what it writes', async () => {
    const dir = tempDir();
    const conf = new Conf<Record<string, unknown>>({ cwd: dir, configName: 'config', projectName: 'domain-intel', accessPropertiesByDotNotation: false });
    conf.set('plan', 'business');
    conf.set('keys', { work: 'k' });
    const s = await openSettings({ env: { DOMAIN_INTEL_CONFIG_DIR: dir } });
    expect(s.get('plan')).toBe('business');
    expect(s.get('keys')).toEqual({ work: 'k' });
    await s.set('rpm', 90);
    expect(conf.store).toEqual({ plan: 'business', keys: { work: 'k' }, rpm: 90 });
  });

  it('reports a damaged file with the error conf gives for it', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'config.json'), '{ "keys": ', { mode: 0o600 });
    let confError: Error | null = null;
    try {
      new Conf({ cwd: dir, configName: 'config', projectName: 'domain-intel', clearInvalidConfig: false });
    } catch (err) {
      confError = err as Error;
    }
    expect(confError).toBeInstanceOf(SyntaxError);
    await expect(openSettings({ env: { DOMAIN_INTEL_CONFIG_DIR: dir } })).rejects.toThrow(confError?.message as string);
  });

  it('refuses to write over a file damaged after it was opened, naming it, without wiping it', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'config.json');
    fs.writeFileSync(file, '{"plan":"pro"}', { mode: 0o600 });
    const s = await openSettings({ env: { DOMAIN_INTEL_CONFIG_DIR: dir } });
    fs.writeFileSync(file, '{ "keys": ');
    const err = await s.set('rpm', 10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toContain(`cannot read settings file ${file}`);
    await expect(s.set('rpm', 20)).rejects.toThrow(file); // and every later write says so too
    expect(fs.readFileSync(file, 'utf8')).toBe('{ "keys": ');
  });

  it('passes on an error conf meets while writing, and keeps writing afterwards', async () => {
    const dir = tempDir();
    const s = await openSettings({ env: { DOMAIN_INTEL_CONFIG_DIR: dir } });
    await s.set('plan', 'pro');
    fs.rmSync(s.path);
    fs.mkdirSync(s.path); // a directory where the file should be: conf cannot replace it
    const err = await s.set('rpm', 10).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/EISDIR|EPERM|directory/);
    // A user can meet this (a full disk, a read-only directory): a named file and the config exit code, not a bug.
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toContain(`cannot write the settings file ${s.path}`);
    fs.rmdirSync(s.path);
    await s.set('rpm', 20);
    expect(JSON.parse(fs.readFileSync(s.path, 'utf8'))).toEqual({ rpm: 20 }); // conf reads the file afresh on each write
  });

  it('ignores a last quota left in the file by an older version, and keeps it on writes', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'config.json');
    const lastQuota = { limit: 2000, remaining: 5, reset: null, resetRaw: null, seenAt: 7 };
    fs.writeFileSync(file, JSON.stringify({ plan: 'pro', lastQuota }), { mode: 0o600 });
    const warnings: string[] = [];
    const s = await openSettings({ env: { DOMAIN_INTEL_CONFIG_DIR: dir }, onWarning: (m) => warnings.push(m) });
    expect(s.getAll()).not.toHaveProperty('lastQuota');
    await s.set('rpm', 10);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ plan: 'pro', lastQuota, rpm: 10 });
    expect(warnings).toEqual([]);
  });

  it('ignores a learned rate left in the file by an older version, without a warning (it is kept per account now)', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'config.json');
    fs.writeFileSync(file, JSON.stringify({ plan: 'pro', learnedRpm: 45 }), { mode: 0o600 });
    const warnings: string[] = [];
    const s = await openSettings({ env: { DOMAIN_INTEL_CONFIG_DIR: dir }, onWarning: (m) => warnings.push(m) });
    expect(s.getAll()).toEqual({ keys: {}, activeKey: null, plan: 'pro', rpm: null, baseUrl: null, proxy: null, store: null });
    expect(warnings).toEqual([]);
  });
});
