import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/api/errors.js';
import { addKey, checkKeyShape, KEY_PATTERN, listKeys, maskKey, removeKey, resolveKey, useKey } from '../../src/config/keys.js';
import { memorySettings, openSettings } from '../../src/config/settings.js';
import { fakeKey, tempDir } from '../store/helpers.js';

async function catchError(fn: () => unknown): Promise<Error | null> {
  try {
    await fn();
    return null;
  } catch (err) {
    return err as Error;
  }
}

describe('checkKeyShape', () => {
  it('accepts a prefix and 48 lowercase hex characters', () => {
    expect(checkKeyShape(fakeKey())).toBeNull();
    expect(checkKeyShape(fakeKey('0000', 'sk_test_v2_'))).toBeNull();
    expect(KEY_PATTERN.test(fakeKey())).toBe(true);
  });
  it('explains what is wrong without repeating the key', () => {
    const bad = [
      '',
      `${fakeKey()} `,
      'a'.repeat(48),
      `di_live_${'a'.repeat(47)}`,
      `di_live_${'A'.repeat(48)}`,
      `di_live_${'g'.repeat(48)}`,
      `di-live_${'a'.repeat(48)}`,
      `_live_${'a'.repeat(48)}`,
    ];
    for (const key of bad) {
      const reason = checkKeyShape(key);
      expect(reason, key).toBeTypeOf('string');
      if (key.length > 8) expect(reason).not.toContain(key.slice(-12));
    }
    expect(checkKeyShape(`di_live_${'a'.repeat(47)}`)).toContain('47 characters');
  });
});

describe('maskKey', () => {
  it('shows the prefix and the last 4 characters', () => {
    expect(maskKey(fakeKey('9f3a'))).toBe('di_live_…9f3a');
  });
  it('shows nothing of short or odd strings', () => {
    expect(maskKey('di_live_abc')).toBe('di_live_…');
    expect(maskKey('secret')).toBe('…');
  });
});

describe('key management', () => {
  it('adds, lists, switches and removes keys', async () => {
    const s = memorySettings();
    expect(await addKey(s, undefined, fakeKey('aaaa'))).toEqual({ name: 'default', active: true, replaced: false });
    expect(await addKey(s, 'work', `  ${fakeKey('bbbb')}\n`)).toEqual({ name: 'work', active: false, replaced: false });
    expect(listKeys(s)).toEqual([
      { name: 'default', masked: 'di_live_…aaaa', active: true },
      { name: 'work', masked: 'di_live_…bbbb', active: false },
    ]);
    await useKey(s, 'work');
    expect(s.get('activeKey')).toBe('work');
    expect(await removeKey(s, 'work')).toEqual({ active: 'default' });
    expect(await removeKey(s, 'default')).toEqual({ active: null });
    expect(listKeys(s)).toEqual([]);
    expect(s.get('activeKey')).toBeNull();
  });

  it('refuses malformed keys, bad names and unknown names', async () => {
    const s = memorySettings();
    await expect(addKey(s, 'x', 'nope')).rejects.toThrow(UsageError);
    await expect(addKey(s, '__proto__', fakeKey())).rejects.toThrow(UsageError);
    await expect(addKey(s, 'has space', fakeKey())).rejects.toThrow(UsageError);
    await expect(useKey(s, 'ghost')).rejects.toThrow(/no stored key named "ghost"/);
    await expect(removeKey(s, 'constructor')).rejects.toThrow(UsageError);
    const err = await catchError(() => addKey(s, 'x', `di_live_${'z'.repeat(48)}`));
    expect(err).toBeInstanceOf(UsageError);
    expect(err?.message).not.toContain('zzzz');
  });

  it('replacing a key keeps which key is active', async () => {
    const s = memorySettings();
    await addKey(s, 'a', fakeKey('0001'));
    await addKey(s, 'b', fakeKey('0002'));
    expect(await addKey(s, 'b', fakeKey('0003'))).toEqual({ name: 'b', active: false, replaced: true });
    expect(resolveKey({ settings: s, env: {} })).toEqual({ key: fakeKey('0001'), source: 'stored', name: 'a' });
  });

  it('persists keys in the settings file', async () => {
    const env = { DOMAIN_INTEL_CONFIG_DIR: tempDir() };
    await addKey(await openSettings({ env }), 'work', fakeKey('cafe'));
    expect(listKeys(await openSettings({ env }))).toEqual([{ name: 'work', masked: 'di_live_…cafe', active: true }]);
  });
});

describe('resolveKey', () => {
  it('prefers DOMAIN_INTEL_API_KEY over the stored active key', async () => {
    const s = memorySettings();
    await addKey(s, 'work', fakeKey('1111'));
    expect(resolveKey({ settings: s, env: {} })).toEqual({ key: fakeKey('1111'), source: 'stored', name: 'work' });
    expect(resolveKey({ settings: s, env: { DOMAIN_INTEL_API_KEY: fakeKey('2222') } })).toEqual({
      key: fakeKey('2222'),
      source: 'env',
      name: null,
    });
    expect(resolveKey({ settings: s, env: { DOMAIN_INTEL_API_KEY: '  ' } })?.source).toBe('stored');
  });
  it('uses a named stored key when asked, even over the environment', async () => {
    const s = memorySettings();
    await addKey(s, 'a', fakeKey('1111'));
    await addKey(s, 'b', fakeKey('2222'));
    expect(resolveKey({ settings: s, env: { DOMAIN_INTEL_API_KEY: fakeKey('3333') }, name: 'b' })).toEqual({
      key: fakeKey('2222'),
      source: 'stored',
      name: 'b',
    });
    expect(() => resolveKey({ settings: s, env: {}, name: 'c' })).toThrow(UsageError);
  });
  it('returns null when there is no key at all', () => {
    expect(resolveKey({ settings: memorySettings(), env: {} })).toBeNull();
    expect(resolveKey({ settings: null, env: {} })).toBeNull();
    expect(resolveKey({ settings: memorySettings({ activeKey: 'gone' }), env: {} })).toBeNull();
  });
});
