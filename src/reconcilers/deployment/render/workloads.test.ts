import type { V1Deployment, V1Ingress } from '@kubernetes/client-node';
import { parseAppUrlTemplate, type AppUrlTemplate } from '../../../api/index.ts';
import { describe, expect, it } from 'vitest';
import type { DeploymentSpecInput } from './spec.ts';
import { renderWorkloads } from './workloads.ts';

const owner = { name: 'shop', namespace: 'ns', uid: 'uid-1' };
const settings = {
  applicationPort: 8000,
  images: { postgres: 'postgres:16', redis: 'redis:7' },
  requestScale: 1,
  progressDeadlineSeconds: 600,
};
const serving = { name: 'shop-aaaaaaaaaa', image: 'nginx:1' };

const kinds = (spec: DeploymentSpecInput, withServing = true) =>
  renderWorkloads({ owner, spec, settings, ...(withServing ? { serving } : {}) }).map((o) => `${o.kind}/${o.metadata?.name}`);

describe('renderWorkloads', () => {
  it.each([
    ['an image with defaults', { source: 'external_docker' }, true, ['Service/shop', 'Deployment/shop', 'HorizontalPodAutoscaler/shop']],
    [
      'scaled to zero',
      { source: 'external_docker', sourceConfig: { resourceSpec: { maxScale: 0 } } },
      true,
      ['Service/shop', 'Deployment/shop'],
    ],
    [
      'a queue worker (with its broker)',
      { source: 'external_docker', sourceConfig: { resourceSpec: { queueMaxScale: 2 } } },
      true,
      [
        'Service/shop',
        'Deployment/shop',
        'HorizontalPodAutoscaler/shop',
        'Deployment/shop-queue',
        'HorizontalPodAutoscaler/shop-queue',
        'Deployment/shop-redis',
        'Service/shop-redis',
      ],
    ],
    [
      'a codehost application before its first build',
      { source: 'codehost' },
      false,
      ['Service/shop', 'StatefulSet/shop-postgres', 'Service/shop-postgres'],
    ],
    [
      'a custom URL',
      { source: 'external_docker', sourceConfig: { customUrl: 'https://shop.example.com' } },
      true,
      ['Service/shop', 'Deployment/shop', 'HorizontalPodAutoscaler/shop', 'Ingress/shop'],
    ],
  ])('%s', (_, spec, withServing, expected) => {
    expect(kinds(spec as DeploymentSpecInput, withServing)).toEqual(expected);
  });

  it("routes the deployment's own host and its custom URL: HTTPRoutes on a Gateway, else one Ingress", () => {
    const appUrls = parseAppUrlTemplate('http://{deployment}.{organization}.localhost:18080/') as AppUrlTemplate;
    const spec: DeploymentSpecInput = { source: 'external_docker', sourceConfig: { customUrl: 'https://shop.example.com/store' } };
    const gateway = { namespace: 'gw', name: 'public' };
    const routes = renderWorkloads({ owner, spec, settings: { ...settings, appUrls, gateway }, serving }).filter(
      (o) => o.kind === 'HTTPRoute',
    );
    expect(routes.map((route) => [route.metadata?.name, (route as { spec?: unknown }).spec])).toEqual([
      [
        'shop',
        {
          parentRefs: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: 'gw', name: 'public' }],
          hostnames: ['shop.ns.localhost'],
          rules: [
            {
              matches: [{ path: { type: 'PathPrefix', value: '/' } }],
              backendRefs: [{ group: '', kind: 'Service', name: 'shop', port: 80, weight: 1 }],
            },
          ],
        },
      ],
      ['shop-custom', expect.objectContaining({ hostnames: ['shop.example.com'] })],
    ]);
    const ingress = renderWorkloads({ owner, spec, settings: { ...settings, appUrls }, serving }).filter((o) => o.kind === 'Ingress');
    expect(ingress.map((o) => (o as V1Ingress).spec!.rules!.map((rule) => [rule.host, rule.http!.paths[0]!.path]))).toEqual([
      [
        ['shop.ns.localhost', '/'],
        ['shop.example.com', '/store'],
      ],
    ]);
  });

  describe('a dev_zero app where the installation has an activator', () => {
    const appUrls = parseAppUrlTemplate('http://{deployment}.{organization}.localhost:18080/') as AppUrlTemplate;
    const gateway = { namespace: 'gw', name: 'public' };
    const activator = { proxy: { namespace: 'keda', name: 'interceptor-proxy', port: 8080 }, scalerAddress: 'scaler.keda:9090' };
    const zero = (spec: Partial<DeploymentSpecInput['sourceConfig']>, rollingOut = false) =>
      renderWorkloads({
        owner,
        spec: { source: 'external_docker', sourceConfig: { deploymentType: 'dev_zero', ...spec } },
        settings: { ...settings, appUrls, gateway, activator },
        serving,
        rollingOut,
      });

    it('routes its hosts to the activator and scales from zero on the requests it counts', () => {
      const objects = zero({ customUrl: 'https://shop.example.com/store', resourceSpec: { maxScale: 3 } });
      expect(objects.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual([
        'Service/shop',
        'Deployment/shop',
        'HTTPScaledObject/shop',
        'ScaledObject/shop',
        'HTTPRoute/shop',
        'HTTPRoute/shop-custom',
      ]);
      const spec = (kind: string) => (objects.find((o) => o.kind === kind) as unknown as { spec: Record<string, unknown> }).spec;
      expect(spec('HTTPScaledObject')).toEqual({
        hosts: ['shop.ns.localhost', 'shop.example.com'],
        pathPrefixes: ['/', '/store'],
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop', service: 'shop', port: 80 },
        replicas: { min: 0, max: 3 },
        scaledownPeriod: 60,
        scalingMetric: { concurrency: { targetValue: 10 } },
      });
      expect(spec('ScaledObject')).toMatchObject({
        minReplicaCount: 0,
        maxReplicaCount: 3,
        advanced: { horizontalPodAutoscalerConfig: { name: 'shop' } },
        triggers: [{ type: 'external-push', metadata: { scalerAddress: 'scaler.keda:9090', httpScaledObject: 'shop' } }],
      });
      for (const route of objects.filter((o) => o.kind === 'HTTPRoute'))
        expect((route as unknown as { spec: { rules: { backendRefs: unknown[] }[] } }).spec.rules[0]!.backendRefs).toEqual([
          { group: '', kind: 'Service', namespace: 'keda', name: 'interceptor-proxy', port: 8080, weight: 1 },
        ]);
    });

    it('keeps one replica while a new revision rolls out, so that it shows it starts before it is DEPLOYED', () => {
      const minimum = (rollingOut: boolean) =>
        (
          zero({ resourceSpec: { maxScale: 2 } }, rollingOut).find((o) => o.kind === 'ScaledObject') as unknown as {
            spec: { minReplicaCount: number };
          }
        ).spec.minReplicaCount;
      expect([minimum(true), minimum(false)]).toEqual([1, 0]);
    });

    it("scales a serverless app (the newer clients' default tier) to zero as dev_zero", () => {
      const serverless = renderWorkloads({
        owner,
        spec: { source: 'external_docker', sourceConfig: { deploymentType: 'serverless', resourceSpec: { maxScale: 3 } } },
        settings: { ...settings, appUrls, gateway, activator },
        serving,
      });
      expect(serverless.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual(
        zero({ resourceSpec: { maxScale: 3 } }).map((o) => `${o.kind}/${o.metadata?.name}`),
      );
    });

    it('runs as dev without a URL for the activator to hold, and with maxScale 0 runs nothing', () => {
      const unrouted = renderWorkloads({
        owner,
        spec: { source: 'external_docker', sourceConfig: { deploymentType: 'dev_zero' } },
        settings: { ...settings, gateway, activator },
        serving,
      });
      expect(unrouted.map((o) => o.kind)).toEqual(['Service', 'Deployment', 'HorizontalPodAutoscaler']);
      expect(zero({ resourceSpec: { maxScale: 0 } }).map((o) => o.kind)).toEqual(['Service', 'Deployment', 'HTTPRoute']);
      const dev = renderWorkloads({
        owner,
        spec: { source: 'external_docker', sourceConfig: { deploymentType: 'dev' } },
        settings: { ...settings, appUrls, gateway, activator },
        serving,
      });
      expect(dev.map((o) => o.kind)).toEqual(['Service', 'Deployment', 'HorizontalPodAutoscaler', 'HTTPRoute']);
    });
  });

  it('keeps at least two API replicas of a dedicated app, more when its minScale asks', () => {
    // The replica count is the autoscaler's (the Deployment sends none).
    const bounds = (deploymentType: 'dedicated' | 'dev', resourceSpec: Record<string, number>) => {
      const objects = renderWorkloads({
        owner,
        spec: { source: 'external_docker', sourceConfig: { deploymentType, resourceSpec } },
        settings,
        serving,
      });
      const hpa = objects.find((o) => o.kind === 'HorizontalPodAutoscaler') as unknown as {
        spec: { minReplicas: number; maxReplicas: number };
      };
      return [hpa.spec.minReplicas, hpa.spec.maxReplicas];
    };
    expect(bounds('dedicated', {})).toEqual([2, 2]);
    expect(bounds('dedicated', { minScale: 1, maxScale: 5 })).toEqual([2, 5]);
    expect(bounds('dedicated', { minScale: 3 })).toEqual([3, 3]);
    expect(bounds('dev', {})).toEqual([1, 1]);
  });

  it('gates the app on a readiness probe on its port, drains it before stopping, kills no slow starter, and probes no queue worker', () => {
    const spec: DeploymentSpecInput = { source: 'external_docker', sourceConfig: { resourceSpec: { queueMaxScale: 1 } } };
    const containerOf = (name: string) => {
      const deployment = renderWorkloads({ owner, spec, settings, serving }).find(
        (o) => o.kind === 'Deployment' && o.metadata?.name === name,
      ) as V1Deployment;
      return deployment.spec!.template.spec!.containers[0]!;
    };
    expect(containerOf('shop').readinessProbe).toEqual({
      tcpSocket: { port: 'http' },
      periodSeconds: 1,
      timeoutSeconds: 1,
      failureThreshold: 3,
    });
    expect(containerOf('shop').ports).toEqual([{ name: 'http', containerPort: 8000 }]);
    expect(containerOf('shop').livenessProbe).toBeUndefined();
    expect(containerOf('shop-queue').readinessProbe).toBeUndefined();
    // A terminating app keeps serving while the Gateway and kube-proxy stop sending it requests.
    expect(containerOf('shop').lifecycle).toEqual({ preStop: { sleep: { seconds: 5 } } });
    expect(containerOf('shop-queue').lifecycle).toBeUndefined();
  });

  it('checks the health path and timings the spec sets', () => {
    const spec: DeploymentSpecInput = {
      source: 'external_docker',
      sourceConfig: { healthCheck: { path: '/ok', periodSeconds: 5, failureThreshold: 6 } },
    };
    const app = renderWorkloads({ owner, spec, settings, serving }).find((o) => o.kind === 'Deployment') as V1Deployment;
    expect(app.spec!.template.spec!.containers[0]!.readinessProbe).toEqual({
      httpGet: { path: '/ok', port: 'http' },
      periodSeconds: 5,
      timeoutSeconds: 1,
      failureThreshold: 6,
    });
  });

  it('rolls out by surge: old pods stay until new ones are Ready', () => {
    const spec: DeploymentSpecInput = { source: 'external_docker', sourceConfig: { resourceSpec: { queueMaxScale: 1 } } };
    const rolled = renderWorkloads({ owner, spec, settings, serving }).filter(
      (o) => o.kind === 'Deployment' && ['shop', 'shop-queue'].includes(o.metadata?.name ?? ''),
    );
    expect(rolled).toHaveLength(2);
    for (const deployment of rolled as V1Deployment[]) {
      expect(deployment.spec!.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
    }
  });

  it('renders the same manifests for the same input', () => {
    const spec: DeploymentSpecInput = {
      source: 'codehost',
      sourceConfig: { customUrl: 'https://a.example.com', resourceSpec: { queueMaxScale: 1 } },
    };
    expect(JSON.stringify(renderWorkloads({ owner, spec, settings, serving }))).toBe(
      JSON.stringify(renderWorkloads({ owner, spec, settings, serving })),
    );
  });
});
