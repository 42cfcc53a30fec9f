// What the CRD schema cannot say about an OAuthProvider. Each problem needs a change to the spec, so
// a provider with one is Stalled rather than retried.
import type { OAuthProviderSpec } from '../../api/index.ts';
import { insecureUrlProblem } from '../../oauth/http.ts';
import { needsClientSecret } from '../../oauth/registration.ts';

export interface SpecProblem {
  reason: string;
  message: string;
}

export function specProblems(spec: OAuthProviderSpec, options: { allowHttp?: boolean } = {}): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const method = spec.tokenEndpointAuthMethod ?? 'client_secret_post';
  if (method === 'none' && !spec.usesPkce) {
    // A public client has no secret: PKCE is all that binds the code to the client that asked for it.
    problems.push({ reason: 'PublicClientWithoutPkce', message: 'tokenEndpointAuthMethod none (a public client) requires usesPkce: true' });
  }
  if (needsClientSecret(method) && !spec.isDynamicClient && !spec.clientSecretRef) {
    problems.push({ reason: 'ClientSecretRefMissing', message: `tokenEndpointAuthMethod ${method} requires spec.clientSecretRef` });
  }
  if (spec.isDynamicClient && !spec.mcpServerUrl) {
    problems.push({
      reason: 'McpServerUrlMissing',
      message: 'isDynamicClient requires spec.mcpServerUrl, where the authorization server is discovered',
    });
  }
  for (const field of ['authUrl', 'tokenUrl', 'mcpServerUrl'] as const) {
    const url = spec[field];
    const problem = url === undefined ? undefined : insecureUrlProblem(url, options.allowHttp);
    if (problem) problems.push({ reason: 'InsecureUrl', message: `spec.${field}: ${problem}` });
  }
  return problems;
}
