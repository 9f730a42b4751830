// `domain-intel sandbox`: runs the local imitation of the service until interrupted.
import type { Context } from '../context.js';
import { EXIT } from '../exit-codes.js';

export default async function sandbox(ctx: Context<'sandbox'>): Promise<number> {
  const { startSandbox } = await import('../../sandbox/index.js');
  const o = ctx.opts;
  const sb = await startSandbox({
    port: o.port,
    plan: o.plan ?? 'business',
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
    freeLimited: o.freeLimited === true,
    freeQuotaHeaders: o.freeQuotaHeaders === true,
    revokeAfter: o.revokeAfter ?? null,
    slowRequests: o.slowRequests ?? [],
    ageDrift: o.ageDrift ?? 0,
  });
  const hosts = sb.hostList().slice(0, 3).join(' ');
  // What the user needs to point the CLI at it goes to stdout (it is this command's data); the rest to stderr.
  ctx.io.stdout.write(`DOMAIN_INTEL_BASE_URL=${sb.baseUrl}\nDOMAIN_INTEL_API_KEY=${sb.key}\n`);
  ctx.logger.info(`sandbox listening on ${sb.url} (plan ${o.plan ?? 'business'}, window ${o.windowMs} ms, release ${sb.release()}); try:`);
  ctx.logger.info(`  export DOMAIN_INTEL_BASE_URL=${sb.baseUrl} DOMAIN_INTEL_API_KEY=<the key above>; domain-intel lookup ${hosts}`);
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
