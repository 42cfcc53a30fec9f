// Reads a code host's credentials out of a Kubernetes Secret. Pure: the Secret comes in, a typed
// credential or a CodeHostCredentialsError naming the Secret and the missing key comes out, and no
// message ever quotes a value.
import { createPrivateKey } from 'node:crypto';
import { codeHostCredentialKeys as credentialKeys } from '../api/codehost-integration.ts';
import { CodeHostCredentialsError } from './errors.ts';

export { credentialKeys };

/** The parts of a Secret read here; a V1Secret or an informer's read-only copy of one. */
export interface SecretLike {
  readonly metadata?: { readonly name?: string; readonly uid?: string; readonly resourceVersion?: string };
  readonly data?: Readonly<Record<string, string>>;
  readonly stringData?: Readonly<Record<string, string>>;
}

export type CodeHostCredentials =
  { kind: 'token'; token: string } | { kind: 'app'; appId: string; privateKey: string; installationId: number };

/** The Secret's values as text (`data` is base64 on the wire; `stringData` is honoured for objects not yet stored). */
export function secretValues(secret: SecretLike): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, encoded] of Object.entries(secret.data ?? {})) values[key] = Buffer.from(encoded, 'base64').toString('utf8');
  for (const [key, value] of Object.entries(secret.stringData ?? {})) values[key] = value;
  return values;
}

/**
 * A Secret holds either `token` (a personal or project access token) or the three keys of a GitHub
 * App installation: `appId`, `privateKey` (PEM, as GitHub issues it) and `installationId`.
 */
export function parseCredentials(secretName: string, values: Record<string, string>): CodeHostCredentials {
  const present = (key: string) => (values[key] ?? '').trim() !== '';
  if (present(credentialKeys.token)) return { kind: 'token', token: values[credentialKeys.token]!.trim() };

  const appKeys = [credentialKeys.appId, credentialKeys.privateKey, credentialKeys.installationId];
  if (!appKeys.some(present)) {
    throw new CodeHostCredentialsError(
      `Secret "${secretName}" has no key "${credentialKeys.token}" (nor "${appKeys.join('", "')}" for a GitHub App)`,
    );
  }
  const missing = appKeys.filter((key) => !present(key));
  if (missing.length > 0) {
    throw new CodeHostCredentialsError(
      `Secret "${secretName}" is missing key${missing.length > 1 ? 's' : ''} "${missing.join('", "')}" for a GitHub App`,
    );
  }
  const appId = values[credentialKeys.appId]!.trim();
  if (!/^(\d+|Iv[0-9a-zA-Z.]+)$/.test(appId)) {
    throw new CodeHostCredentialsError(`Secret "${secretName}" key "${credentialKeys.appId}" is not a GitHub App ID or client ID`);
  }
  const installationId = Number(values[credentialKeys.installationId]!.trim());
  if (!Number.isSafeInteger(installationId) || installationId <= 0) {
    throw new CodeHostCredentialsError(`Secret "${secretName}" key "${credentialKeys.installationId}" is not a positive integer`);
  }
  // Keys pasted into an environment variable often carry "\n" literally; GitHub's tooling accepts both.
  const privateKey = values[credentialKeys.privateKey]!.replace(/\\n/g, '\n').trim();
  if (!isRsaPrivateKey(privateKey)) {
    throw new CodeHostCredentialsError(`Secret "${secretName}" key "${credentialKeys.privateKey}" is not a PEM-encoded RSA private key`);
  }
  return { kind: 'app', appId, privateKey, installationId };
}

/** Every value in the credentials that must never appear in a message. */
export function secretsOf(credentials: CodeHostCredentials): string[] {
  return credentials.kind === 'token' ? [credentials.token] : [credentials.privateKey];
}

function isRsaPrivateKey(pem: string): boolean {
  try {
    return createPrivateKey(pem).asymmetricKeyType === 'rsa';
  } catch {
    // Anything that is no key throws; the caller's message names the Secret key instead of quoting it.
    return false;
  }
}
