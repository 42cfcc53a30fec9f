// From an MCP server's URL to the authorization server that guards it: RFC 9728 names the issuer,
// RFC 8414 (or OIDC discovery) describes it. The first authorization server listed is the one used.
import { fetchAuthorizationServerMetadata, type AuthorizationServerMetadata } from './authorization-server.ts';
import type { PeerRequestOptions } from './http.ts';
import { fetchProtectedResourceMetadata, type ProtectedResourceMetadata } from './protected-resource.ts';

export interface DiscoveredProvider {
  resource: ProtectedResourceMetadata;
  authorizationServer: AuthorizationServerMetadata;
}

export async function discoverProvider(mcpServerUrl: string, options: PeerRequestOptions = {}): Promise<DiscoveredProvider> {
  const resource = await fetchProtectedResourceMetadata(mcpServerUrl, options);
  const issuer = resource.authorization_servers[0]!;
  const authorizationServer = await fetchAuthorizationServerMetadata(issuer, options);
  return { resource, authorizationServer };
}
