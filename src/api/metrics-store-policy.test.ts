import { describe, expect, it } from 'vitest';
import { metricsStoreService, renderMetricsStorePolicy } from './metrics-store-policy.ts';

describe('the metrics store a URL names', () => {
  it('is a cluster Service when the host is <service>.<namespace>, with or without .svc and the domain', () => {
    for (const url of [
      'http://vmsingle.monitoring:8428',
      'http://vmsingle.monitoring.svc:8428',
      'https://user:secret@vmsingle.monitoring.svc.cluster.local/prometheus',
    ])
      expect(metricsStoreService(url), url).toEqual({ namespace: 'monitoring', name: 'vmsingle' });
  });

  it('is none for an address, a bare name, a host outside the cluster or no URL', () => {
    for (const url of [
      'http://10.0.0.7:9090',
      'http://prometheus:9090',
      'https://metrics.example.com',
      'http://[fd00::1]:9090',
      'not a url',
    ])
      expect(metricsStoreService(url), url).toBeUndefined();
  });
});

describe("the store's NetworkPolicy", () => {
  it("admits every namespace but the organizations' and the build namespace to the Service's pods", () => {
    const policy = renderMetricsStorePolicy({ namespace: 'monitoring', selector: { app: 'vmsingle' }, buildNamespace: 'berth-builds' });
    expect(policy.metadata).toMatchObject({ name: 'berth-metrics-store', namespace: 'monitoring' });
    expect(policy.spec).toEqual({
      podSelector: { matchLabels: { app: 'vmsingle' } },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [
            {
              namespaceSelector: {
                matchExpressions: [
                  { key: 'berth.dev/organization-id', operator: 'DoesNotExist' },
                  { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['berth-builds'] },
                ],
              },
            },
          ],
        },
      ],
    });
  });

  it('keeps organizations out alone when builds run beside their apps', () => {
    const policy = renderMetricsStorePolicy({ namespace: 'monitoring', selector: { app: 'vmsingle' } });
    expect(JSON.stringify(policy.spec)).not.toContain('NotIn');
  });
});
