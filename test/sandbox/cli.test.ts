// The `domain-intel sandbox` command, in-process through main(io): its help names every reading's default,
// its flags reach the sandbox's readings, and a bad reading is a usage error.
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { DEFAULT_READINGS, READING_CHOICES, type Readings } from '../../src/sandbox/index.js';
import { cliEnv, fakeIo, runInProcess } from '../helpers/cli.js';

describe('domain-intel sandbox', () => {
  it('--help names each reading, its choices and its default, and says why', async () => {
    const r = await runInProcess(['sandbox', '--help'], { env: cliEnv() });
    expect(r.code).toBe(0);
    const help = r.stdout.replace(/\s+/g, ' ');
    const flags: Record<keyof typeof READING_CHOICES, string> = {
      allAbsent: '--all-absent',
      overQuota: '--over-quota',
      order: '--order',
      missingCase: '--missing-case',
      upperCase: '--upper-case',
      resetStyle: '--reset-style',
      quotaResetStyle: '--quota-reset-style',
      window: '--window',
      asOf: '--as-of',
    };
    for (const [name, flag] of Object.entries(flags) as [keyof typeof READING_CHOICES, string][]) {
      const choices = READING_CHOICES[name].map((c) => `"${c}"`).join(', ');
      const at = help.indexOf(`${flag} <reading>`);
      expect(at, flag).toBeGreaterThan(0);
      const text = help.slice(at, help.indexOf(' --', at + flag.length));
      expect(text, flag).toContain(`(choices: ${choices}, default: "${DEFAULT_READINGS[name]}")`);
      // The why: the default named at the start of the explaining clause.
      expect(text, flag).toContain(`(${DEFAULT_READINGS[name]}: `);
    }
    expect(help).toMatch(/--free-limited rate-limit technology and catalog too \(off by default: /);
    expect(help).toMatch(/--free-quota-headers quota headers on technology and catalog answers too \(off by default: /);
    expect(help).toMatch(/--revoke-after <n> revoke the printed key after N requests \(default: never\)/);
    expect(help).toMatch(/--slow-requests <list> .*--slow-ms <n> how long a held-back answer waits \(default: 2000\)/);
  });

  it('passes its flags to the sandbox, which reports them at /__sandbox/readings', async () => {
    const args = ['sandbox', '--port', '0', '--hosts', '20', '--all-absent', 'not-found', '--over-quota', 'partial', '--order', 'sorted'];
    args.push('--missing-case', 'submitted', '--upper-case', 'reject', '--reset-style', 'none', '--quota-reset-style', 'http-date');
    args.push(
      '--window',
      'sliding',
      '--free-limited',
      '--free-quota-headers',
      '--revoke-after',
      '3',
      '--slow-requests',
      '2,5',
      '--slow-ms',
      '10',
      '--age-drift',
      '2',
      '--as-of',
      'release',
    );
    const fake = fakeIo(args, { env: cliEnv() });
    const done = main(fake.io);
    while (!/^export DOMAIN_INTEL_API_KEY=\S+$/m.test(fake.stdout())) await new Promise((resolve) => setImmediate(resolve));
    const baseUrl = /^export DOMAIN_INTEL_BASE_URL=(\S+)$/m.exec(fake.stdout())?.[1] as string;
    const readings = (await (await fetch(baseUrl.replace('/api/v1', '/__sandbox/readings'))).json()) as Readings;
    const expected: Readings = {
      allAbsent: 'not-found',
      overQuota: 'partial',
      order: 'sorted',
      missingCase: 'submitted',
      upperCase: 'reject',
      resetStyle: 'none',
      quotaResetStyle: 'http-date',
      window: 'sliding',
      asOf: 'release',
      freeLimited: true,
      freeQuotaHeaders: true,
      revokeAfter: 3,
      slowRequests: [2, 5],
      ageDrift: 2,
    };
    expect(readings).toEqual(expected);
    expect(fake.stderr()).toContain('readings: allAbsent=not-found overQuota=partial');
    fake.signal('SIGINT');
    expect(await done).toBe(0);
  });

  it('starts with the default readings', async () => {
    const fake = fakeIo(['sandbox', '--port', '0', '--hosts', '20'], { env: cliEnv() });
    const done = main(fake.io);
    while (!/^export DOMAIN_INTEL_API_KEY=\S+$/m.test(fake.stdout())) await new Promise((resolve) => setImmediate(resolve));
    const info = /^export DOMAIN_INTEL_BASE_URL=(\S+)$/m.exec(fake.stdout())?.[1]?.replace('/api/v1', '/__sandbox/readings') as string;
    expect(await (await fetch(info)).json()).toEqual(DEFAULT_READINGS);
    fake.signal('SIGINT');
    expect(await done).toBe(0);
  });

  it.each([
    [['--all-absent', 'gone'], /Allowed choices are empty, not-found/],
    [['--window', 'rolling'], /Allowed choices are fixed, sliding/],
    [['--slow-requests', '1,0'], /expected a number of at least 1/],
    [['--revoke-after', '-1'], /--revoke-after/],
  ])('refuses %j as a usage error', async (flags, message) => {
    const r = await runInProcess(['sandbox', '--port', '0', ...flags], { env: cliEnv() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});
