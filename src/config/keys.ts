// API key management over the settings file. A key is a secret: nothing here ever puts one in a message,
// and listings show only the masked form.
import { UsageError } from '../api/errors.js';
import type { Env } from './paths.js';
import type { Settings, SettingsReader } from './settings.js';

/**
 * Spec §5.2: "a fixed live-key prefix followed by 48 hexadecimal characters". The prefix itself is not
 * documented, so any prefix of letters and digits ending in an underscore is accepted; the service has the
 * last word. Messages describe the shape without naming a prefix the spec does not give.
 */
export const KEY_PATTERN = /^[A-Za-z][A-Za-z0-9]*_(?:[A-Za-z0-9]+_)*[0-9a-f]{48}$/;

/** Names for stored keys: short, shell-friendly, never an object-prototype member. */
const KEY_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The environment variable whose key overrides the stored active key. */
export const KEY_ENV = 'DOMAIN_INTEL_API_KEY';

/** A key ready to use, and where it came from. */
export interface ResolvedKey {
  key: string;
  source: 'env' | 'stored';
  /** Stored key's name; null for the environment key. */
  name: string | null;
}

/** A stored key as shown to the user. */
export interface KeyListing {
  name: string;
  masked: string;
  active: boolean;
}

/** The shape §5.2 gives a key, as messages describe it. */
const KEY_SHAPE = "an API key is the service's fixed prefix (letters and digits, ending in _) followed by 48 hexadecimal characters";

/** Null when `key` looks like a key; otherwise why not, without ever repeating the key. */
export function checkKeyShape(key: string): string | null {
  if (key === '') return 'the key is empty';
  if (/\s/.test(key)) return 'the key contains whitespace or a line break; copy it again';
  if (KEY_PATTERN.test(key)) return null;
  const cut = key.lastIndexOf('_');
  if (cut <= 0) return `the key has no prefix; ${KEY_SHAPE}`;
  if (!/^[A-Za-z][A-Za-z0-9]*_(?:[A-Za-z0-9]+_)*$/.test(key.slice(0, cut + 1))) {
    return 'the key prefix may hold only letters and digits separated by underscores';
  }
  const secret = key.slice(cut + 1);
  if (secret.length !== 48) return `the part after the prefix has ${secret.length} characters; ${KEY_SHAPE}`;
  return `the part after the prefix must be lowercase hexadecimal (0-9, a-f); ${KEY_SHAPE}`;
}

/** The key as it may be shown: its prefix, an ellipsis and its last 4 characters (di_live_…9f3a). */
export function maskKey(key: string): string {
  const cut = key.lastIndexOf('_');
  const secret = cut >= 0 ? key.slice(cut + 1) : key;
  // Short or odd strings reveal nothing: 4 characters of a 10-character string is too much of it.
  if (secret.length < 16) return cut >= 0 ? `${key.slice(0, cut + 1)}…` : '…';
  return `${cut >= 0 ? key.slice(0, cut + 1) : ''}…${secret.slice(-4)}`;
}

function checkName(name: string): void {
  if (!KEY_NAME_PATTERN.test(name)) {
    throw new UsageError(
      `invalid key name ${JSON.stringify(name)}: use letters, digits, '.', '_' or '-' (up to 64, starting with a letter or digit)`,
      'bad_key_name',
    );
  }
}

function requireStored(settings: SettingsReader, name: string): string {
  const keys = settings.get('keys');
  const key = Object.hasOwn(keys, name) ? keys[name] : undefined;
  if (key === undefined) {
    // The names there are (they are not secret), and the command that lists them: no guessing needed.
    const names = Object.keys(keys).sort();
    const there =
      names.length > 0 ? `stored: ${names.join(', ')} (\`domain-intel keys list\`)` : 'no keys are stored; add one with `domain-intel keys add NAME`';
    throw new UsageError(`no stored key named ${JSON.stringify(name)}; ${there}`, 'no_such_key');
  }
  return key;
}

/** Stores a key under `name` (default 'default'); the first key stored becomes the active one. */
export async function addKey(settings: Settings, name: string | undefined, key: string): Promise<{ name: string; active: boolean; replaced: boolean }> {
  const keyName = name ?? 'default';
  checkName(keyName);
  const trimmed = key.trim();
  const reason = checkKeyShape(trimmed);
  if (reason !== null) throw new UsageError(`not a valid API key: ${reason}`, 'bad_key');
  const keys = settings.get('keys');
  const replaced = Object.hasOwn(keys, keyName);
  await settings.set('keys', { ...keys, [keyName]: trimmed });
  let active = settings.get('activeKey');
  if (active === null || !Object.hasOwn(keys, active)) {
    await settings.set('activeKey', keyName);
    active = keyName;
  }
  return { name: keyName, active: active === keyName, replaced };
}

/** The stored keys, masked, in name order. */
export function listKeys(settings: SettingsReader): KeyListing[] {
  const keys = settings.get('keys');
  const active = settings.get('activeKey');
  return Object.keys(keys)
    .sort()
    .map((name) => ({ name, masked: maskKey(keys[name] ?? ''), active: name === active }));
}

/** Makes the stored key `name` the active one. */
export async function useKey(settings: Settings, name: string): Promise<void> {
  requireStored(settings, name);
  await settings.set('activeKey', name);
}

/** Removes the stored key `name`; if it was active, the first remaining key (by name) becomes active, or none. */
export async function removeKey(settings: Settings, name: string): Promise<{ active: string | null }> {
  requireStored(settings, name);
  const keys = { ...settings.get('keys') };
  delete keys[name];
  await settings.set('keys', keys);
  let active = settings.get('activeKey');
  if (active === name || (active !== null && !Object.hasOwn(keys, active))) {
    active = Object.keys(keys).sort()[0] ?? null;
    await settings.set('activeKey', active);
  }
  return { active };
}

/**
 * The key to use: the stored key `name` when one is asked for, else $DOMAIN_INTEL_API_KEY, else the
 * stored active key; null when there is none.
 */
export function resolveKey(options: { settings?: SettingsReader | null; env?: Env; name?: string | null }): ResolvedKey | null {
  const { settings, name } = options;
  const env = options.env ?? process.env;
  if (name !== undefined && name !== null) {
    if (!settings) throw new UsageError(`no stored key named ${JSON.stringify(name)}: settings are not available`, 'no_such_key');
    return { key: requireStored(settings, name), source: 'stored', name };
  }
  const fromEnv = env[KEY_ENV]?.trim();
  if (fromEnv) return { key: fromEnv, source: 'env', name: null };
  if (!settings) return null;
  const active = settings.get('activeKey');
  if (active === null) return null;
  const keys = settings.get('keys');
  const key = Object.hasOwn(keys, active) ? keys[active] : undefined;
  return key === undefined ? null : { key, source: 'stored', name: active };
}
