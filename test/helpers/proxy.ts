// A real forward proxy for tests, on 127.0.0.1 port 0 (issue 29): absolute-URI requests (GET/POST of plain
// HTTP) forwarded to their target, and CONNECT tunnels piped to theirs; each request noted as the proxy saw it,
// so a test knows what went through it and what it could read. Optionally asks for a user and password (407).
// And an https front for the sandbox: TLS (a self-signed certificate made by openssl now) piped to the plain
// sandbox, so a CONNECT tunnel carries what it should: TLS the proxy cannot read.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';

interface SeenRequest {
  method: string;
  /** The absolute URI asked for, or host:port for CONNECT. */
  target: string;
  headers: IncomingHttpHeaders;
}

export interface ForwardProxy {
  url: string;
  port: number;
  seen: SeenRequest[];
  close(): Promise<void>;
}

/** Starts the proxy; with `auth` ('user:password') it answers 407 unless Proxy-Authorization carries them. */
export async function startForwardProxy(opts: { auth?: string } = {}): Promise<ForwardProxy> {
  const seen: SeenRequest[] = [];
  const expected = opts.auth === undefined ? null : `Basic ${Buffer.from(opts.auth).toString('base64')}`;
  const allowed = (headers: IncomingHttpHeaders) => expected === null || headers['proxy-authorization'] === expected;
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', target: req.url ?? '', headers: req.headers });
    if (!allowed(req.headers)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
      return;
    }
    if (!/^http:\/\//.test(req.url ?? '')) {
      res.writeHead(400).end('a forward proxy takes absolute URIs');
      return;
    }
    const { 'proxy-authorization': _a, 'proxy-connection': _c, ...headers } = req.headers;
    const upstream = request(req.url as string, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    seen.push({ method: 'CONNECT', target: req.url ?? '', headers: req.headers });
    if (!allowed(req.headers)) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\n\r\n');
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    const target = connect(Number(port), host as string, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) target.write(head);
      target.pipe(client);
      client.pipe(target);
    });
    for (const s of [target, client]) {
      sockets.add(s);
      s.on('error', () => {
        target.destroy();
        client.destroy();
      });
      s.on('close', () => sockets.delete(s));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface TlsFront {
  /** The https base URL of the sandbox behind it. */
  baseUrl: string;
  /** The self-signed certificate (PEM file) a client must trust: NODE_EXTRA_CA_CERTS. */
  certFile: string;
  close(): Promise<void>;
}

/** TLS on 127.0.0.1 port 0 in front of a plain HTTP server at `targetPort`, with a certificate made now by openssl. */
export async function startTlsFront(targetPort: number): Promise<TlsFront> {
  const dir = mkdtempSync(join(tmpdir(), 'di-tls-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  const sockets = new Set<Socket>();
  const server = createTlsServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (tls) => {
    const plain = connect(targetPort, '127.0.0.1');
    tls.pipe(plain);
    plain.pipe(tls);
    for (const s of [tls as Socket, plain]) {
      sockets.add(s);
      s.on('error', () => {
        tls.destroy();
        plain.destroy();
      });
      s.on('close', () => sockets.delete(s));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    baseUrl: `https://127.0.0.1:${port}/api/v1`,
    certFile,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
