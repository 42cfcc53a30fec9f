// What enqueues a Deployment besides its own changes: the children it owns (and which of their updates
// matter), and the other objects that concern it (another Deployment's claim of its custom host, a
// Secret it reads, its TracingProject, a pod of one of its revisions, ...), each mapped to the
// Deployments it concerns through the caches.
import { isDeepStrictEqual } from 'node:util';
import {
  backupStoreSecretName,
  customHostIndex,
  customHostOf,
  deploymentKind,
  gatewayListenerNames,
  gatewayShardOfLabel,
  listenerOrganization,
  sourceKind,
  tlsOrganizationLabel,
  type DatabaseBackup,
  type Deployment,
  type GatewayObject,
} from '../../api/index.ts';
import {
  ownerKeys,
  owned,
  unlessStatusOnly,
  watch,
  type DeepReadonly,
  type Informer,
  type KubeObject,
  type ObjectKey,
  type OwnedSource,
  type WatchSource,
} from '../../runtime/index.ts';
import { buildForDeploymentLabel, revisionNamespaceOf } from '../../workloads/build-jobs.ts';
import { childKinds, secretReaderIndex, type DeploymentInformers } from './informers.ts';
import { workloadChangeMatters } from './rollout/lifecycle.ts';
import { podChangeMatters } from './rollout/pods.ts';
import { revisionLabel } from './render/common.ts';
import { activatorGrantLabel } from './render/scale-to-zero.ts';
import { postgresClusterChangeMatters } from './render/postgres-cluster.ts';
import { grantHolders } from './rollout/scale-to-zero.ts';
import { autoscalerChangeMatters } from './status/scaling-status.ts';

/** The children a Deployment owns, each with the updates of theirs that matter to it. */
export function deploymentOwns(informers: DeploymentInformers): (Informer | OwnedSource)[] {
  return [
    { informer: informers.revisions, changed: unlessStatusOnly },
    // The application's and queue worker's status moves many times in a rollout; passes read little of it.
    owned({ informer: informers.appsDeployments, changed: workloadChangeMatters }),
    informers.statefulSets,
    informers.services,
    informers.ingresses,
    ...(informers.httpRoutes ? [{ informer: informers.httpRoutes, changed: unlessStatusOnly }] : []),
    ...(informers.scaledObjects ? [{ informer: informers.scaledObjects, changed: unlessStatusOnly }] : []),
    // Its operator writes its status often; what a pass reads of it is whether it serves.
    ...(informers.postgresClusters ? [{ informer: informers.postgresClusters, changed: postgresClusterChangeMatters }] : []),
    // A revision may wait for a backup: what matters is where the backup is.
    ...(informers.databaseBackups ? [owned({ informer: informers.databaseBackups, changed: backupPhaseChanged })] : []),
  ];
}

/** A preview whose database is to be cloned waits for its deployment's backup to complete, and looks
 * again when its deployment asks another database of its previews. */
function previewsOfBackups(informers: DeploymentInformers): WatchSource[] {
  const backups = informers.databaseBackups;
  if (!backups) return [];
  const previewsOf = (namespace: string | undefined, deploymentName: string | undefined) =>
    informers.deployments
      .list(namespace ?? '')
      .filter((deployment) => deployment.metadata.namespace === namespace && deployment.spec.previewOf?.deploymentName === deploymentName)
      .map(keyOf);
  const previewDatabase = (deployment: DeepReadonly<Deployment>) => deployment.spec.sourceConfig?.previews?.database;
  return [
    watch({
      informer: backups,
      map: (backup) => previewsOf(backup.metadata.namespace, backup.spec.deploymentName),
      changed: backupPhaseChanged,
    }),
    watch({
      informer: informers.deployments,
      map: (deployment) => previewsOf(deployment.metadata.namespace, deployment.metadata.name),
      changed: (deployment, previous) => previewDatabase(deployment) !== previewDatabase(previous),
    }),
  ];
}

/** The other kinds whose objects concern Deployments, each mapped to those it concerns. */
export function deploymentWatches(informers: DeploymentInformers, relayNamespaces: readonly string[] = []): WatchSource[] {
  const deploymentsInNamespace = (namespace: string | undefined) =>
    informers.deployments.list(namespace ?? '').filter((d) => d.metadata.namespace === namespace);
  const deploymentOfRevision = (object: DeepReadonly<KubeObject>) => revisionOwner(informers, object);
  return [
    ...previewsOfBackups(informers),
    watch({
      // A claim on a custom host that comes or goes (a delete, a customUrl moved) may free the host for the
      // Deployments that wait on it, or take it: they look again at once, not after their minute. The
      // namespaces' watches are apart, so a waiting Deployment's own change may arrive before the delete.
      informer: informers.deployments,
      map: (deployment) => {
        const host = customHostOf(deployment);
        if (!host) return [];
        return informers.deployments
          .byIndex(customHostIndex, host)
          .filter((other) => other.metadata.uid !== deployment.metadata.uid)
          .map(keyOf);
      },
      changed: (deployment, previous) =>
        customHostOf(deployment) !== customHostOf(previous) ||
        !deployment.metadata.deletionTimestamp !== !previous.metadata.deletionTimestamp,
    }),
    watch({
      // A Secret's value is part of the revision digest: its owner, and every Deployment that reads it.
      informer: informers.secrets,
      map: (secret) => {
        const readers = informers.deployments
          .byIndex(secretReaderIndex, `${secret.metadata?.namespace}/${secret.metadata?.name}`)
          .map(keyOf);
        // The organization's backup store: where its CloudNativePG databases archive.
        const archivers =
          informers.objectStores && secret.metadata?.name === backupStoreSecretName
            ? deploymentsInNamespace(secret.metadata?.namespace).map(keyOf)
            : [];
        return [...ownerKeys(secret, deploymentKind), ...readers, ...archivers];
      },
    }),
    watch({
      // The TracingProject has no ownerReference (it outlives the Deployment): same name, same namespace.
      informer: informers.tracingProjects,
      map: (project) => [{ namespace: project.metadata.namespace ?? '', name: project.spec.deploymentName }],
      changed: unlessStatusOnly,
    }),
    watch({
      // An integration that appears, changes or goes may unblock or block the Deployments that use one.
      informer: informers.integrations,
      map: (integration) =>
        deploymentsInNamespace(integration.metadata.namespace)
          .filter((d) => sourceKind(d.spec.source)?.usesIntegration)
          .map(keyOf),
    }),
    watch({
      // Berth's HorizontalPodAutoscaler is owned by the Deployment; KEDA's by the ScaledObject Berth owns.
      informer: informers.autoscalers,
      map: (object) => {
        const owners = ownerKeys(object, deploymentKind);
        if (owners.length > 0 || !informers.scaledObjects) return owners;
        return ownerKeys(object, childKinds.scaledObject).flatMap(({ namespace, name }) => {
          const scaledObject = informers.scaledObjects?.get(namespace, name);
          return scaledObject ? ownerKeys(scaledObject, deploymentKind) : [];
        });
      },
      changed: autoscalerChangeMatters,
    }),
    watch({
      // A build Job beside its Deployment is owned by it; one in the build namespace names its Deployment's
      // uid; a pre-deploy Job is its Revision's (render/pre-deploy.ts), found by its revision label.
      informer: informers.jobs,
      map: (object) => {
        const owners = ownerKeys(object, deploymentKind);
        if (owners.length > 0) return owners;
        const uid = object.metadata?.labels?.[buildForDeploymentLabel];
        if (!uid) return deploymentOfRevision(object);
        return deploymentsInNamespace(revisionNamespaceOf(object))
          .filter((d) => d.metadata.uid === uid)
          .map(keyOf);
      },
    }),
    ...routingWatches(informers, deploymentsInNamespace, relayNamespaces),
    watch({
      // A pod of a revision that turns Ready, fails to pull or crashes moves that revision's phase.
      informer: informers.pods,
      map: deploymentOfRevision,
      changed: podChangeMatters,
    }),
  ];
}

const keyOf = (d: { metadata: { namespace?: string; name?: string } }): ObjectKey => ({
  namespace: d.metadata.namespace ?? '',
  name: d.metadata.name ?? '',
});

/** The Deployment whose Revision a pod or build Job is labelled with (src/workloads/build-jobs.ts). */
function revisionOwner(informers: DeploymentInformers, object: DeepReadonly<KubeObject>): ObjectKey[] {
  const revision = informers.revisions.get(revisionNamespaceOf(object), object.metadata?.labels?.[revisionLabel] ?? '');
  return revision ? [{ namespace: revision.metadata.namespace ?? '', name: revision.spec.deploymentName }] : [];
}

/** The kinds that exist where TLS, scale to zero and the path check are on: certificates, the activator's
 * grants, NetworkPolicies and Namespaces. */
function routingWatches(
  informers: DeploymentInformers,
  deploymentsInNamespace: (namespace: string) => readonly { metadata: { namespace?: string; name?: string } }[],
  relayNamespaces: readonly string[],
): WatchSource[] {
  const { certificates, gateways, activatorGrants, networkPolicies, namespaces } = informers;
  return [
    ...(networkPolicies
      ? [
          watch({
            // A NetworkPolicy may cut a relay off from (or admit it to) any app of its namespace.
            informer: networkPolicies,
            map: (policy) => deploymentsInNamespace(policy.metadata?.namespace ?? '').map(keyOf),
            changed: unlessStatusOnly,
          }),
        ]
      : []),
    ...(namespaces
      ? [
          watch({
            // A relay namespace's labels are what namespace selectors match: any app may be concerned.
            informer: namespaces,
            map: (namespace) => (relayNamespaces.includes(namespace.metadata?.name ?? '') ? informers.deployments.list().map(keyOf) : []),
            changed: (object, previous) => !isDeepStrictEqual(object.metadata?.labels ?? {}, previous.metadata?.labels ?? {}),
          }),
        ]
      : []),
    ...(certificates
      ? [
          watch({
            // An organization's certificate that turns ready (or not) is every one of its Deployments' news.
            informer: certificates,
            map: (object) => deploymentsInNamespace(object.metadata?.labels?.[tlsOrganizationLabel] ?? '').map(keyOf),
          }),
        ]
      : []),
    ...(gateways
      ? [
          watch({
            // A listener placed on a shard Berth made (or gone from one) moves the routes of its
            // organization's Deployments. The configured Gateway's listeners move none (every route keeps
            // its parent there), nor does a Gateway's status, which its implementation writes often.
            informer: gateways,
            map: (gateway) =>
              gateway.metadata?.labels?.[gatewayShardOfLabel]
                ? listenerOrganizations(gateway).flatMap((organization) => deploymentsInNamespace(organization).map(keyOf))
                : [],
            changed: (gateway, previous) => !isDeepStrictEqual(gatewayListenerNames(gateway), gatewayListenerNames(previous)),
          }),
        ]
      : []),
    ...(activatorGrants
      ? [
          watch({
            // A namespace's grant to the activator, changed or removed by someone else, is put back by
            // the Deployments that hold it.
            informer: activatorGrants,
            map: (object) => grantHolders(informers, object.metadata?.labels?.[activatorGrantLabel] ?? '').map(keyOf),
          }),
        ]
      : []),
  ];
}

/** The organizations with a listener on the Gateway. */
function listenerOrganizations(gateway: DeepReadonly<GatewayObject>): string[] {
  return [...new Set(gatewayListenerNames(gateway).flatMap((name) => listenerOrganization(name) ?? []))];
}

function backupPhaseChanged(object: DeepReadonly<DatabaseBackup>, previous: DeepReadonly<DatabaseBackup>): boolean {
  return object.status?.phase !== previous.status?.phase;
}
