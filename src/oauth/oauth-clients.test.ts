// Discovery and registration against a real authorization server (oidc-provider) and, for the ways a
// peer can misbehave, small real HTTP servers on loopback.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthorizationServer, type AuthorizationServer } from '../../test/support/authorization-server.ts';
import { authorizationServerMetadataUrls, fetchAuthorizationServerMetadata } from './authorization-server.ts';
import { discoverProvider } from './discovery.ts';
import { OAuthPeerError, insecureUrlProblem, requestJson } from './http.ts';
import { fetchProtectedResourceMetadata, protectedResourceMetadataCandidates } from './protected-resource.ts';
import { endpointUnreachable } from './reachability.ts';
import { isPrivateAddress } from './public-network.ts';
import { clientRegistrationRequest, registerClient } from './registration.ts';

/** The peers here run on loopback: Berth reaches them as an installation allowing private networks does. */
const local = { privateNetworks: true };

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ origin: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  return { origin: `http://127.0.0.1:${port}`, server };
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function rejection(promise: Promise<unknown>): Promise<OAuthPeerError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OAuthPeerError);
  return error as OAuthPeerError;
}

describe('well-known URLs', () => {
  it('inserts the well-known path before the resource path, then tries the root', () => {
    expect(protectedResourceMetadataCandidates('https://mcp.example.com/v1/mcp/')).toEqual([
      { url: 'https://mcp.example.com/.well-known/oauth-protected-resource/v1/mcp', acceptedResources: ['https://mcp.example.com/v1/mcp'] },
      {
        url: 'https://mcp.example.com/.well-known/oauth-protected-resource',
        acceptedResources: ['https://mcp.example.com/v1/mcp', 'https://mcp.example.com'],
      },
    ]);
    expect(protectedResourceMetadataCandidates('https://mcp.example.com')).toEqual([
      { url: 'https://mcp.example.com/.well-known/oauth-protected-resource', acceptedResources: ['https://mcp.example.com'] },
    ]);
  });

  it('tries RFC 8414 first, then OpenID Connect discovery inserted and appended', () => {
    expect(authorizationServerMetadataUrls('https://auth.example.com')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server',
      'https://auth.example.com/.well-known/openid-configuration',
    ]);
    expect(authorizationServerMetadataUrls('https://auth.example.com/tenant/a/')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server/tenant/a',
      'https://auth.example.com/.well-known/openid-configuration/tenant/a',
      'https://auth.example.com/tenant/a/.well-known/openid-configuration',
    ]);
  });

  it('allows plain HTTP only on loopback unless told otherwise', () => {
    expect(insecureUrlProblem('https://auth.example.com/token')).toBeUndefined();
    expect(insecureUrlProblem('http://127.0.0.1:8080/token')).toBeUndefined();
    expect(insecureUrlProblem('http://localhost/token')).toBeUndefined();
    expect(insecureUrlProblem('http://[::1]:9000/token')).toBeUndefined();
    expect(insecureUrlProblem('http://auth.example.com/token?secret=x')).toBe('http://auth.example.com/token must use https');
    expect(insecureUrlProblem('http://keycloak.auth.svc/token', true)).toBeUndefined();
    expect(insecureUrlProblem('ftp://auth.example.com/')).toBe('ftp://auth.example.com/ must use https');
    expect(insecureUrlProblem('not a url')).toBe('not a valid URL');
  });
});

describe('where a peer may be', () => {
  it('is a public address unless private networks are allowed: never Berth itself, the cluster or a metadata service', async () => {
    let asked = 0;
    const { origin } = await serve((_req, res) => {
      asked += 1;
      json(res, 200, { here: true });
    });
    const port = new URL(origin).port;
    for (const url of [
      `${origin}/`,
      `http://localhost:${port}/`,
      `http://[::1]:${port}/`,
      'https://169.254.169.254/latest',
      'https://10.96.0.1/',
    ]) {
      const error = await rejection(requestJson('GET', url, { timeoutMs: 2_000 }));
      expect(error.kind, url).toMatch(/^(rejected|unreachable)$/);
      expect(error.message, url).toMatch(/is a private or local address|resolves to private or local addresses only/);
    }
    expect(await endpointUnreachable(`${origin}/token`)).toMatch(/private or local address/);
    expect(asked).toBe(0);
    // Allowed, the same peer answers.
    await expect(requestJson('GET', `${origin}/`, local)).resolves.toEqual({ status: 200, body: { here: true } });
    expect(asked).toBe(1);
  });

  it('knows private, local and public addresses apart', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:a00:1',
      '::',
      // IPv6 addresses that carry a private IPv4 one: IPv4-compatible, NAT64's well-known prefix, 6to4.
      '::10.0.0.1',
      '::0.0.0.2',
      '64:ff9b::10.0.0.1',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b::7f00:1',
      '2002:c0a8:101::1',
      '2002:a00:1:0:0:0:0:1',
    ])
      expect(isPrivateAddress(address), address).toBe(true);
    for (const address of ['8.8.8.8', '140.82.112.3', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'])
      expect(isPrivateAddress(address), address).toBe(false);
  });
});

describe('against oidc-provider', () => {
  let server: AuthorizationServer;
  let oidcOnly: AuthorizationServer;
  beforeAll(async () => {
    server = await startAuthorizationServer();
    oidcOnly = await startAuthorizationServer({ oidcDiscoveryOnly: true });
  });
  afterAll(async () => {
    await server?.close();
    await oidcOnly?.close();
  });

  it('discovers the authorization server of an MCP server', async () => {
    const discovered = await discoverProvider(server.mcpServerUrl, local);
    expect(discovered.resource.resource).toBe(server.mcpServerUrl);
    expect(discovered.authorizationServer).toMatchObject({
      issuer: server.issuer,
      token_endpoint: server.tokenEndpoint,
      registration_endpoint: server.registrationEndpoint,
      authorization_endpoint: `${server.issuer}/auth`,
    });
  });

  it('falls back to OpenID Connect discovery when RFC 8414 metadata is not published', async () => {
    const metadata = await fetchAuthorizationServerMetadata(oidcOnly.issuer, local);
    expect(metadata.token_endpoint).toBe(oidcOnly.tokenEndpoint);
    expect(oidcOnly.requests).toEqual(['GET /.well-known/oauth-authorization-server', 'GET /.well-known/openid-configuration']);
  });

  it('registers a client that can get a token', async () => {
    const client = await registerClient(
      server.registrationEndpoint,
      clientRegistrationRequest({ clientName: 'berth test', tokenEndpointAuthMethod: 'client_secret_post' }),
      local,
    );
    expect(client.clientId).toBeTruthy();
    expect(client.clientSecret).toBeTruthy();
    expect(client.registrationAccessToken).toBeTruthy();
    const token = await server.clientCredentialsToken(client.clientId, client.clientSecret!);
    expect(token.status).toBe(200);
    expect(token.body.access_token).toEqual(expect.any(String));
  });

  it("quotes the server's refusal of a registration", async () => {
    const error = await rejection(
      registerClient(
        server.registrationEndpoint,
        {
          ...clientRegistrationRequest({ clientName: 'berth test', tokenEndpointAuthMethod: 'client_secret_post' }),
          redirect_uris: ['not-a-uri'],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
        local,
      ),
    );
    expect(error.status).toBe(400);
    expect(error.message).toMatch(
      /^registration at http:\/\/127\.0\.0\.1:\d+\/reg answered 400 \(invalid_(redirect_uri|client_metadata): .+\)$/,
    );
  });
});

describe('a misbehaving peer', () => {
  it('is refused when its protected-resource metadata names another resource', async () => {
    const { origin } = await serve((_req, res) =>
      json(res, 200, { resource: 'https://elsewhere.example.com/mcp', authorization_servers: ['https://a.example.com'] }),
    );
    const error = await rejection(fetchProtectedResourceMetadata(`${origin}/mcp`, local));
    expect(error.kind).toBe('invalid_response');
    expect(error.message).toContain('names resource https://elsewhere.example.com/mcp');
  });

  it('is read at the root when the path-inserted metadata is missing', async () => {
    const { origin } = await serve((req, res) =>
      req.url === '/.well-known/oauth-protected-resource'
        ? json(res, 200, { resource: origin, authorization_servers: ['https://a.example.com'] })
        : json(res, 404, {}),
    );
    await expect(fetchProtectedResourceMetadata(`${origin}/mcp`, local)).resolves.toMatchObject({
      authorization_servers: ['https://a.example.com'],
    });
  });

  it('is refused when its metadata names another issuer or an insecure endpoint', async () => {
    const { origin: wrongIssuer } = await serve((_req, res) =>
      json(res, 200, { issuer: 'https://evil.example.com', token_endpoint: 'https://evil.example.com/t' }),
    );
    expect((await rejection(fetchAuthorizationServerMetadata(wrongIssuer, local))).message).toContain(
      'names issuer https://evil.example.com',
    );
    const { origin: insecure } = await serve((_req, res) =>
      json(res, 200, { issuer: insecure, token_endpoint: 'http://auth.example.com/token' }),
    );
    expect((await rejection(fetchAuthorizationServerMetadata(insecure, local))).message).toContain(
      'token_endpoint http://auth.example.com/token must use https',
    );
  });

  it('is followed through a redirect only to where Berth would go itself', async () => {
    const { origin } = await serve((req, res) => {
      if (req.url === '/moved') {
        res.writeHead(301, { location: '/here' });
        res.end();
      } else if (req.url === '/to-plain-http') {
        res.writeHead(302, { location: 'http://metadata.internal.example/latest' });
        res.end();
      } else {
        json(res, 200, { here: true });
      }
    });
    await expect(requestJson('GET', `${origin}/moved`, local)).resolves.toEqual({ status: 200, body: { here: true } });
    const error = await rejection(requestJson('GET', `${origin}/to-plain-http`, local));
    expect(error.message).toBe(`GET ${origin}/to-plain-http: redirected to http://metadata.internal.example/latest must use https`);
    const post = await rejection(requestJson('POST', `${origin}/moved`, { json: {}, ...local }));
    expect(post.message).toBe(`POST ${origin}/moved: answered 301, a redirect Berth does not follow`);
  });

  it('is cut off when its answer is too large', async () => {
    const { origin } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"padding":"${'x'.repeat(300 * 1024)}"}`);
    });
    expect((await rejection(requestJson('GET', origin, local))).kind).toBe('too_large');
  });

  it('is given up on when it never answers', async () => {
    const { origin } = await serve(() => {});
    const error = await rejection(requestJson('GET', `${origin}/slow?token=hidden`, { timeoutMs: 200, ...local }));
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe(`GET ${origin}/slow: no complete answer within 200 ms`);
  });

  it('is abandoned, not reported as failing, when the caller gives up', async () => {
    const { origin } = await serve(() => {});
    const caller = new AbortController();
    const pending = requestJson('GET', origin, { signal: caller.signal, ...local });
    caller.abort();
    const error = await pending.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeDefined();
    expect(error).not.toBeInstanceOf(OAuthPeerError);
  });

  it('is reported unreachable when nothing listens, and reachable on any HTTP answer', async () => {
    const { origin, server } = await serve((_req, res) => json(res, 405, { error: 'method_not_allowed' }));
    expect(await endpointUnreachable(`${origin}/token`, local)).toBeUndefined();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    expect(await endpointUnreachable(`${origin}/token`, local)).toBe(`GET ${origin}/token: ECONNREFUSED`);
  });

  it('never has its secret quoted when its registration answer is malformed', async () => {
    const { origin } = await serve((_req, res) => json(res, 201, { client_id: 42, client_secret: 'do-not-print-me' }));
    const error = await rejection(
      registerClient(`${origin}/reg`, clientRegistrationRequest({ clientName: 'x', tokenEndpointAuthMethod: 'client_secret_post' }), local),
    );
    expect(error.message).toBe(`registration at ${origin}/reg answered an invalid client: client_id: expected string`);
    expect(error.message).not.toContain('do-not-print-me');
  });

  it('is refused when it issues no secret to a confidential client', async () => {
    const { origin } = await serve((_req, res) => json(res, 201, { client_id: 'abc' }));
    const error = await rejection(
      registerClient(
        `${origin}/reg`,
        clientRegistrationRequest({ clientName: 'x', tokenEndpointAuthMethod: 'client_secret_basic' }),
        local,
      ),
    );
    expect(error.message).toBe(`registration at ${origin}/reg issued no client_secret for client_secret_basic`);
  });
});
