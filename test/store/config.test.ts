import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/api/errors.js';
import { DEFAULT_BASE_URL, DEFAULT_MAX_AGE_MS, normaliseBaseUrl, parseDuration, parseRate, resolveConfig } from '../../src/store/config.js';
import { addKey } from '../../src/store/keys.js';
import { memorySettings } from '../../src/store/settings.js';
import { fakeKey } from './helpers.js';

describe('parseDuration', () => {
  it('reads every unit', () => {
    expect(parseDuration('30d')).toBe(30 * 86_400_000);
    expect(parseDuration('12h')).toBe(12 * 3_600_000);
    expect(parseDuration('90m')).toBe(90 * 60_000);
    expect(parseDuration('45s')).toBe(45_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('2w')).toBe(14 * 86_400_000);
    expect(parseDuration(' 1.5h ')).toBe(5_400_000);
    expect(parseDuration('0s')).toBe(0);
  });
  it('throws UsageError on anything else', () => {
    for (const bad of ['', '30', 'd', '-5m', '3y', '5 minutes', '1e3s', 'abc']) expect(() => parseDuration(bad), bad).toThrow(UsageError);
  });
});

describe('parseRate', () => {
  it('reads requests per window, a plain number being per minute', () => {
    expect(parseRate('300/1m')).toEqual({ requests: 300, windowMs: 60_000 });
    expect(parseRate('20/1s')).toEqual({ requests: 20, windowMs: 1000 });
    expect(parseRate('600')).toEqual({ requests: 600, windowMs: 60_000 });
    expect(parseRate('300/m')).toEqual({ requests: 300, windowMs: 60_000 });
    expect(parseRate('10 / 500ms')).toEqual({ requests: 10, windowMs: 500 });
  });
  it('throws UsageError on bad rates', () => {
    for (const bad of ['', '0', '0/1m', '-1', 'ten', '300/', '300/1y', '5/1ms', '1.5/1m']) expect(() => parseRate(bad), bad).toThrow(UsageError);
  });
});

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
      baseUrl: DEFAULT_BASE_URL,
      plan: null,
      rpm: null,
      windowMs: 60_000,
      key: null,
      cacheDir: '/c',
      maxAgeMs: DEFAULT_MAX_AGE_MS,
      useCache: true,
    });
    expect(c.sources).toEqual({ baseUrl: 'default', plan: 'default', rate: 'default', cacheDir: 'env', maxAgeMs: 'default' });
    expect(resolveConfig({ env: {}, settings: null }).baseUrl).toBe(DEFAULT_BASE_URL);
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
    const flags = { baseUrl: 'https://flag.example/api/v1', plan: 'business-plus', rpm: 500 };

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
    const settings = memorySettings({ rpm: 30, learnedRpm: 45 });
    // A plan given in the environment outranks a stored rpm: the rate follows the plan.
    const c = resolveConfig({ env: { DOMAIN_INTEL_PLAN: 'business' }, settings });
    expect(c).toMatchObject({ rpm: 300, windowMs: 60_000 });
    expect(c.sources.rate).toBe('plan');
    // Within one layer an explicit rate beats the plan's.
    expect(resolveConfig({ env: { DOMAIN_INTEL_PLAN: 'business', DOMAIN_INTEL_RPM: '20/1s' }, settings })).toMatchObject({ rpm: 20, windowMs: 1000 });
    // --rate beats --rpm.
    expect(resolveConfig({ env: {}, settings, flags: { rpm: 10, rate: { requests: 5, windowMs: 1000 } } })).toMatchObject({ rpm: 5, windowMs: 1000 });
    expect(resolveConfig({ env: {}, settings, flags: { rate: '7/1s' } })).toMatchObject({ rpm: 7, windowMs: 1000 });
    // A learned limit is used only when nothing else is known.
    const learned = resolveConfig({ env: {}, settings: memorySettings({ learnedRpm: 45 }) });
    expect(learned).toMatchObject({ rpm: 45 });
    expect(learned.sources.rate).toBe('learned');
  });

  it('reports bad values naming their origin', () => {
    expect(() => resolveConfig({ env: { DOMAIN_INTEL_PLAN: 'gold' } })).toThrow(/DOMAIN_INTEL_PLAN/);
    expect(() => resolveConfig({ env: { DOMAIN_INTEL_RPM: 'fast' } })).toThrow(/DOMAIN_INTEL_RPM/);
    expect(() => resolveConfig({ env: { DOMAIN_INTEL_BASE_URL: 'http://example.com/api/v1' } })).toThrow(/DOMAIN_INTEL_BASE_URL.*in clear/);
    expect(() => resolveConfig({ env: {}, flags: { baseUrl: 'https://x.example/v1' } })).toThrow(/--base-url/);
    expect(() => resolveConfig({ env: {}, settings: memorySettings({ baseUrl: 'http://x.example/api/v1' }) })).toThrow(/stored base-url/);
  });

  it('takes cache and key flags, and warns about an odd-looking environment key', async () => {
    const settings = memorySettings();
    await addKey(settings, 'a', fakeKey('1111'));
    await addKey(settings, 'b', fakeKey('2222'));
    const warnings: string[] = [];
    const c = resolveConfig({
      env: { DOMAIN_INTEL_API_KEY: 'typo-key' },
      settings,
      flags: { cacheDir: '/tmp/c', maxAgeMs: 1000, cache: false },
      onWarning: (m) => warnings.push(m),
    });
    expect(c).toMatchObject({ cacheDir: '/tmp/c', maxAgeMs: 1000, useCache: false, key: { key: 'typo-key', source: 'env' } });
    expect(c.sources).toMatchObject({ cacheDir: 'flag', maxAgeMs: 'flag' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('DOMAIN_INTEL_API_KEY');
    expect(warnings[0]).not.toContain('typo-key');
    expect(resolveConfig({ env: { DOMAIN_INTEL_API_KEY: fakeKey() }, settings, flags: { keyName: 'b' } }).key).toEqual({
      key: fakeKey('2222'),
      source: 'stored',
      name: 'b',
    });
  });
});
