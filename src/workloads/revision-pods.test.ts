import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { podView } from './revision-pods.ts';

describe('podView', () => {
  it('keeps identity, labels and the container states; drops the spec but for container names', () => {
    const full = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'ns', uid: 'u', labels: { a: 'b' }, managedFields: [{}], annotations: { big: 'x'.repeat(100) } },
      spec: { containers: [{ name: 'app', image: 'i', env: [{ name: 'A', value: 'secret' }] }] },
      status: {
        phase: 'Running',
        podIP: '10.0.0.1',
        containerStatuses: [{ name: 'app', ready: true, restartCount: 0, image: 'i', imageID: 'd', state: { running: {} }, lastState: {} }],
      },
    };
    const view = podView(structuredClone(full)) as V1Pod;
    expect(view.metadata).toEqual({
      name: 'p',
      namespace: 'ns',
      uid: 'u',
      labels: { a: 'b' },
      creationTimestamp: undefined,
      resourceVersion: undefined,
    });
    expect(view.spec).toEqual({ containers: [{ name: 'app' }] });
    expect(JSON.stringify(view)).not.toContain('secret');
    expect(view.status?.containerStatuses?.[0]?.state).toEqual({ running: {} });
  });
});
