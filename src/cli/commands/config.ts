// `domain-intel config show|set|unset`: the settings in force and where each comes from.
import { UsageError } from '../../api/errors.js';
import type { Context } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { renderKeyValue } from '../output/table.js';
import type { ResolvedProxy } from '../../config/proxy.js';

export default async function config(ctx: Context): Promise<number> {
  const settings = await ctx.settings();
  const { settingEnvs, settingNamed, settingValue } = await import('../../config/resolve.js');
  const [{ maskKey }, { maskProxy }, { maskUrl }] = await Promise.all([
    import('../../config/keys.js'),
    import('../../config/proxy.js'),
    import('../../config/store-url.js'),
  ]);
  const setting = ctx.args.setting as string | undefined;
  switch (ctx.args.sub) {
    case 'show': {
      const c = await ctx.config();
      // With no plan or rate set, a run paces at what this account (base URL and key) learned before.
      const { accountReads, storeWhere } = await import('../../store/open.js');
      const learned = c.rpm === null && c.key ? await learnedRate(ctx, accountReads, storeWhere(c), c.baseUrl, c.key.key) : null;
      const rate =
        c.rpm !== null
          ? `${c.rpm} requests per ${c.windowMs / 1000}s  (${c.sources.rate})`
          : learned
            ? `${learned.requests} requests per ${learned.windowMs / 1000}s  (learned for this base url and key${learned.unconfirmed ? '; unconfirmed: the window is at least this' : ''})`
            : 'unknown: learned from the first 429';
      const rows: [string, unknown][] = [
        ['base url', `${c.baseUrl}  (${c.sources.baseUrl})`],
        ['plan', `${c.plan ?? 'unknown'}  (${c.sources.plan})`],
        ['rate', rate],
        ['key', c.key ? `${maskKey(c.key.key)}  (${c.key.source === 'env' ? 'DOMAIN_INTEL_API_KEY' : `stored "${c.key.name ?? ''}"`})` : null],
        ['proxy', proxyText(c.proxy)],
        ['store', c.store.shown === null ? `the local cache  (${c.sources.store})` : `${c.store.shown}  (${c.sources.store})`],
        ['cache', `${c.cacheDir}  (${c.sources.cacheDir})`],
        ['settings file', settings.path],
      ];
      if (ctx.io.stdout.isTTY) ctx.io.stdout.write(`${renderKeyValue(rows, { style: ctx.outStyle, width: ctx.io.stdout.columns })}\n`);
      else {
        const { key, proxy, store, ...rest } = c;
        // The proxy as shown (its password masked), never as used.
        const shownProxy = { url: proxy.url === null ? null : proxy.shown, source: proxy.source, from: proxy.from, bypassedBy: proxy.bypassedBy };
        const masked = key ? { source: key.source, name: key.name, masked: maskKey(key.key) } : null;
        // The store as shown too: a PostgreSQL URL's password masked.
        const output = { ...rest, proxy: shownProxy, store: { url: store.shown }, learnedRate: learned, key: masked, settingsFile: settings.path };
        ctx.io.stdout.write(`${JSON.stringify(output)}\n`);
      }
      return EXIT.OK;
    }
    case 'set': {
      const key = settingNamed(setting);
      const value = settingValue(key, ctx.args.value as string);
      await settings.set(key, value);
      // As stored (a base URL without its trailing slash); a proxy's or a store's password masked.
      const shown =
        key === 'proxy' ? maskProxy(String(value)) : key === 'store' ? (value === null ? 'sqlite (the local cache)' : maskUrl(String(value))) : String(value);
      ctx.logger.info(`${setting} set to ${shown}`);
      overridden(ctx, settingEnvs(setting));
      return EXIT.OK;
    }
    case 'unset': {
      await settings.set(settingNamed(setting), null);
      ctx.logger.info(`${setting} unset`);
      overridden(ctx, settingEnvs(setting));
      return EXIT.OK;
    }
  }
  throw new UsageError(`unknown config subcommand ${String(ctx.args.sub)}`);
}

/**
 * The rate this account learned, as kept in the store; a shared store that cannot be reached is said (the
 * settings are still shown: this is where a user looks to see which store is configured).
 */
async function learnedRate(
  ctx: Context,
  reads: typeof import('../../store/open.js').accountReads,
  where: import('../../store/open.js').StoreWhere,
  baseUrl: string,
  key: string,
): Promise<import('../../store/contract.js').LearnedRate | null> {
  const { StoreUnavailableError } = await import('../../store/errors.js');
  try {
    return await (await reads(where)).learnedRate(baseUrl, key);
  } catch (err) {
    if (!(err instanceof StoreUnavailableError)) throw err;
    ctx.logger.warn(`${err.message}; the rate learned for this account is not shown`);
    return null;
  }
}

/**
 * The environment wins over a stored setting: said when it holds this one, or `config set` seems to work and
 * changes nothing (a tryout set a base URL while DOMAIN_INTEL_BASE_URL still pointed elsewhere).
 */
/** The proxy in force, where it came from, or why none is used. */
function proxyText(p: ResolvedProxy): string {
  if (p.bypassedBy !== null) return `none: NO_PROXY holds ${p.bypassedBy} (${p.shown} from ${p.from} is not used)`;
  if (p.url === null) return p.source === 'default' ? 'none' : `none  (${p.from})`;
  return `${p.shown}  (${p.from})`;
}

function overridden(ctx: Context, names: readonly string[]): void {
  const name = names.find((n) => (ctx.io.env[n] ?? '') !== '');
  if (name !== undefined) ctx.logger.warn(`${name} is set in this environment and wins over the stored setting: unset it for this one to apply`);
}
