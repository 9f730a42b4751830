// Reading a secret: from piped stdin, or from a prompt that does not echo on a terminal.
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { UsageError } from '../api/errors.js';

/** Reads one secret line: all of stdin when piped, or a hidden prompt on a TTY. */
export async function readSecret(stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream, question: string): Promise<string> {
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stdin as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > 4096) throw new UsageError('expected one API key on stdin, got more than 4 KiB');
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8').trim();
  }
  // The prompt goes straight to stderr; readline gets an output that drops everything, so the echo of what
  // is typed never reaches the terminal. It still reads the terminal in raw mode (line editing, Ctrl-C).
  stderr.write(question);
  const rl = createInterface({ input: stdin, output: new Writable({ write: (_chunk, _encoding, done) => done() }), terminal: true });
  try {
    const answer = await new Promise<string>((resolve, reject) => {
      rl.once('line', resolve);
      rl.on('SIGINT', () => reject(new UsageError('cancelled')));
    });
    stderr.write('\n');
    return answer.trim();
  } finally {
    rl.close();
  }
}

/** Asks a yes/no question on a terminal; false on anything but y/yes. */
export async function confirm(stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream, question: string): Promise<boolean> {
  const rl = createInterface({ input: stdin, output: stderr, terminal: true });
  try {
    const answer = await new Promise<string>((resolve) => rl.question(`${question} [y/N] `, resolve));
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
