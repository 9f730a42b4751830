// The options of how requests reach the service, a part of the one option table (table.ts spreads them in
// after --timeout): the forward proxy (issue 29; the rule is config/proxy.ts's).
import type { OptionRow } from './row.js';

export const NETWORK_OPTIONS = {
  proxy: {
    flags: '--proxy <url>',
    // Checked by the config resolver, not here: commander would quote a rejected value, and a proxy URL may
    // carry user:password@.
    help: 'forward proxy to the service, http://[user:password@]host:port, or none (default: HTTPS_PROXY or HTTP_PROXY; NO_PROXY lists hosts reached directly)',
    commands: 'global',
    setting: 'proxy',
  },
} as const satisfies Record<string, OptionRow>;
