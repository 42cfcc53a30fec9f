// Renders the CustomResourceDefinition of each kind from its zod schemas. Pure: scripts/generate-crds.ts
// writes the result to crds/, and a test fails when crds/ differs from what this renders.
import type { V1CustomResourceDefinition, V1CustomResourceColumnDefinition } from '@kubernetes/client-node';
import type { z } from 'zod';
import { codeHostIntegrationKind, codeHostIntegrationSpecSchema, codeHostIntegrationStatusSchema } from './codehost-integration.ts';
import { databaseBackupKind, databaseBackupSpecSchema, databaseBackupStatusSchema } from './database-backup.ts';
import { databaseRestoreKind, databaseRestoreSpecSchema, databaseRestoreStatusSchema } from './database-restore.ts';
import { deploymentKind, deploymentSpecSchema, deploymentStatusSchema } from './deployment.ts';
import { category, group, labels, version, type KindDescriptor } from './group.ts';
import { oauthProviderKind, oauthProviderSpecSchema, oauthProviderStatusSchema } from './oauth-provider.ts';
import { revisionKind, revisionSpecSchema, revisionStatusSchema } from './revision.ts';
import { structuralSchema } from './structural-schema.ts';
import { tracingProjectKind, tracingProjectSpecSchema, tracingProjectStatusSchema } from './tracing-project.ts';

export type CrdSource = {
  descriptor: KindDescriptor;
  description: string;
  spec: z.core.$ZodType;
  status: z.core.$ZodType;
  columns: V1CustomResourceColumnDefinition[];
};

const ready: V1CustomResourceColumnDefinition = {
  name: 'Ready',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
  description: 'Whether the object reached its desired state (condition Ready).',
};
const age: V1CustomResourceColumnDefinition = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

export const crdSources: CrdSource[] = [
  {
    descriptor: deploymentKind,
    description: 'An application deployed from a code-host repository or a container image, with an immutable history of Revisions.',
    spec: deploymentSpecSchema,
    status: deploymentStatusSchema,
    columns: [
      { name: 'Status', type: 'string', jsonPath: '.status.status', description: 'Lifecycle state of the deployment.' },
      { name: 'Latest', type: 'string', jsonPath: '.status.latestRevisionName', description: 'Newest Revision.' },
      { name: 'Active', type: 'string', jsonPath: '.status.activeRevisionName', description: 'Revision being served.' },
      { name: 'Source', type: 'string', jsonPath: '.spec.source', description: 'Where the application comes from.' },
      { name: 'URL', type: 'string', jsonPath: '.status.url', description: 'Where the application answers.' },
      { name: 'Replicas', type: 'integer', jsonPath: '.status.scaling.replicas', description: "The application's replicas now." },
      {
        name: 'Desired',
        type: 'integer',
        jsonPath: '.status.scaling.desiredReplicas',
        description: 'What its autoscaler asks for.',
        priority: 1,
      },
      {
        name: 'Canary',
        type: 'integer',
        jsonPath: '.status.canary.weight',
        description: "Percent of requests a new revision's canary takes now.",
        priority: 1,
      },
      ready,
      age,
    ],
  },
  {
    descriptor: revisionKind,
    description: "An immutable snapshot of a Deployment's revision config, created by the controller only.",
    spec: revisionSpecSchema,
    status: revisionStatusSchema,
    columns: [
      { name: 'Deployment', type: 'string', jsonPath: '.spec.deploymentName', description: 'Deployment the revision belongs to.' },
      { name: 'Status', type: 'string', jsonPath: '.status.status', description: 'Lifecycle state of the revision.' },
      {
        name: 'Generation',
        // A label value is a string, even when it holds a number.
        type: 'string',
        jsonPath: `.metadata.labels.${labels.deploymentGeneration.replaceAll('.', '\\.')}`,
        description: 'metadata.generation of the Deployment when the revision was made.',
      },
      age,
    ],
  },
  {
    descriptor: oauthProviderKind,
    description: "An organization's OAuth provider configuration. The client secret stays in a Secret.",
    spec: oauthProviderSpecSchema,
    status: oauthProviderStatusSchema,
    columns: [
      { name: 'Provider ID', type: 'string', jsonPath: '.spec.providerId', description: 'Identifier of the provider.' },
      ready,
      age,
    ],
  },
  {
    descriptor: codeHostIntegrationKind,
    description: 'A connection to a code host whose repositories can be listed. Credentials stay in a Secret.',
    spec: codeHostIntegrationSpecSchema,
    status: codeHostIntegrationStatusSchema,
    columns: [ready, age],
  },
  {
    descriptor: tracingProjectKind,
    description: 'The tracing project made with each Deployment, under the same name.',
    spec: tracingProjectSpecSchema,
    status: tracingProjectStatusSchema,
    columns: [ready, age],
  },
  {
    descriptor: databaseBackupKind,
    description:
      "One backup of a Deployment's database into its organization's bucket, taken once through CloudNativePG. Made with kubectl or the HTTP API.",
    spec: databaseBackupSpecSchema,
    status: databaseBackupStatusSchema,
    columns: [
      { name: 'Deployment', type: 'string', jsonPath: '.spec.deploymentName', description: 'Deployment whose database is backed up.' },
      { name: 'Reason', type: 'string', jsonPath: '.spec.reason', description: 'Why the backup is taken.' },
      { name: 'Revision', type: 'string', jsonPath: '.spec.revisionName', description: 'Revision it was taken before.', priority: 1 },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'Pending, Running, Completed or Failed.' },
      { name: 'Ended', type: 'date', jsonPath: '.status.stoppedAt', description: 'When the backup completed or failed.' },
      age,
    ],
  },
  {
    descriptor: databaseRestoreKind,
    description:
      "A Deployment's database restored from one of its DatabaseBackups into a new CloudNativePG Cluster, then switched to. Made with kubectl or the HTTP API; deleting it deletes the database it retired.",
    spec: databaseRestoreSpecSchema,
    status: databaseRestoreStatusSchema,
    columns: [
      { name: 'Deployment', type: 'string', jsonPath: '.spec.deploymentName', description: 'Deployment whose database is restored.' },
      { name: 'Backup', type: 'string', jsonPath: '.spec.backupName', description: 'DatabaseBackup restored.' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'Pending, BackingUp, Restoring, Completed or Failed.' },
      { name: 'Database', type: 'string', jsonPath: '.status.databaseName', description: 'Cluster restored into.', priority: 1 },
      { name: 'Retired', type: 'string', jsonPath: '.status.retiredDatabaseName', description: 'Cluster that served before.', priority: 1 },
      age,
    ],
  },
];

export function crdName(descriptor: KindDescriptor): string {
  return `${descriptor.plural}.${group}`;
}

/** File name of a kind's CRD in crds/ (the controller-gen convention). */
export function crdFileName(descriptor: KindDescriptor): string {
  return `${group}_${descriptor.plural}.yaml`;
}

/**
 * An object Berth has not reconciled yet reads `status.observedGeneration: 0` (the API server defaults a
 * missing status on every read), so kstatus, Flux and Argo CD see it in progress, never Current, in the
 * moment between an apply and Berth's first status write.
 */
function unobservedByDefault(status: Record<string, unknown>): Record<string, unknown> {
  return { ...status, default: { observedGeneration: 0 } };
}

export function renderCrd(source: CrdSource): V1CustomResourceDefinition {
  const { descriptor } = source;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crdName(descriptor) },
    spec: {
      group,
      scope: 'Namespaced',
      names: {
        kind: descriptor.kind,
        listKind: `${descriptor.kind}List`,
        plural: descriptor.plural,
        singular: descriptor.singular,
        shortNames: [...descriptor.shortNames],
        categories: [category],
      },
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: source.columns,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: source.description,
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string', description: 'Versioned schema of this representation of an object.' },
                kind: { type: 'string', description: 'REST resource this object represents.' },
                metadata: { type: 'object' },
                spec: structuralSchema(source.spec),
                status: unobservedByDefault(structuralSchema(source.status)),
              },
            },
          },
        },
      ],
    },
  } as V1CustomResourceDefinition;
}
