// The sandbox's HTTP server: node:http on 127.0.0.1, keep-alive, latency, and the transport-level faults
// (reset sockets, truncated or garbled bodies, wrong content type). The service logic is in service.ts.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_PREFIX, PLANS, type PlanName } from '../api/types.js';
import { ADMIN_PREFIX, handleAdmin } from './admin.js';
import { datasetChanges } from './changes.js';
import { createDataset } from './dataset.js';
import { FaultInjector, normaliseRates } from './faults.js';
import { KeyRing } from './keys.js';
import { Meter } from './meter.js';
import { Rng } from './random.js';
import { applyReadings, DEFAULT_READINGS, type Readings } from './readings.js';
import { FIRST_RELEASE } from './release.js';
import { Service, type Outcome } from './service.js';
import type { Dataset, RequestLogEntry, Sandbox, SandboxInfo, SandboxOptions } from './types.js';

const MAX_BODY = 1 << 20;
const JSON_TYPE = 'application/json; charset=utf-8';

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v < 0) throw new RangeError(`${name} must be a non-negative number, got ${String(value)}`);
  return v;
}

/** Reads a request body up to 1 MiB; a larger body is drained and read as empty (a batch then is bad_batch). */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => resolve(size <= MAX_BODY ? Buffer.concat(chunks) : Buffer.alloc(0)));
    req.on('error', reject);
  });
}

/** Writes an outcome, applying its transport fault. */
function write(res: ServerResponse, outcome: Outcome): void {
  if (typeof outcome.body === 'string') {
    const text = Buffer.from(outcome.body);
    res.writeHead(outcome.status, { 'content-length': String(text.length), ...outcome.headers });
    res.end(text);
    return;
  }
  const json = Buffer.from(JSON.stringify(outcome.body));
  const half = json.subarray(0, Math.floor(json.length / 2));
  const headers = { 'content-type': JSON_TYPE, ...outcome.headers };
  switch (outcome.post) {
    case 'reset':
      // Headers promise the full body; half is sent, then the connection is torn down.
      res.writeHead(outcome.status, { ...headers, 'content-length': String(json.length) });
      res.write(half, () => res.socket?.destroy());
      return;
    case 'truncated':
      res.writeHead(outcome.status, { ...headers, 'content-length': String(half.length) });
      res.end(half);
      return;
    case 'garbage': {
      const text = Buffer.from('upstream: OK\n<<partial render, retry later>>\n');
      res.writeHead(outcome.status, { ...headers, 'content-length': String(text.length) });
      res.end(text);
      return;
    }
    case 'wrongType':
      res.writeHead(outcome.status, { ...headers, 'content-type': 'text/plain; charset=utf-8', 'content-length': String(json.length) });
      res.end(json);
      return;
    case null:
      res.writeHead(outcome.status, { ...headers, 'content-length': String(json.length) });
      res.end(json);
  }
}

/** Starts a local, faithful implementation of the whole service on 127.0.0.1. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const planName: PlanName = options.plan ?? 'business';
  const plan = PLANS[planName];
  if (plan === undefined) throw new RangeError(`unknown plan: ${String(planName)}`);
  const seed = options.seed ?? 1;
  const clock = options.clock ?? Date.now;
  const windowMs = nonNegative('windowMs', options.windowMs, 60_000) || 60_000;
  const latencyMs = nonNegative('latencyMs', options.latencyMs, 0);
  const jitterMs = nonNegative('latencyJitterMs', options.latencyJitterMs, 0);
  const slowMs = nonNegative('slowMs', options.slowMs, 2000);
  const rates = normaliseRates(options.faults);
  // The readings are SandboxOptions fields too; only those are taken, checked before any work (RangeError).
  const readings = applyReadings(
    DEFAULT_READINGS,
    Object.fromEntries(Object.keys(DEFAULT_READINGS).map((name) => [name, options[name as keyof SandboxOptions]])),
  );

  const hosts = options.hosts ?? 5000;
  // One dataset per release asked for, kept: switching back and forth in a test rebuilds nothing.
  const releases = new Map<string, Dataset>();
  const datasetAt = (release: string): Dataset => {
    const known = releases.get(release);
    if (known) return known;
    const built = createDataset(seed, hosts, release);
    releases.set(release, built);
    return built;
  };
  let dataset = datasetAt(options.release ?? FIRST_RELEASE);
  const meter = new Meter({
    allowance: Math.floor(nonNegative('quota', options.quota, plan.monthly)),
    rpm: Math.floor(nonNegative('rpm', options.rpm, plan.perMinute)),
    windowMs,
    clock,
  });
  const keys = new KeyRing(seed);
  const service = new Service(dataset, meter, keys, new FaultInjector(seed, rates), clock);
  service.configure(readings);
  const latency = Rng.for(seed, 'latency');
  let log: RequestLogEntry[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const timerSleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    const method = req.method ?? 'GET';
    const body = await readBody(req);
    if (target.startsWith(ADMIN_PREFIX)) {
      const answer = handleAdmin(controls, method, target, body);
      const json = Buffer.from(JSON.stringify(answer.body));
      res.writeHead(answer.status, { 'content-type': JSON_TYPE, 'content-length': String(json.length) });
      res.end(json);
      return;
    }
    const outcome = service.handle({ method, target, headers: req.headers, body });
    log.push({
      time: clock(),
      method,
      path: target.split('?')[0] ?? '',
      url: target,
      operation: outcome.operation,
      status: outcome.status,
      charged: outcome.charged,
      hosts: outcome.hosts,
      authorization: req.headers.authorization ?? null,
      fault: outcome.fault,
      resetAt: outcome.resetAt ?? null,
    });
    const delay = latencyMs + (jitterMs > 0 ? latency.float() * jitterMs : 0) + (outcome.slow ? slowMs : 0);
    if (delay > 0) await (options.sleep ?? timerSleep)(delay);
    if (!res.destroyed) write(res, outcome);
  }

  const server = createServer({ keepAlive: true }, (req, res) => {
    onRequest(req, res).catch(() => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': JSON_TYPE });
        res.end('{"error":"internal"}');
      } else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const controls = {
    newKey: () => keys.create(),
    revokeKey: (key: string) => keys.revoke(key),
    addPack: () => meter.addPack(),
    rollover: () => meter.endMonth(),
    readings: () => service.readings,
    setReadings: (changes: Partial<Readings>) => service.configure(changes),
    setRemaining: (n: number) => meter.setRemaining(n),
    setAllowance: (n: number) => meter.setAllowance(n),
    charges: () => meter.report(),
    requests: () => log.map((entry) => ({ ...entry, hosts: [...entry.hosts] })),
    resetCounters: () => {
      meter.resetCounters();
      log = [];
    },
    hostList: () => dataset.hosts(),
    release: () => dataset.release,
    setRelease: (release: string) => {
      dataset = datasetAt(release);
      service.useDataset(dataset);
      return dataset.release;
    },
    changesBetween: (from: string, to?: string) => datasetChanges(datasetAt(from), to === undefined ? dataset : datasetAt(to)),
    info: (): SandboxInfo => ({
      url,
      baseUrl: url + API_PREFIX,
      key: keys.primary,
      plan: planName,
      limit: meter.limit(),
      remaining: meter.remaining(),
      rpm: meter.rpm,
      windowMs,
      seed,
      hosts: dataset.size,
      release: dataset.release,
      slowMs,
      faults: { ...rates },
      ...service.readings,
    }),
  };

  return {
    ...controls,
    url,
    baseUrl: url + API_PREFIX,
    key: keys.primary,
    get dataset() {
      return dataset;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
