// An input refused before its records are read (no host column, an option that does not apply) is let go: its
// file is closed then, not left open until garbage collection closes it (Node warns of that on stderr, "Closing
// file descriptor N on garbage collection", and says it will throw; a library caller's process lives on).
import { createReadStream, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/api/errors.js';
import { openJobInput } from '../../src/run/job.js';

const dir = mkdtempSync(join(tmpdir(), 'di-job-open-'));

describe('openJobInput refusing an input', () => {
  it.each([
    ['no host column', 'name,notes\nAcme,b\n', {}],
    ['--sheet on a text file', 'website\nacme.com\n', { sheet: 'Leads' }],
    ['a workbook given --delimiter', 'PK\x03\x04 not really a workbook', { delimiter: ';' as const }],
  ])('%s: a UsageError, and the input stream destroyed', async (_name, text, options) => {
    const file = join(dir, `${_name.replace(/\W+/g, '-')}.csv`);
    writeFileSync(file, text);
    const stream = createReadStream(file);
    await expect(openJobInput({ stream, fileName: file, ...options })).rejects.toBeInstanceOf(UsageError);
    expect(stream.destroyed).toBe(true);
  });
});
