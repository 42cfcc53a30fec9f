import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseCredentials, secretValues } from './credentials.ts';
import { CodeHostCredentialsError } from './errors.ts';

const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});

function failure(values: Record<string, string>): CodeHostCredentialsError {
  try {
    parseCredentials('gh-creds', values);
  } catch (error) {
    return error as CodeHostCredentialsError;
  }
  throw new Error('expected parseCredentials to fail');
}

describe('parseCredentials', () => {
  it('reads a token, trimming the newline `echo` leaves', () => {
    expect(parseCredentials('gh-creds', { token: 'ghp_abc123\n' })).toEqual({ kind: 'token', token: 'ghp_abc123' });
  });

  it('reads the three keys of a GitHub App, with a key whose line breaks were escaped', () => {
    const escaped = privateKey.replace(/\n/g, '\\n');
    expect(parseCredentials('gh-creds', { appId: '123', privateKey: escaped, installationId: '456' })).toEqual({
      kind: 'app',
      appId: '123',
      privateKey: privateKey.trim(),
      installationId: 456,
    });
  });

  it.each([
    [{}, 'Secret "gh-creds" has no key "token" (nor "appId", "privateKey", "installationId" for a GitHub App)'],
    [{ token: '  ' }, 'Secret "gh-creds" has no key "token" (nor "appId", "privateKey", "installationId" for a GitHub App)'],
    [{ appId: '1' }, 'Secret "gh-creds" is missing keys "privateKey", "installationId" for a GitHub App'],
    [{ appId: '1', privateKey, installationId: 'twelve' }, 'Secret "gh-creds" key "installationId" is not a positive integer'],
    [{ appId: 'my app', privateKey, installationId: '1' }, 'Secret "gh-creds" key "appId" is not a GitHub App ID or client ID'],
    [
      { appId: '1', privateKey: 'hunter2-not-a-key', installationId: '1' },
      'Secret "gh-creds" key "privateKey" is not a PEM-encoded RSA private key',
    ],
  ])('rejects %j with a message naming the Secret and the key', (values, message) => {
    const error = failure(values);
    expect(error).toBeInstanceOf(CodeHostCredentialsError);
    expect(error.reason).toBe('InvalidCredentials');
    expect(error.message).toBe(message);
    expect(error.message).not.toContain('hunter2');
  });
});

describe('secretValues', () => {
  it('decodes data and lets stringData win', () => {
    const secret = {
      data: { token: Buffer.from('from-data').toString('base64'), appId: Buffer.from('1').toString('base64') },
      stringData: { token: 'from-string-data' },
    };
    expect(secretValues(secret)).toEqual({ token: 'from-string-data', appId: '1' });
  });
});
