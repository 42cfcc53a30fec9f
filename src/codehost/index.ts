// Code-host clients: list an integration's repositories and check its credentials.
export type { CodeHostAccount, CodeHostClient, CodeHostLog, Repository } from './repository.ts';
export {
  CodeHostCredentialsError,
  CodeHostError,
  CodeHostNotAllowedError,
  CodeHostNotFoundError,
  CodeHostRateLimitedError,
  CodeHostUnauthorizedError,
  CodeHostUnreachableError,
  redactSecrets,
  type CodeHostErrorReason,
} from './errors.ts';
export { credentialKeys, parseCredentials, secretValues, type CodeHostCredentials, type SecretLike } from './credentials.ts';
export { createGitHubClient, gitHubDefaultBaseUrl } from './github.ts';
export { createGitLabClient, gitLabDefaultBaseUrl } from './gitlab.ts';
export { CoalescingCache } from './coalescing-cache.ts';
export { baseUrlRefusal, originAllowed, publicCodeHostOrigins, sameOriginFetch } from './outbound.ts';
export {
  CodeHostRegistry,
  baseUrlOf,
  createCodeHostClient,
  type ClientFactory,
  type CodeHostRegistryOptions,
  type IntegrationReference,
  type SecretReader,
} from './registry.ts';
