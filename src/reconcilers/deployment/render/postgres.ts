// The Deployment's Postgres: a single-replica StatefulSet with its volume claim, and the headless
// Service that gives it a stable DNS name. Headless because a database needs no virtual IP, and
// cluster IP ranges are small.
import type { V1Service, V1StatefulSet } from '@kubernetes/client-node';
import { childNames } from '../../../api/child-names.ts';
import { devTiers } from '../../../api/index.ts';
import {
  type OwnerDeployment,
  childMetadata,
  renderHeadlessService,
  memoryQuantity,
  resourceRequirements,
  selectorLabels,
} from './common.ts';
import { type SizeFigures, type SizeName, databaseSizes } from '../../../api/sizes.ts';
import type { DeploymentSpecInput } from './spec.ts';

const postgresDefaults = { cpu: 0.25, memoryMb: 512, storageGi: 10, maxConnections: 100 };
/** The development tiers' database: small, as the reference sizes it; db* fields still win. */
const devPostgresDefaults = { cpu: 0.1, memoryMb: 256, storageGi: 1, maxConnections: 100 };

type PostgresDefaults = SizeFigures & { storageGi: number; maxConnections: number };

/** What the database gets where db* fields say nothing: its named size (dbSize) if any, else by tier;
 * the storage always by tier (a size never resizes a volume). */
export function postgresDefaultsFor(deploymentType: string | null | undefined, size?: SizeName | null): PostgresDefaults {
  const byTier = deploymentType && devTiers.has(deploymentType) ? devPostgresDefaults : postgresDefaults;
  return size ? { ...databaseSizes[size], storageGi: byTier.storageGi } : byTier;
}

export interface PostgresInput {
  owner: OwnerDeployment;
  spec: DeploymentSpecInput;
  image: string;
  /** Scales the CPU and memory requests (limits unchanged): --request-scale. Default 1. */
  requestScale?: number;
  /**
   * The claim size of an existing StatefulSet: volumeClaimTemplates are immutable, so a changed
   * dbStorageGi is not applied to a database that already exists (growing a volume is a PVC resize).
   */
  existingStorage?: string;
}

/** Whether deleting the Deployment deletes its database's data: only when sourceConfig.databaseRetention says delete. */
export function deletesData(spec: DeploymentSpecInput): boolean {
  return spec.sourceConfig?.databaseRetention === 'delete';
}

/** The volume claim the StatefulSet makes for its one replica: the data. */
export function postgresClaimName(owner: Pick<OwnerDeployment, 'name'>): string {
  return childNames(owner.name).postgresClaim;
}

export function renderPostgres(input: PostgresInput): V1StatefulSet {
  const { owner } = input;
  const resources = input.spec.sourceConfig?.resourceSpec ?? {};
  const defaults = postgresDefaultsFor(input.spec.sourceConfig?.deploymentType, resources.dbSize);
  const names = childNames(owner.name);
  const storage = input.existingStorage ?? memoryQuantity((resources.dbStorageGi ?? defaults.storageGi) * 1024);
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: childMetadata(owner, names.postgres, 'postgres'),
    spec: {
      replicas: 1,
      serviceName: names.postgres,
      selector: { matchLabels: selectorLabels(owner, 'postgres') },
      // The data goes with the StatefulSet only when the user chose so (finalize.ts keeps the claim otherwise).
      persistentVolumeClaimRetentionPolicy: { whenDeleted: deletesData(input.spec) ? 'Delete' : 'Retain', whenScaled: 'Retain' },
      template: {
        metadata: { labels: selectorLabels(owner, 'postgres') },
        spec: {
          containers: [
            {
              name: 'postgres',
              image: input.image,
              args: ['-c', `max_connections=${resources.dbMaxConnections ?? defaults.maxConnections}`],
              env: [
                { name: 'POSTGRES_USER', value: 'postgres' },
                { name: 'POSTGRES_DB', value: 'postgres' },
                { name: 'PGDATA', value: '/var/lib/postgresql/data/pgdata' },
                { name: 'POSTGRES_PASSWORD', valueFrom: { secretKeyRef: { name: names.postgresCredentials, key: 'password' } } },
              ],
              ports: [{ name: 'postgres', containerPort: 5432 }],
              resources: resourceRequirements(
                {
                  cpu: resources.dbCpu,
                  cpuLimit: resources.dbCpuLimit,
                  memoryMb: resources.dbMemoryMb,
                  memoryLimitMb: resources.dbMemoryLimitMb,
                },
                defaults,
                input.requestScale,
              ),
              readinessProbe: { exec: { command: ['pg_isready', '-U', 'postgres'] } },
              volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql/data' }],
            },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'data' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } },
        },
      ],
    },
  };
}

export function renderPostgresService(owner: OwnerDeployment): V1Service {
  return renderHeadlessService(owner, childNames(owner.name).postgres, 'postgres', 5432);
}
