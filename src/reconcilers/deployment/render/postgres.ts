// The Deployment's Postgres: a single-replica StatefulSet with its volume claim, and the headless
// Service that gives it a stable DNS name. Headless because a database needs no virtual IP, and
// cluster IP ranges are small. It serves TLS with a self-signed certificate of its own (Secret
// <name>-postgres-tls): clients that ask for it (KEDA's trigger, sslmode=require) get an encrypted
// connection, and clients that do not still connect.
import type { V1Container, V1Service, V1StatefulSet, V1Secret } from '@kubernetes/client-node';
import { childNames } from '../../../api/child-names.ts';
import { devTiers, readableSecretLabel, readableSecretValues } from '../../../api/index.ts';
import type { CertificateAndKey } from '../../../runtime/self-signed.ts';
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

/** The database's max_connections: dbMaxConnections, else its named size's or its tier's. */
export function postgresMaxConnections(spec: DeploymentSpecInput): number {
  const resources = spec.sourceConfig?.resourceSpec ?? {};
  return resources.dbMaxConnections ?? postgresDefaultsFor(spec.sourceConfig?.deploymentType, resources.dbSize).maxConnections;
}

/** Whether deleting the Deployment deletes its database's data: only when sourceConfig.databaseRetention says delete. */
export function deletesData(spec: DeploymentSpecInput): boolean {
  return spec.sourceConfig?.databaseRetention === 'delete';
}

/** Where the server reads its certificate and key: copied from the Secret by the `tls` init container,
 * the key the server's own and private, as Postgres requires of a key file whatever the image's uid. */
const tlsDir = '/etc/postgresql-tls';
const tlsSecretDir = '/etc/postgresql-tls-secret';
const tlsKeys = { certificate: 'tls.crt', key: 'tls.key' } as const;

/** The server's certificate and key, made once (never re-applied: the key is random) and owned by the
 * Deployment; read by the StatefulSet alone. The caller makes the certificate, so this stays pure. */
export function renderPostgresTlsSecret(owner: OwnerDeployment, made: CertificateAndKey): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: childMetadata(owner, childNames(owner.name).postgresTls, 'postgres', { [readableSecretLabel]: readableSecretValues.managed }),
    type: 'kubernetes.io/tls',
    stringData: { [tlsKeys.certificate]: made.certificate, [tlsKeys.key]: made.key },
  };
}

/** The names the server answers to, for its certificate: the Service's, short and in full. */
export function postgresDnsNames(owner: Pick<OwnerDeployment, 'name' | 'namespace'>): [string, ...string[]] {
  const service = childNames(owner.name).postgres;
  return [service, `${service}.${owner.namespace}.svc`, `${service}.${owner.namespace}.svc.cluster.local`];
}

/** The server's arguments: its connections, and TLS from the copied certificate. */
function postgresArgs(spec: DeploymentSpecInput): string[] {
  return [
    ...['-c', `max_connections=${postgresMaxConnections(spec)}`],
    ...['-c', 'ssl=on', '-c', `ssl_cert_file=${tlsDir}/server.crt`, '-c', `ssl_key_file=${tlsDir}/server.key`],
  ];
}

/** Copies the certificate and key where the server reads them, owned by its user (`postgres` in every
 * Postgres image) and readable by it alone; sh, cat and chown are in every one too. */
function tlsInitContainer(image: string, resources: V1Container['resources']): V1Container {
  const copy = `umask 077 && cat ${tlsSecretDir}/${tlsKeys.certificate} > ${tlsDir}/server.crt && cat ${tlsSecretDir}/${tlsKeys.key} > ${tlsDir}/server.key && chown postgres:postgres ${tlsDir}/server.crt ${tlsDir}/server.key`;
  return {
    name: 'tls',
    image,
    command: ['sh', '-c', copy],
    resources,
    volumeMounts: [
      { name: 'tls-secret', mountPath: tlsSecretDir, readOnly: true },
      { name: 'tls', mountPath: tlsDir },
    ],
  };
}

/** The server's CPU and memory: the db* fields, else its named size's or its tier's. */
export function postgresResources(spec: DeploymentSpecInput, requestScale: number | undefined): V1Container['resources'] {
  const resources = spec.sourceConfig?.resourceSpec ?? {};
  const defaults = postgresDefaultsFor(spec.sourceConfig?.deploymentType, resources.dbSize);
  return resourceRequirements(
    {
      cpu: resources.dbCpu,
      cpuLimit: resources.dbCpuLimit,
      memoryMb: resources.dbMemoryMb,
      memoryLimitMb: resources.dbMemoryLimitMb,
    },
    defaults,
    requestScale,
  );
}

/** The data's volume size: dbStorageGi, else its tier's. */
export function postgresStorage(spec: DeploymentSpecInput): string {
  const resources = spec.sourceConfig?.resourceSpec ?? {};
  return memoryQuantity((resources.dbStorageGi ?? postgresDefaultsFor(spec.sourceConfig?.deploymentType).storageGi) * 1024);
}

export function renderPostgres(input: PostgresInput): V1StatefulSet {
  const { owner } = input;
  const names = childNames(owner.name);
  const storage = input.existingStorage ?? postgresStorage(input.spec);
  const containerResources = postgresResources(input.spec, input.requestScale);
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
          // The same resources as the server's: the pod asks for no more than the server does.
          initContainers: [tlsInitContainer(input.image, containerResources)],
          containers: [
            {
              name: 'postgres',
              image: input.image,
              args: postgresArgs(input.spec),
              env: [
                { name: 'POSTGRES_USER', value: 'postgres' },
                { name: 'POSTGRES_DB', value: 'postgres' },
                { name: 'PGDATA', value: '/var/lib/postgresql/data/pgdata' },
                { name: 'POSTGRES_PASSWORD', valueFrom: { secretKeyRef: { name: names.postgresCredentials, key: 'password' } } },
              ],
              ports: [{ name: 'postgres', containerPort: 5432 }],
              resources: containerResources,
              readinessProbe: { exec: { command: ['pg_isready', '-U', 'postgres'] } },
              volumeMounts: [
                { name: 'data', mountPath: '/var/lib/postgresql/data' },
                { name: 'tls', mountPath: tlsDir, readOnly: true },
              ],
            },
          ],
          volumes: [
            { name: 'tls-secret', secret: { secretName: names.postgresTls, defaultMode: 0o400 } },
            { name: 'tls', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } },
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
