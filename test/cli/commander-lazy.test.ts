// The build rewrites a line of commander's command.js (scripts/lazy-child-process.mjs) so that start-up does
// not load node:child_process. These tests fail when a commander upgrade drops the line or takes more than
// spawn() from the module, before a build (which only warns) or a run finds out.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EAGER_CP, LAZY_CP, lazyChildProcess } from '../../scripts/lazy-child-process.mjs';

// Not in commander's exports map: found beside its index.js.
const COMMAND_JS = join(dirname(createRequire(import.meta.url).resolve('commander')), 'lib', 'command.js');

describe('the lazy node:child_process rewrite of the bundle', () => {
  const load = (path: string) => {
    let onLoad: ((args: { path: string }) => { contents: string; warnings?: unknown[] }) | undefined;
    lazyChildProcess().setup({ onLoad: (_filter: unknown, fn: typeof onLoad) => void (onLoad = fn) } as never);
    return onLoad!({ path });
  };

  it("finds the line it rewrites in commander's command.js, and spawn() is all commander takes from the module", () => {
    const text = readFileSync(COMMAND_JS, 'utf8');
    expect(text).toContain(EAGER_CP);
    const uses = text.match(/childProcess\.\w+/g) ?? [];
    expect(uses.length).toBeGreaterThan(0);
    expect(new Set(uses)).toEqual(new Set(['childProcess.spawn']));
  });

  it('rewrites it without a warning', () => {
    const out = load(COMMAND_JS);
    expect(out.warnings).toBeUndefined();
    expect(out.contents).toContain(LAZY_CP);
    expect(out.contents).not.toContain(EAGER_CP);
  });
});
