// The Deployment's Redis: a cache and queue broker, so no persistence; sized by redisMemoryMb.
import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import { childNames } from '../names.ts';
import { type OwnerDeployment, childMetadata, renderHeadlessService, cpuQuantity, memoryQuantity, selectorLabels } from './common.ts';
import type { DeploymentSpecInput } from './spec.ts';

export const redisDefaults = { memoryMb: 256, cpu: 0.1 };

export function renderRedis(owner: OwnerDeployment, spec: DeploymentSpecInput, image: string): V1Deployment {
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
              args: ['--maxmemory', `${Math.max(Math.floor(memoryMb * 0.9), 1)}mb`, '--maxmemory-policy', 'allkeys-lru', '--save', '', '--appendonly', 'no'],
              ports: [{ name: 'redis', containerPort: 6379 }],
              resources: { requests: { cpu: cpuQuantity(redisDefaults.cpu), memory }, limits: { memory } },
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
