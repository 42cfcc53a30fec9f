// An HTTP CONNECT proxy on loopback, for clients whose resolver knows only `localhost` itself (the
// reference's SDK, in Python): it opens tunnels to names under `localhost` only, on loopback, as browsers
// and curl resolve them (RFC 6761; loopback.ts does the same for node:http). The client keeps its TLS
// end to end and asks for the host by name (SNI), through the client's public proxy setting
// (HTTPS_PROXY). Any other destination is refused (403): the proxy reaches nothing off this machine.
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';

/** The host and port of a CONNECT request's target, when it is a name under `localhost`. */
export function loopbackTarget(authority: string): { host: string; port: number } | undefined {
  const match = /^([a-z0-9.-]+):([0-9]{1,5})$/i.exec(authority);
  if (!match) return undefined;
  const [, host = '', port = ''] = match;
  if (host !== 'localhost' && !host.endsWith('.localhost')) return undefined;
  return { host, port: Number(port) };
}

/** Starts the proxy on a free loopback port; it does not keep the process alive. Answers its URL. */
export async function startLoopbackProxy(): Promise<string> {
  const server = createServer((_, response) => response.writeHead(405).end());
  server.on('connect', (request, client, head) => {
    const target = loopbackTarget(request.url ?? '');
    if (!target) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(target.port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
