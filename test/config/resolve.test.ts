import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/api/errors.js';
import { OPTIONS } from '../../src/cli/options/table.js';
import { normaliseBaseUrl } from '../../src/api/base-url.js';
import { type ConfigFlags, resolveConfig, SETTING_NAMES, settingNamed, settingValue } from '../../src/config/resolve.js';
import { addKey } from '../../src/config/keys.js';
import { memorySettings, type StoredSettings } from '../../src/config/settings.js';
import { DEFAULT_MAX_AGE_MS } from '../../src/config/values.js';
import { fakeKey } from '../store/helpers.js';

describe('normaliseBaseUrl', () => {
  it('accepts https and loopback http, dropping a trailing slash', () => {
    expect(normaliseBaseUrl('https://api.example.com/api/v1')).toBe('https://api.example.com/api/v1');
    expect(normaliseBaseUrl('https://api.example.com/prefix/api/v1/')).toBe('https://api.example.com/prefix/api/v1');
    expect(normaliseBaseUrl('http://127.0.0.1:8080/api/v1/')).toBe('http://127.0.0.1:8080/api/v1');
    expect(normaliseBaseUrl('http://localhost:8787/api/v1')).toBe('http://localhost:8787/api/v1');
    expect(normaliseBaseUrl('http://[::1]:8787/api/v1')).toBe('http://[::1]:8787/api/v1');
    expect(normaliseBaseUrl('http://127.9.8.7/api/v1')).toBe('http://127.9.8.7/api/v1');
  });
  it('refuses plain http to anything but loopback, saying the key would travel in clear', () => {
    expect(() => normaliseBaseUrl('http://example.com/api/v1')).toThrow(/in clear/);
    expect(() => normaliseBaseUrl('http://10.0.0.1/api/v1')).toThrow(UsageError);
  });
  it('refuses other shapes', () => {
    for (const bad of [
      'not a url',
      'ftp://example.com/api/v1',
      'https://example.com/',
      'https://example.com/api/v2',
      'https://user:pw@example.com/api/v1',
      'https://example.com/api/v1?key=x',
      'https://example.com/api/v1#x',
    ]) {
      expect(() => normaliseBaseUrl(bad), bad).toThrow(UsageError);
    }
  });
});

describe('resolveConfig', () => {
  it('falls back to the defaults', () => {
    const c = resolveConfig({ env: { DOMAIN_INTEL_CACHE_DIR: '/c' }, settings: memorySettings() });
    expect(c).toMatchObject({
      baseUrl: OPTIONS.baseUrl.default,
      plan: null,
      rpm: null,
      windowMs: 60_000,
      key: null,
      cacheDir: '/c',
      maxAgeMs: DEFAULT_MAX_AGE_MS,
      useCache: true,
    });
    expect(c.sources).toEqual({ baseUrl: 'default', plan: 'default', rate: 'default', cacheDir: 'env', maxAgeMs: 'default', store: 'default' });
    // No store URL: the local cache, as before.
    expect(c.store).toEqual({ url: null, shown: null });
    expect(resolveConfig({ env: {}, settings: null }).baseUrl).toBe(OPTIONS.baseUrl.default);
  });

  it('applies defaults < stored < env < flags for every setting', async () => {
    const settings = memorySettings({ baseUrl: 'https://stored.example/api/v1', plan: 'pro', rpm: 30 });
    await addKey(settings, 'main', fakeKey('1111'));
    const env = {
      DOMAIN_INTEL_BASE_URL: 'https://env.example/api/v1/',
      DOMAIN_INTEL_PLAN: 'business',
      DOMAIN_INTEL_RPM: '200',
      DOMAIN_INTEL_API_KEY: fakeKey('2222'),
    };
    const flags: ConfigFlags = { baseUrl: 'https://flag.example/api/v1', plan: 'business-plus', rpm: 500 };

    const stored = resolveConfig({ env: {}, settings });
    expect(stored).toMatchObject({ baseUrl: 'https://stored.example/api/v1', plan: 'pro', rpm: 30, key: { source: 'stored', name: 'main' } });
    expect(stored.sources).toMatchObject({ baseUrl: 'stored', plan: 'stored', rate: 'stored' });

    const fromEnv = resolveConfig({ env, settings });
    expect(fromEnv).toMatchObject({ baseUrl: 'https://env.example/api/v1', plan: 'business', rpm: 200, key: { source: 'env', key: fakeKey('2222') } });
    expect(fromEnv.sources).toMatchObject({ baseUrl: 'env', plan: 'env', rate: 'env' });

    const fromFlags = resolveConfig({ env, settings, flags });
    expect(fromFlags).toMatchObject({ baseUrl: 'https://flag.example/api/v1', plan: 'business-plus', rpm: 500, windowMs: 60_000 });
    expect(fromFlags.sources).toMatchObject({ baseUrl: 'flag', plan: 'flag', rate: 'flag' });
  });

  it('lets the highest layer that speaks about speed decide it', () => {
    const settings = memorySettings({ rpm: 30 });
    // A plan given in the environment outranks a stored rpm: the rate follows the plan.
    const c = resolveConfig({ env: { DOMAIN_INTEL_PLAN: 'business' }, settings });
    expect(c).toMatchObject({ rpm: 300, windowMs: 60_000 });
    expect(c.sources.rate).toBe('plan');
    // Within one layer an explicit rate beats the plan's.
    expect(resolveConfig({ env: { DOMAIN_INTEL_PLAN: 'business', DOMAIN_INTEL_RPM: '20/1s' }, settings })).toMatchObject({ rpm: 20, windowMs: 1000 });
    // --rate beats --rpm.
    expect(resolveConfig({ env: {}, settings, flags: { rpm: 10, rate: { requests: 5, windowMs: 1000 } } })).toMatchObject({ rpm: 5, windowMs: 1000 });
    expect(resolveConfig({ env: { DOMAIN_INTEL_PLAN: 'business' }, settings, flags: { rate: { requests: 7, windowMs: 1000 } } })).toMatchObject({
      rpm: 7,
      windowMs: 1000,
    });
    // A learned limit is the account's (the state file's), not a setting: one an older build left in the
    // settings file is ignored, and nothing known means no limit (the run then uses the account's).
    const warnings: string[] = [];
    const old = memorySettings({ learnedRpm: 45 } as Partial<StoredSettings>, (w) => warnings.push(w));
    const learned = resolveConfig({ env: {}, settings: old });
    expect(learned).toMatchObject({ rpm: null, windowMs: 60_000 });
    expect(learned.sources.rate).toBe('default');
    expect(warnings).toEqual([]);
  });

  it('reports bad values naming their origin', () => {
    expect(() => resolveConfig({ env: { DOMAIN_INTEL_PLAN: 'gold' } })).toThrow(/DOMAIN_INTEL_PLAN/);
    expect(() => resolveConfig({ env: { DOMAIN_INTEL_RPM: 'fast' } })).toThrow(/DOMAIN_INTEL_RPM/);
    expect(() => resolveConfig({ env: { DOMAIN_INTEL_BASE_URL: 'http://example.com/api/v1' } })).toThrow(/DOMAIN_INTEL_BASE_URL.*in clear/);
    expect(() => resolveConfig({ env: {}, flags: { baseUrl: 'https://x.example/v1' } })).toThrow(/--base-url/);
    expect(() => resolveConfig({ env: {}, settings: memorySettings({ baseUrl: 'http://x.example/api/v1' }) })).toThrow(/stored base-url/);
  });

  it('takes the cache flags, and resolves an odd-looking environment key without a word (refused when a request must go: cli/services.ts)', async () => {
    const settings = memorySettings();
    await addKey(settings, 'a', fakeKey('1111'));
    const warnings: string[] = [];
    const c = resolveConfig({
      env: { DOMAIN_INTEL_API_KEY: 'typo-key', DOMAIN_INTEL_CACHE_DIR: '/tmp/c' },
      settings,
      flags: { maxAge: 1000, cache: false },
      onWarning: (m) => warnings.push(m),
    });
    expect(c).toMatchObject({ cacheDir: '/tmp/c', maxAgeMs: 1000, useCache: false, key: { key: 'typo-key', source: 'env' } });
    expect(c.sources).toMatchObject({ cacheDir: 'env', maxAgeMs: 'flag' });
    expect(warnings).toEqual([]);
    // The stored active key serves when the environment has none.
    expect(resolveConfig({ env: {}, settings }).key).toEqual({ key: fakeKey('1111'), source: 'stored', name: 'a' });
  });

  // Each option of the table that is also a setting, through every layer: the value and the source reported.
  const LAYERS = {
    baseUrl: {
      stored: 'https://stored.example/api/v1',
      env: ['https://env.example/api/v1/', 'https://env.example/api/v1'],
      flag: 'https://flag.example/api/v1',
    },
    plan: { stored: 'pro', env: ['Business', 'business'], flag: 'business-plus' },
    rpm: { stored: 30, env: ['45/1s', 45], flag: 60 },
    store: {
      stored: 'postgres://s@db.example/intel',
      env: [' postgresql://e@db.example/intel ', 'postgresql://e@db.example/intel'],
      flag: 'postgres://f@db.example/intel',
    },
  } as const;

  // The proxy's environment is not a variable of ours: its layers are tested below.
  for (const [name, row] of Object.entries(OPTIONS).filter(([n, r]) => 'setting' in r && n !== 'proxy')) {
    it(`${row.flags.split(' ')[0]}: default < stored < ${'env' in row ? row.env : ''} < flag`, () => {
      const layers = LAYERS[name as keyof typeof LAYERS];
      const env = 'env' in row ? row.env : '';
      const read = (c: ReturnType<typeof resolveConfig>) =>
        name === 'rpm'
          ? { value: c.rpm, source: c.sources.rate }
          : name === 'store'
            ? { value: c.store.url, source: c.sources.store }
            : name === 'plan'
              ? { value: c.plan, source: c.sources.plan }
              : { value: c.baseUrl, source: c.sources.baseUrl };
      const stored = memorySettings({ [name]: layers.stored });
      expect(read(resolveConfig({ env: {}, settings: memorySettings() }))).toEqual({
        value: 'default' in row ? row.default : null,
        source: 'default',
      });
      expect(read(resolveConfig({ env: {}, settings: stored }))).toEqual({ value: layers.stored, source: 'stored' });
      expect(read(resolveConfig({ env: { [env]: String(layers.env[0]) }, settings: stored }))).toEqual({ value: layers.env[1], source: 'env' });
      expect(read(resolveConfig({ env: { [env]: String(layers.env[0]) }, settings: stored, flags: { [name]: layers.flag } }))).toEqual({
        value: layers.flag,
        source: 'flag',
      });
      // A blank variable says nothing; a bad one is an error naming it.
      expect(read(resolveConfig({ env: { [env]: '  ' }, settings: stored }))).toEqual({ value: layers.stored, source: 'stored' });
      expect(() => resolveConfig({ env: { [env]: 'gold://' }, settings: stored })).toThrow(new RegExp(`^${env}: `));
    });
  }

  it('--store sqlite names the local cache over a store set below it; a URL is shown with its password masked', () => {
    const settings = memorySettings({ store: 'postgres://intel:hunter22@db.example/intel' });
    const stored = resolveConfig({ env: {}, settings });
    expect(stored.store).toEqual({ url: 'postgres://intel:hunter22@db.example/intel', shown: 'postgres://intel:***@db.example/intel' });
    const local = resolveConfig({ env: { DOMAIN_INTEL_STORE: 'postgres://e@db.example/intel' }, settings, flags: { store: 'SQLite' } });
    expect(local.store).toEqual({ url: null, shown: null });
    expect(local.sources.store).toBe('flag');
    // A bad value is refused without being echoed: it may hold a password.
    expect(() => resolveConfig({ env: {}, flags: { store: 'intel:hunter22@db.example/intel' } })).toThrow(/^--store: not a store URL: it reads postgres:\/\//);
    expect(() => resolveConfig({ env: {}, flags: { store: 'intel:hunter22@db.example/intel' } })).not.toThrow(/hunter22/);
  });

  it('--rpm 0 turns pacing off over every lower layer', () => {
    const settings = memorySettings({ rpm: 30 });
    const c = resolveConfig({ env: { DOMAIN_INTEL_PLAN: 'business', DOMAIN_INTEL_RPM: '20/1s' }, settings, flags: { rpm: 0 } });
    expect(c).toMatchObject({ rpm: null, windowMs: 60_000, plan: 'business' });
    expect(c.sources).toMatchObject({ rate: 'flag', plan: 'env' });
  });

  it('falls back to the default --max-age when none is given', () => {
    const c = resolveConfig({ env: {}, settings: null });
    expect(c.maxAgeMs).toBe(DEFAULT_MAX_AGE_MS);
    expect(c.maxAgeMs).toBe(OPTIONS.maxAge.default);
    expect(() => resolveConfig({ env: {}, flags: { maxAge: -1 } })).toThrow(/--max-age/);
  });
});

describe('config set and unset', () => {
  it('take the settings by the name of their long flag', () => {
    expect(SETTING_NAMES).toEqual(['base-url', 'plan', 'rpm', 'proxy', 'store']);
    expect(settingNamed('base-url')).toBe('baseUrl');
    expect(settingNamed('plan')).toBe('plan');
    expect(settingNamed('rpm')).toBe('rpm');
    expect(() => settingNamed('baseUrl')).toThrow(/unknown setting "baseUrl"; settable: base-url, plan, rpm, proxy, store/);
    expect(() => settingNamed(undefined)).toThrow(UsageError);
  });

  it('store a checked value', () => {
    expect(settingValue('baseUrl', 'https://x.example/api/v1/')).toBe('https://x.example/api/v1');
    expect(settingValue('plan', 'Pro')).toBe('pro');
    expect(settingValue('rpm', '120')).toBe(120);
    expect(() => settingValue('rpm', '20/1s')).toThrow(/rpm must be a whole number of at least 1, got "20\/1s"/);
    expect(() => settingValue('rpm', '0')).toThrow(UsageError);
    expect(() => settingValue('plan', 'gold')).toThrow(/unknown plan/);
    expect(() => settingValue('baseUrl', 'http://example.com/api/v1')).toThrow(/in clear/);
    expect(settingValue('store', ' postgres://intel@db.example/intel ')).toBe('postgres://intel@db.example/intel');
    // sqlite: the local cache, which is the setting removed.
    expect(settingValue('store', 'sqlite')).toBeNull();
  });
});
