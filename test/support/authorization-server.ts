// A real OAuth 2.0 authorization server for the OAuth suites: oidc-provider (an OpenID Certified
// implementation) on loopback with dynamic client registration (RFC 7591) and the client_credentials
// grant, so a client Berth registers can prove it works by getting a token. Beside it, a stand-in
// "MCP server" that answers only what discovery reads: its protected-resource metadata (RFC 9728)
// and a 401 with the WWW-Authenticate hint for everything else.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AuthorizationServer {
  /** The issuer: oidc-provider serves its metadata at `${issuer}/.well-known/openid-configuration`. */
  issuer: string;
  tokenEndpoint: string;
  registrationEndpoint: string;
  /** The protected resource ("MCP server") whose metadata names `issuer` as its authorization server. */
  mcpServerUrl: string;
  /** Every request either server answered, as `METHOD /path`, so tests can count registrations. */
  requests: string[];
  /** Requests a client_credentials token (client_secret_post unless told); answers the HTTP status and body. */
  clientCredentialsToken(
    clientId: string,
    clientSecret: string,
    method?: 'client_secret_post' | 'client_secret_basic',
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

// oidc-provider ships no typings; this is the part of its surface the harness uses.
interface OidcProvider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
}
type OidcProviderConstructor = new (issuer: string, configuration: Record<string, unknown>) => OidcProvider;

async function loadOidcProvider(): Promise<OidcProviderConstructor> {
  const specifier: string = 'oidc-provider';
  const module = (await import(specifier)) as { default: OidcProviderConstructor };
  return module.default;
}

function listenOnLoopback(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve(`http://127.0.0.1:${port}`);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

export interface AuthorizationServerOptions {
  /** Answer 404 at RFC 8414's well-known path, like the many providers that publish OIDC discovery only. */
  oidcDiscoveryOnly?: boolean;
  /** Token endpoint auth methods the server accepts (and advertises). Default: oidc-provider's. */
  clientAuthMethods?: string[];
}

export async function startAuthorizationServer(options: AuthorizationServerOptions = {}): Promise<AuthorizationServer> {
  const requests: string[] = [];
  const Provider = await loadOidcProvider();

  const authServer = createServer();
  const issuer = await listenOnLoopback(authServer);
  // A fresh signing key per run keeps oidc-provider off its development keys (and their warning).
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
    },
    clientBasedCORS: () => true,
    ...(options.clientAuthMethods ? { clientAuthMethods: options.clientAuthMethods } : {}),
    ttl: { ClientCredentials: 600 },
  });
  const handle = provider.callback();
  authServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    requests.push(`${req.method} ${path}`);
    if (options.oidcDiscoveryOnly && path.startsWith('/.well-known/oauth-authorization-server')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'not_found' }));
      return;
    }
    handle(req, res);
  });

  const resourceServer = createServer();
  const resourceOrigin = await listenOnLoopback(resourceServer);
  const mcpServerUrl = `${resourceOrigin}/mcp`;
  const metadataPath = '/.well-known/oauth-protected-resource/mcp';
  resourceServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', resourceOrigin).pathname;
    requests.push(`${req.method} ${path}`);
    if (req.method === 'GET' && path === metadataPath) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ resource: mcpServerUrl, authorization_servers: [issuer], bearer_methods_supported: ['header'] }));
      return;
    }
    res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${resourceOrigin}${metadataPath}"` });
    res.end();
  });

  const tokenEndpoint = `${issuer}/token`;
  return {
    issuer,
    tokenEndpoint,
    registrationEndpoint: `${issuer}/reg`,
    mcpServerUrl,
    requests,
    async clientCredentialsToken(clientId, clientSecret, method = 'client_secret_post') {
      const form = new URLSearchParams({ grant_type: 'client_credentials' });
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
      if (method === 'client_secret_basic') {
        // RFC 6749 section 2.3.1: both parts form-urlencoded before base64.
        const user = `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`;
        headers.authorization = `Basic ${Buffer.from(user).toString('base64')}`;
      } else {
        form.set('client_id', clientId);
        form.set('client_secret', clientSecret);
      }
      const response = await fetch(tokenEndpoint, { method: 'POST', headers, body: form });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    async close() {
      await Promise.all([closeServer(authServer), closeServer(resourceServer)]);
    },
  };
}
