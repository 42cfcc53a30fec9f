// `berth dev`'s access: an organization namespace and a key, made idempotently, that the facade accepts.
import { randomBytes } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureDevAccess, uuidFromName } from '../workbench/dev-access.ts';
import { startFacade } from '../src/facade/start.ts';
import { eventually } from '../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from './support/cluster.ts';
import { pino } from 'pino';

const kc = testKubeConfig();
const core = kc.makeApiClient(CoreV1Api);

describe('ensureDevAccess', () => {
  it('labels the namespace, stores the key hashed, and the facade serves the key', async () => {
    const operatorNamespace = await useNamespace('berth-op');
    const namespace = `dev-org-${randomBytes(3).toString('hex')}`;
    afterAll(() => core.deleteNamespace({ name: namespace }).catch(() => {}));
    const first = await ensureDevAccess(kc, { operatorNamespace, namespace });
    const again = await ensureDevAccess(kc, { operatorNamespace, namespace, key: first.key });
    expect(again).toEqual(first);
    expect(first.organizationId).toBe(uuidFromName(namespace));
    expect(first.organizationId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const labelled = await core.readNamespace({ name: namespace });
    expect(labelled.metadata?.labels?.['berth.dev/organization-id']).toBe(first.organizationId);
    const secrets = (await core.listNamespacedSecret({ namespace: operatorNamespace, labelSelector: 'berth.dev/api-key=true' })).items;
    expect(secrets).toHaveLength(1);
    expect(JSON.stringify(secrets)).not.toContain(first.key);

    const facade = await startFacade({ kubeConfig: kc, operatorNamespace, port: 0, host: '127.0.0.1', logger: pino({ level: 'silent' }) });
    try {
      const response = await eventually(
        async () => {
          const answer = await fetch(`${facade.url}/v2/deployments`, { headers: { 'x-api-key': first.key } });
          return answer.status === 200 && answer;
        },
        10_000,
        'the key to be accepted',
      );
      expect(await response.json()).toEqual({ resources: [], offset: 0 });
    } finally {
      await facade.close();
    }
  });
});
