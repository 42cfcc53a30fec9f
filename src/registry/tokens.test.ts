import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  grantedAccess,
  mintOrganizationToken,
  mintPushToken,
  mintUploadToken,
  parseScopes,
  registryToken,
  verifyOrganizationToken,
  verifyPushToken,
  verifyUploadToken,
} from './tokens.ts';

const key = Buffer.alloc(32, 7);
const now = 1_800_000_000;

describe('push tokens', () => {
  it('carry their repository until they expire', () => {
    const token = mintPushToken(key, { repository: 'team-a/shop', deploymentUid: 'uid-1', expiresAt: now + 60 });
    expect(verifyPushToken(key, token, now)).toEqual({ repository: 'team-a/shop', deploymentUid: 'uid-1', expiresAt: now + 60 });
    expect(verifyPushToken(key, token, now + 60)).toBeUndefined();
  });

  it('refuse another key, a changed payload and what is not one', () => {
    const token = mintPushToken(key, { repository: 'team-a/shop', deploymentUid: 'uid-1', expiresAt: now + 60 });
    expect(verifyPushToken(Buffer.alloc(32, 8), token, now)).toBeUndefined();
    const [payload, mac] = token.slice(4).split('.');
    const forged = Buffer.from(JSON.stringify({ r: 'team-b/other', e: now + 60 })).toString('base64url');
    expect(payload).not.toBe(forged);
    expect(verifyPushToken(key, `bpt_${forged}.${mac}`, now)).toBeUndefined();
    for (const junk of ['', 'bpt_', 'bpt_x.y', 'not-a-token', `bpt_${payload}`]) expect(verifyPushToken(key, junk, now)).toBeUndefined();
  });
});

describe('upload tokens', () => {
  const grant = {
    namespace: 'team-a',
    deployment: 'shop',
    deploymentUid: '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b',
    uploadId: 'ab'.repeat(16),
    expiresAt: now + 60,
  };

  it('carry their deployment and upload until they expire', () => {
    const token = mintUploadToken(key, grant);
    expect(verifyUploadToken(key, token, now)).toEqual(grant);
    expect(verifyUploadToken(key, token, now + 60)).toBeUndefined();
    expect(verifyUploadToken(Buffer.alloc(32, 8), token, now)).toBeUndefined();
  });

  it('never verify as a push token, nor a push token as one (the kind is signed too)', () => {
    const upload = mintUploadToken(key, grant);
    const push = mintPushToken(key, { repository: 'team-a/shop', deploymentUid: 'uid-1', expiresAt: now + 60 });
    expect(verifyPushToken(key, `bpt_${upload.slice(4)}`, now)).toBeUndefined();
    expect(verifyUploadToken(key, `bsu_${push.slice(4)}`, now)).toBeUndefined();
  });
});

describe('scopes and grants', () => {
  it('parses repository scopes, names with slashes and ports, several per parameter', () => {
    expect(parseScopes(['repository:team-a/shop:pull,push', 'repository:host:5000/x:pull registry:catalog:*'])).toEqual([
      { type: 'repository', name: 'team-a/shop', actions: ['pull', 'push'] },
      { type: 'repository', name: 'host:5000/x', actions: ['pull'] },
      { type: 'registry', name: 'catalog', actions: ['*'] },
    ]);
    expect(parseScopes(['nonsense'])).toEqual([]);
  });

  it('grants a push credential its repository, an organization its own repositories, and nobody anything else', () => {
    const asked = parseScopes([
      'repository:team-a/shop:pull,push',
      'repository:team-a/shop/sources:pull',
      'repository:team-ab/x:pull',
      'repository:team-b/shop:pull,push',
      'registry:catalog:*',
    ]);
    expect(grantedAccess(asked, { kind: 'push', grant: { repository: 'team-a/shop', deploymentUid: 'uid-1', expiresAt: now } })).toEqual([
      { type: 'repository', name: 'team-a/shop', actions: ['pull', 'push'] },
    ]);
    expect(grantedAccess(asked, { kind: 'organization', grant: { namespace: 'team-a', namespaceUid: 'u' } })).toEqual([
      { type: 'repository', name: 'team-a/shop', actions: ['pull', 'push'] },
      { type: 'repository', name: 'team-a/shop/sources', actions: ['pull'] },
    ]);
    expect(grantedAccess(asked, undefined)).toEqual([]);
  });
});

describe('organization tokens', () => {
  it('carry their namespace and its uid, and never verify as another kind', () => {
    const token = mintOrganizationToken(key, { namespace: 'team-a', namespaceUid: 'uid-1' });
    expect(verifyOrganizationToken(key, token, now)).toEqual({ namespace: 'team-a', namespaceUid: 'uid-1' });
    expect(mintOrganizationToken(key, { namespace: 'team-a', namespaceUid: 'uid-1' })).toBe(token);
    expect(verifyOrganizationToken(Buffer.alloc(32, 8), token, now)).toBeUndefined();
    expect(verifyPushToken(key, `bpt_${token.slice(4)}`, now)).toBeUndefined();
    expect(
      verifyOrganizationToken(
        key,
        `bor_${mintPushToken(key, { repository: 'team-a/shop', deploymentUid: 'uid-1', expiresAt: now + 60 }).slice(4)}`,
        now,
      ),
    ).toBeUndefined();
  });
});

describe('registryToken', () => {
  it('is an ES256 JWT with the certificate as x5c, one audience and the granted access, verifiable with the key', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const der = Buffer.from('certificate');
    const access = [{ type: 'repository', name: 'team-a/shop', actions: ['pull'] }];
    const token = registryToken({
      issuer: 'berth',
      service: 'berth-registry',
      subject: 'anonymous',
      access,
      nowSeconds: now,
      ttlSeconds: 300,
      key: privateKey,
      certificateDer: der,
    });
    const [header, claims, signature] = token.split('.') as [string, string, string];
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ typ: 'JWT', alg: 'ES256', x5c: [der.toString('base64')] });
    expect(JSON.parse(Buffer.from(claims, 'base64url').toString())).toMatchObject({
      iss: 'berth',
      aud: 'berth-registry',
      sub: 'anonymous',
      exp: now + 300,
      iat: now,
      access,
    });
    const ok = verify(
      'sha256',
      Buffer.from(`${header}.${claims}`),
      { key: createPublicKey(publicKey.export({ format: 'pem', type: 'spki' })), dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature, 'base64url'),
    );
    expect(ok).toBe(true);
  });
});

describe('remote input, fuzzed', () => {
  const scopeText = fc.oneof(
    fc.string({ maxLength: 80 }),
    fc
      .tuple(
        fc.constantFrom('repository', 'registry', 'repository ', ''),
        fc.constantFrom('team-a', 'team-ab', 'team-b', 'team-a/', '', '../team-b', 'team-a/../team-b'),
        fc.string({ maxLength: 20 }),
        fc.array(fc.constantFrom('pull', 'push', '*', 'delete', ''), { maxLength: 4 }),
      )
      .map(([type, prefix, rest, actions]) => `${type}:${prefix}${rest}:${actions.join(',')}`),
  );

  it("grants an organization only its own repositories' pull and push, whatever scopes are asked", () => {
    fc.assert(
      fc.property(fc.array(scopeText, { maxLength: 8 }), (scopes) => {
        const asked = parseScopes(scopes);
        for (const granted of grantedAccess(asked, { kind: 'organization', grant: { namespace: 'team-a', namespaceUid: 'u' } })) {
          expect(granted.type).toBe('repository');
          expect(granted.name.startsWith('team-a/')).toBe(true);
          expect(granted.actions.every((action) => action === 'pull' || action === 'push')).toBe(true);
        }
        expect(grantedAccess(asked, undefined)).toEqual([]);
      }),
    );
  });

  it('verifies no token it did not sign: any text, and any one-character change of a real one', () => {
    const real = [
      mintPushToken(key, { repository: 'team-a/shop', deploymentUid: 'uid-1', expiresAt: now + 60 }),
      mintOrganizationToken(key, { namespace: 'team-a', namespaceUid: 'u' }),
      mintUploadToken(key, { namespace: 'team-a', deployment: 'shop', deploymentUid: 'd', uploadId: 'i', expiresAt: now + 60 }),
    ];
    const verifiers = [verifyPushToken, verifyOrganizationToken, verifyUploadToken];
    // A lenient base64 decoder read these as the real signature: a trailing segment, and a last character
    // that differs only in the bits base64 leaves unused.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (const token of real) {
      const sibling = alphabet[alphabet.indexOf(token.at(-1)!) ^ 1]!;
      for (const forged of [`${token}.x`, token.slice(0, -1) + sibling])
        for (const verifyToken of verifiers) expect(verifyToken(key, forged, now)).toBeUndefined();
    }
    const changed = fc
      .tuple(fc.constantFrom(...real), fc.nat(), fc.string({ minLength: 1, maxLength: 1 }))
      .map(([token, at, char]) => token.slice(0, at % token.length) + char + token.slice((at % token.length) + 1))
      .filter((token) => !real.includes(token));
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 200 }), changed), (token) => {
        for (const verifyToken of verifiers) expect(verifyToken(key, token, now)).toBeUndefined();
      }),
    );
  });
});
