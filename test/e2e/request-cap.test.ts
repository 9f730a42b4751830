// One request's time is capped at 3 times --timeout (api/retry.ts) for every command that asks the service,
// tech and catalog included: they called the retry helper without the client's timeout, so their cap stayed
// at 90 s whatever --timeout said. A server that accepts connections and never answers plays the dead host.
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runInProcess } from '../helpers/cli.js';
import { virtualTime } from '../helpers/virtual-time.js';

// The CLI's timeouts and backoff on a virtual clock: the 3 s the cap allows pass in no real time. The server
// lets the clock move while it holds a request (as a dead host does, it never answers).
const time = virtualTime(Date.now());
let server: Server;
const sockets = new Set<Socket>();
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.once('data', () => void time.idle(new Promise((resolve) => socket.once('close', resolve))));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  // A well-formed key (spec §5.2): the server never reads it.
  env = cliEnv({ DOMAIN_INTEL_BASE_URL: `http://127.0.0.1:${port}/api/v1`, DOMAIN_INTEL_API_KEY: `di_live_${'0'.repeat(48)}` });
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => server.close(resolve));
});

describe('a service that never answers', () => {
  for (const args of [
    ['tech', 'WordPress'],
    ['catalog', '--refresh'],
  ]) {
    it(`${args[0]} gives up at 3 times --timeout and says so`, async () => {
      const started = time.now();
      const r = await runInProcess([...args, '--timeout', '1s'], { env, time });
      // The timeouts ran on the clock the CLI was given: 1 s, then 2 s (twice the patience), and it gave up.
      expect(time.now() - started).toBeGreaterThanOrEqual(3000);
      expect(r.code).toBe(7);
      expect(r.stderr).toContain('one request may take 3 s in all, 3 times its timeout');
      expect(r.stdout).toBe('');
    });
  }
});
