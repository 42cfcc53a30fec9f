// RFC 9728: an OAuth protected resource (an MCP server) publishes which authorization servers issue
// tokens for it. Berth reads that document to find where to register and where tokens come from.
import { z } from 'zod';
import { OAuthPeerError, describeOAuthErrorBody, describeUrl, insecureUrlProblem, requestJson, type PeerRequestOptions } from './http.ts';
import { describeIssues } from './validation.ts';

const protectedResourceMetadataSchema = z.looseObject({
  resource: z.string().min(1),
  authorization_servers: z.array(z.string().min(1)).min(1),
  scopes_supported: z.array(z.string()).optional(),
  bearer_methods_supported: z.array(z.string()).optional(),
});

export type ProtectedResourceMetadata = z.infer<typeof protectedResourceMetadataSchema>;

/** A resource identifier compared as RFC 9728 compares them, bar a trailing slash. */
function normalizeResource(resource: string): string {
  return resource.replace(/\/+$/, '');
}

export interface MetadataCandidate {
  url: string;
  /** The resource identifiers the document may name when found at this URL. */
  acceptedResources: string[];
}

/**
 * Where the metadata of `resourceUrl` may live, in the order clients look: the well-known path
 * inserted before the resource's path (RFC 9728 section 3.1), then at the origin's root, which MCP
 * servers commonly use and which names either the origin or the full URL as its resource.
 */
export function protectedResourceMetadataCandidates(resourceUrl: string): MetadataCandidate[] {
  const url = new URL(resourceUrl);
  const path = url.pathname.replace(/\/+$/, '');
  const exact = normalizeResource(`${url.origin}${path}`);
  const root: MetadataCandidate = {
    url: `${url.origin}/.well-known/oauth-protected-resource`,
    acceptedResources: [...new Set([exact, url.origin])],
  };
  if (!path) return [root];
  return [{ url: `${url.origin}/.well-known/oauth-protected-resource${path}`, acceptedResources: [exact] }, root];
}

/**
 * Reads the protected-resource metadata of `resourceUrl`. The document must name the resource it was
 * fetched for (RFC 9728 section 3.3): otherwise anyone able to serve a file on that host could send
 * Berth's registrations elsewhere.
 */
export async function fetchProtectedResourceMetadata(
  resourceUrl: string,
  options: PeerRequestOptions = {},
): Promise<ProtectedResourceMetadata> {
  const problem = insecureUrlProblem(resourceUrl, options.allowHttp);
  if (problem) throw new OAuthPeerError('rejected', `mcpServerUrl: ${problem}`);
  const tried: string[] = [];
  for (const candidate of protectedResourceMetadataCandidates(resourceUrl)) {
    const response = await requestJson('GET', candidate.url, options);
    if (response.status === 404 || response.status === 405 || response.status === 410) {
      tried.push(`${describeUrl(candidate.url)} answered ${response.status}`);
      continue;
    }
    if (response.status !== 200) {
      const detail = describeOAuthErrorBody(response.body);
      throw new OAuthPeerError(
        'http_status',
        `GET ${describeUrl(candidate.url)} answered ${response.status}${detail ? ` (${detail})` : ''}`,
        response.status,
      );
    }
    const parsed = protectedResourceMetadataSchema.safeParse(response.body);
    if (!parsed.success) {
      throw new OAuthPeerError(
        'invalid_response',
        `protected-resource metadata at ${describeUrl(candidate.url)} is invalid: ${describeIssues(parsed.error)}`,
      );
    }
    if (!candidate.acceptedResources.includes(normalizeResource(parsed.data.resource))) {
      throw new OAuthPeerError(
        'invalid_response',
        `protected-resource metadata at ${describeUrl(candidate.url)} names resource ${describeUrl(parsed.data.resource)}, not ${describeUrl(resourceUrl)}`,
      );
    }
    return parsed.data;
  }
  throw new OAuthPeerError('http_status', `no protected-resource metadata for ${describeUrl(resourceUrl)}: ${tried.join('; ')}`, 404);
}
