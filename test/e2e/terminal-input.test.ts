// Hosts read from a terminal (`batch` or `changes` with no file, nothing piped): the command says it is
// waiting for them, and one Ctrl-C ends it. A terminal's read never ends by itself, so the first Ctrl-C used
// to be lost, and the lines typed next were read as hosts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { main } from '../../src/cli/main.js';
import { cliEnv, fakeIo } from '../helpers/cli.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0, hosts: 50 });
});
afterAll(async () => {
  await sb?.close();
});

async function interruptedWhileWaiting(args: string[]) {
  const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
  const fake = fakeIo(args, { env, stdinTTY: true });
  let settled = false;
  const done = Promise.race([main(fake.io), fake.exited]).then((code) => {
    settled = true;
    return { code, stdout: fake.stdout(), stderr: fake.stderr() };
  });
  // Until the command says it waits for the terminal (it never ends the read by itself: see above).
  while (!fake.stderr().includes('reading hosts from the terminal') && !settled) await new Promise((resolve) => setTimeout(resolve, 2));
  expect(settled).toBe(false);
  fake.signal('SIGINT');
  return done;
}

describe('hosts from a terminal', () => {
  it('changes: says it reads the terminal; one Ctrl-C ends it (exit 130), nothing on stdout', async () => {
    const r = await interruptedWhileWaiting(['changes']);
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('reading hosts from the terminal, one a line (Ctrl-D ends the list, Ctrl-C stops)');
  });

  it('batch: the same, and nothing is spent', async () => {
    const r = await interruptedWhileWaiting(['batch']);
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('reading hosts from the terminal');
    expect(r.stderr).toContain('interrupted');
    expect(sb.charges().requests).toBe(0);
  });
});
