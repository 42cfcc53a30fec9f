// The Deployment's Redis: a cache and queue broker, so no persistence; sized by redisMemoryMb. It
// requires the password of its credentials Secret (the app receives it in REDIS_URI).
import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import { childNames } from '../../../api/child-names.ts';
import { type OwnerDeployment, childMetadata, renderHeadlessService, memoryQuantity, scaledRequests, selectorLabels } from './common.ts';
import type { DeploymentSpecInput } from './spec.ts';

const redisDefaults = { memoryMb: 256, cpu: 0.1 };

export function renderRedis(owner: OwnerDeployment, spec: DeploymentSpecInput, image: string, requestScale = 1): V1Deployment {
  const memoryMb = spec.sourceConfig?.resourceSpec?.redisMemoryMb ?? redisDefaults.memoryMb;
  const memory = memoryQuantity(memoryMb);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: childMetadata(owner, childNames(owner.name).redis, 'redis'),
    spec: {
      replicas: 1,
      selector: { matchLabels: selectorLabels(owner, 'redis') },
      template: {
        metadata: { labels: selectorLabels(owner, 'redis') },
        spec: {
          containers: [
            {
              name: 'redis',
              image,
              // Redis evicts before the kernel kills it: maxmemory sits below the container's limit.
              // The password reaches the server as an argument expanded by the kubelet: $(VAR), never a value in the spec.
              args: [
                '--maxmemory',
                `${Math.max(Math.floor(memoryMb * 0.9), 1)}mb`,
                '--maxmemory-policy',
                'allkeys-lru',
                '--save',
                '',
                '--appendonly',
                'no',
                '--requirepass',
                '$(BERTH_REDIS_PASSWORD)',
              ],
              env: [
                {
                  name: 'BERTH_REDIS_PASSWORD',
                  valueFrom: { secretKeyRef: { name: childNames(owner.name).redisCredentials, key: 'password' } },
                },
              ],
              ports: [{ name: 'redis', containerPort: 6379 }],
              readinessProbe: { tcpSocket: { port: 'redis' }, periodSeconds: 2 },
              resources: { requests: scaledRequests(redisDefaults.cpu, memoryMb, requestScale), limits: { memory } },
            },
          ],
        },
      },
    },
  };
}

export function renderRedisService(owner: OwnerDeployment): V1Service {
  return renderHeadlessService(owner, childNames(owner.name).redis, 'redis', 6379);
}
