// `domain-intel sandbox`: runs the local imitation of the service until interrupted.
import { PLANS } from '../../api/types.js';
import type { Context } from '../context.js';
import { EXIT } from '../exit-codes.js';

export default async function sandbox(ctx: Context<'sandbox'>): Promise<number> {
  const { startSandbox } = await import('../../sandbox/index.js');
  const o = ctx.opts;
  const plan = o.plan ?? 'business';
  const sb = await startSandbox({
    port: o.port,
    plan,
    ...(o.quota === undefined ? {} : { quota: o.quota }),
    ...(o.rpm === undefined ? {} : { rpm: o.rpm }),
    windowMs: o.windowMs,
    latencyMs: o.latencyMs,
    seed: o.seed,
    hosts: o.hosts,
    release: o.release,
    faults: { unavailable: o.failRate },
    slowMs: o.slowMs,
    allAbsent: o.allAbsent,
    overQuota: o.overQuota,
    order: o.order,
    missingCase: o.missingCase,
    upperCase: o.upperCase,
    resetStyle: o.resetStyle,
    quotaResetStyle: o.quotaResetStyle,
    window: o.window,
    asOf: o.asOf,
    freeLimited: o.freeLimited === true,
    freeQuotaHeaders: o.freeQuotaHeaders === true,
    revokeAfter: o.revokeAfter ?? null,
    slowRequests: o.slowRequests ?? [],
    ageDrift: o.ageDrift ?? 0,
  });
  const hosts = sb.hostList().slice(0, 3).join(' ');
  // What the user needs to point the CLI at it goes to stdout (it is this command's data), as two lines to paste
  // into a shell as they are (neither the URL nor the key holds a character the shell reads); the rest to stderr.
  ctx.io.stdout.write(`export DOMAIN_INTEL_BASE_URL=${sb.baseUrl}\nexport DOMAIN_INTEL_API_KEY=${sb.key}\n`);
  const rpm = o.rpm ?? PLANS[plan].perMinute;
  const quota = o.quota ?? PLANS[plan].monthly;
  const per = o.windowMs === 60_000 ? 'minute' : `${o.windowMs.toLocaleString('en-US')} ms`;
  const rate = rpm === 0 ? 'no rate limit' : `rate ${rpm.toLocaleString('en-US')} requests per ${per}`;
  ctx.logger.info(`sandbox listening on ${sb.url} (plan ${plan}, ${rate}, quota ${quota.toLocaleString('en-US')} lookups, release ${sb.release()})`);
  ctx.logger.info(`paste the two export lines above into another shell, then try: domain-intel lookup ${hosts}`);
  const readings = Object.entries(sb.readings()).map(([name, value]) => `${name}=${Array.isArray(value) ? value.join(',') : String(value)}`);
  ctx.logger.info(`readings: ${readings.join(' ')} (switch them: POST /__sandbox/readings)`);
  ctx.logger.info('charges so far: GET /__sandbox/charges; Ctrl-C stops it');
  await new Promise<void>((resolve) => {
    if (ctx.interrupted.aborted) resolve();
    ctx.interrupted.addEventListener('abort', () => resolve(), { once: true });
  });
  await sb.close();
  return EXIT.OK;
}
