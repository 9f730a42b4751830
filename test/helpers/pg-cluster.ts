// A throwaway PostgreSQL server of a test's own (pg_createcluster, as root): for what the shared server cannot
// show, such as a server that asks for a password, or one stopped under a run.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';

const VERSION = '15';

/** Whether this machine can make one: root, pg_createcluster and PostgreSQL 15's initdb. */
export const CLUSTER_USABLE = process.getuid?.() === 0 && existsSync('/usr/bin/pg_createcluster') && existsSync(`/usr/lib/postgresql/${VERSION}/bin/initdb`);

export interface Cluster {
  port: number;
  start(): void;
  stop(): void;
  /** Stops and removes it. */
  drop(): void;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Creates and starts the cluster `name` on a free port; `authHost` is its TCP authentication (the socket trusts). */
export async function startCluster(name: string, authHost: 'trust' | 'scram-sha-256'): Promise<Cluster> {
  const port = await freePort();
  const ctl = (action: 'start' | 'stop') => execFileSync('pg_ctlcluster', [VERSION, name, action], { stdio: 'pipe' });
  execFileSync('pg_createcluster', [VERSION, name, '-p', String(port), '--', `--auth-host=${authHost}`, '--auth-local=trust'], { stdio: 'pipe' });
  ctl('start');
  return {
    port,
    start: () => ctl('start'),
    stop: () => ctl('stop'),
    drop: () => execFileSync('pg_dropcluster', ['--stop', VERSION, name], { stdio: 'pipe' }),
  };
}
