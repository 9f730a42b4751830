// `domain-intel quota`: each account's quota as last reported (base URL and key), how old that figure is and
// whether its reset has passed; the account in use first. Costs nothing and sends nothing.
import { accountName, keyFingerprint } from '../../store/account.js';
import { type QuotaMemo, quotaMemoTrusted } from '../../store/quota-memo.js';
import type { Context } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { formatReset, groupedNumber, relativeAge } from '../output/format.js';
import { wrapLine, wrapWidth } from '../output/wrap.js';

export default async function quota(ctx: Context): Promise<number> {
  // Recorded in the state file by every metered answer (under --no-cache too), so read from there in any case.
  const [config, settings, { accountReads, storeWhere }] = await Promise.all([ctx.config(), ctx.settings(), import('../../store/open.js')]);
  const memos = await (await accountReads(storeWhere(config))).quotaMemos();
  if (memos.length === 0) {
    ctx.logger.info('no quota seen yet: it is reported with every metered lookup');
    return EXIT.OK;
  }
  // Which key a fingerprint stands for, by name: a stored key's, else the environment's.
  const names = new Map<string, string>();
  const envKey = config.key?.source === 'env' ? config.key.key : null;
  if (envKey !== null) names.set(keyFingerprint(envKey), 'DOMAIN_INTEL_API_KEY');
  for (const [name, key] of Object.entries(settings.get('keys'))) names.set(keyFingerprint(key), name);
  const inUse = config.key ? accountName(config.baseUrl, keyFingerprint(config.key.key)) : null;
  const isInUse = (m: QuotaMemo) => accountName(m.baseUrl, m.keyFingerprint) === inUse;
  const now = ctx.io.clock.now();
  const accounts = [...memos.filter(isInUse), ...memos.filter((m) => !isInUse(m))].map((m) => {
    const reset = m.reset === null ? null : new Date(m.reset);
    return {
      ...m,
      key: names.get(m.keyFingerprint) ?? m.keyFingerprint,
      inUse: isInUse(m),
      resetPassed: reset === null || Number.isNaN(reset.getTime()) ? null : reset.getTime() <= now,
      trusted: quotaMemoTrusted(m, now),
      age_ms: now - m.seenAt,
    };
  });
  if (ctx.opts.json || !ctx.io.stdout.isTTY) {
    ctx.io.stdout.write(`${JSON.stringify({ accounts })}\n`);
    return EXIT.OK;
  }
  for (const a of accounts) {
    const reset = formatReset({ reset: a.reset === null ? null : new Date(a.reset), resetRaw: a.resetRaw }, a.resetPassed ? undefined : now);
    const line = [
      `${a.baseUrl} · key ${a.key === a.keyFingerprint ? a.key : `"${a.key}"`}${a.inUse ? ' (in use)' : ''}`,
      `${groupedNumber(a.remaining)} / ${groupedNumber(a.limit)} lookups left`,
      a.resetPassed ? `reset ${reset} has passed: the figure is out of date` : `resets ${reset}`,
      `seen ${relativeAge(a.age_ms)}`,
    ].join(' · ');
    ctx.io.stdout.write(`${wrapLine(ctx.clean(line), wrapWidth(ctx.io.stdout))}\n`);
  }
  return EXIT.OK;
}
