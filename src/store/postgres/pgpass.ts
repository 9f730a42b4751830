// The password libpq would use when the URL carries none: PGPASSWORD, else the password file (PGPASSFILE or
// ~/.pgpass, lines of host:port:database:user:password, `*` matching anything, `\` escaping `:` and `\`),
// ignored when others may read it, as libpq does. pg reads the file itself through the pgpass package, but
// then writes warnings to stderr and a deprecation notice: the library never prints, so it is read here.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What a line of the password file is matched against (pg's resolved connection parameters). */
export interface PgpassTarget {
  host?: string;
  port?: number | string;
  database?: string;
  user?: string;
}

/** The fields of one line, unescaped; null for a comment, a blank line or one without five fields. */
function fieldsOf(line: string): string[] | null {
  if (line.trim() === '' || line.startsWith('#')) return null;
  const fields: string[] = [];
  let field = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '\\' && i + 1 < line.length) field += line[++i];
    else if (c === ':' && fields.length < 4) {
      fields.push(field);
      field = '';
    } else field += c;
  }
  fields.push(field);
  return fields.length === 5 ? fields : null;
}

/** The password of the first line matching `target` in `text` (a password file's content), or undefined. */
export function pgpassLookup(text: string, target: PgpassTarget): string | undefined {
  // libpq matches a socket connection (no host, or a directory) as localhost.
  const host = target.host === undefined || target.host === '' || target.host.startsWith('/') ? 'localhost' : target.host;
  const wanted = [host, String(target.port ?? 5432), target.database ?? target.user ?? '', target.user ?? ''];
  for (const line of text.split(/\r?\n/)) {
    const fields = fieldsOf(line);
    if (fields === null) continue;
    if (wanted.every((w, i) => fields[i] === '*' || fields[i] === w)) return fields[4];
  }
  return undefined;
}

/** The password for `target` by libpq's rules (PGPASSWORD, then the password file), or undefined. */
export function pgpassPassword(target: PgpassTarget, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.PGPASSWORD !== undefined) return env.PGPASSWORD;
  const file = env.PGPASSFILE ?? path.join(env.HOME ?? os.homedir(), '.pgpass');
  try {
    const stat = fs.statSync(file);
    // libpq ignores a file that is not plain, or that the group or others may read or write.
    if (!stat.isFile() || (process.platform !== 'win32' && (stat.mode & 0o077) !== 0)) return undefined;
    return pgpassLookup(fs.readFileSync(file, 'utf8'), target);
  } catch {
    return undefined; // no file, or one that cannot be read: no password from it, as libpq
  }
}
