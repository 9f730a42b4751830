// Spec §2.9: a plausible hostname is lower-case, 3 to 253 characters, letters, digits, dots and hyphens only.
const PLAUSIBLE = /^[a-z0-9.-]{3,253}$/;

/** True when `host` passes the service's hostname validity rule (§2.9) exactly as written. */
export function isPlausibleHostname(host: string): boolean {
  return PLAUSIBLE.test(host);
}
