import { describe, expect, it } from 'vitest';
import { berthOwnSecretReference } from './berth-own-secrets.ts';

describe('berthOwnSecretReference', () => {
  it("finds Berth's own Secrets wherever a pod part names a Secret, and nothing else", () => {
    const licence = 'berth-agent-server-license';
    expect(
      berthOwnSecretReference({
        queueWorker: {
          env: [
            { name: 'A', value: 'x' },
            { name: 'K', valueFrom: { secretKeyRef: { name: licence, key: 'k' } } },
          ],
        },
      }),
    ).toEqual(['queueWorker', 'env', 1, 'valueFrom', 'secretKeyRef', 'name']);
    expect(berthOwnSecretReference({ resourceSpec: { sidecars: [{ envFrom: [{ secretRef: { name: 'berth-organization' } }] }] } })).toEqual(
      ['resourceSpec', 'sidecars', 0, 'envFrom', 0, 'secretRef', 'name'],
    );
    expect(berthOwnSecretReference({ volumes: [{ name: 'v', secret: { secretName: 'berth-organization' } }] })).toEqual([
      'volumes',
      0,
      'secret',
      'secretName',
    ]);
    expect(berthOwnSecretReference({ volumes: [{ projected: { sources: [{ secret: { name: licence } }] } }] })).toEqual([
      'volumes',
      0,
      'projected',
      'sources',
      0,
      'secret',
      'name',
    ]);
    // A team's own Secrets, and Berth's names where they name no Secret, are fine.
    expect(
      berthOwnSecretReference({ volumes: [{ name: 'berth-organization', secret: { secretName: 'team' } }], labels: { secret: licence } }),
    ).toBeUndefined();
  });
});
