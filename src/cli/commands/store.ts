// `domain-intel store status|migrate|import`: the store in use (the local cache, or a shared PostgreSQL store)
// as the library sees it (store/open.ts); this file only words it. The URL is shown with its password masked.
import { UsageError } from '../../api/errors.js';
import type { Context } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { groupedNumber, humanDuration, relativeAge } from '../output/format.js';
import { renderKeyValue } from '../output/table.js';

export default async function store(ctx: Context): Promise<number> {
  const [config, lib] = await Promise.all([ctx.config(), import('../../store/open.js')]);
  const where = lib.storeWhere(config);
  switch (ctx.args.sub) {
    case 'status': {
      const status = await lib.storeStatus(where, config.baseUrl);
      const window = status.version === status.knownVersion ? await accountWindowOf(ctx) : null;
      if (ctx.io.stdout.isTTY !== true) {
        ctx.io.stdout.write(`${JSON.stringify({ ...status, window })}\n`);
        return EXIT.OK;
      }
      const now = ctx.io.clock.now();
      const machines =
        status.machines === null
          ? 'not tracked in the local cache'
          : status.machines.length === 0
            ? 'none'
            : status.machines.map((m) => `${m.machine}: ${runsText(m.runs, m.buying)}, seen ${relativeAge(now - m.lastSeen)}`).join('; ');
      const rows: [string, unknown][] = [
        ['backend', status.backend === 'sqlite' ? 'sqlite (the local cache)' : 'postgresql (shared)'],
        ['store', status.where],
        ...(status.schema === null ? [] : [['schema', status.schema] as [string, unknown]]),
        ['version', versionText(status.version, status.knownVersion)],
        ['answers', groupedNumber(status.answers)],
        ['past answers', groupedNumber(status.history)],
        ['runs now', machines],
        ['window', window === null ? 'unknown (no usable key, or the schema is not this version)' : windowText(window, now)],
      ];
      ctx.io.stdout.write(`${renderKeyValue(rows, { style: ctx.outStyle, width: ctx.io.stdout.columns })}\n`);
      return EXIT.OK;
    }
    case 'migrate': {
      const { before, after } = await lib.migrateStore(where, config.baseUrl);
      const shown = config.store.shown ?? 'the local cache';
      ctx.logger.info(before === after ? `${shown} is up to date (version ${after})` : `${shown} brought from version ${before} to ${after}`);
      return EXIT.OK;
    }
    case 'import': {
      const from = (ctx.args.dir as string | undefined) ?? config.cacheDir;
      const added = await lib.importLocalCache(from, where, config.baseUrl);
      if (ctx.io.stdout.isTTY !== true) ctx.io.stdout.write(`${JSON.stringify({ from, ...added })}\n`);
      const what = `${groupedNumber(added.answers)} answers and ${groupedNumber(added.history)} past answers`;
      ctx.logger.info(
        `copied ${what} of ${config.baseUrl} from ${from} into ${config.store.shown ?? ''}${added.answers + added.history === 0 ? ' (it held them all already)' : ''}`,
      );
      return EXIT.OK;
    }
  }
  throw new UsageError(`unknown store subcommand ${String(ctx.args.sub)}`);
}

interface Window {
  accepted: number;
  pausedUntil: number;
  windowMs: number;
  /** Requests allowed per window, given or learned; null when neither is known. */
  limit: number | null;
}

/** The account's current window: what the limiter's slots hold now, by every machine; null without a usable key. */
async function accountWindowOf(ctx: Context): Promise<Window | null> {
  const config = await ctx.config();
  const { checkKeyShape } = await import('../../config/keys.js');
  if (config.key === null || checkKeyShape(config.key.key) !== null) return null;
  const [account, { accountWindow }] = await Promise.all([ctx.state(), import('../../store/account.js')]);
  const learned = config.rpm === null ? await account.learnedRate() : null;
  const windowMs = learned?.windowMs ?? config.windowMs;
  const now = ctx.io.clock.now();
  return { ...(await accountWindow(account, windowMs, now)), windowMs, limit: config.rpm ?? learned?.requests ?? null };
}

/**
 * A machine's runs, and how many are buying: between their first batch and their last (the store's presence).
 * A run still planning, waiting on the quota or the rate, or writing its output is alive but not buying.
 */
function runsText(runs: number, buying: number): string {
  return `${groupedNumber(runs)} run${runs === 1 ? '' : 's'}, ${groupedNumber(buying)} of them between their first and last batch`;
}

function versionText(found: number, known: number): string {
  if (found === 0) return `none yet: the first run (or store migrate) creates version ${known}`;
  if (found > known) return `${found}, newer than this domain-intel knows (${known}): upgrade it to use this store`;
  if (found < known) return `${found}: store migrate (or the next run) brings it to ${known}`;
  return `${found} (current)`;
}

function windowText(w: Window, now: number): string {
  const limit = w.limit === null ? '' : ` of ${groupedNumber(w.limit)}`;
  const paused = w.pausedUntil > now ? `; paused for ${humanDuration(w.pausedUntil - now)} (a 429)` : '';
  return `${groupedNumber(w.accepted)}${limit} requests in the last ${humanDuration(w.windowMs)}${paused}`;
}
