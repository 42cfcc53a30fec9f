// An extension API server the node runs on the host (metrics-server for metrics.k8s.io, KEDA's adapter for
// external.metrics.k8s.io): the rights every such server needs to check the callers the API server
// vouches for, and the APIService that routes its group through a Service whose one endpoint is the
// node's address; and what a part reads of an upstream release's YAML (its ClusterRole, its webhooks).
// Objects rendered by pure functions.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/runtime/index.ts';

export type Subject = { kind: 'User'; name: string } | { kind: 'ServiceAccount'; name: string; namespace: string };

/** The objects of an upstream release's YAML file (a build's rbac/role.yaml, webhook/manifests.yaml). */
export function upstreamDocuments(file: string): KubeObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((doc) => doc.toJSON() as KubeObject | null)
    .filter((doc): doc is KubeObject => doc !== null);
}

/** The ClusterRole an upstream release declares in `file`: the one named `name`, or its first. */
export function upstreamClusterRole(file: string, name?: string): KubeObject {
  const role = upstreamDocuments(file).find((doc) => doc.kind === 'ClusterRole' && (name === undefined || doc.metadata?.name === name));
  if (!role) throw new Error(`no ClusterRole${name ? ` ${name}` : ''} in ${file}`);
  return role;
}

/** metadata with the labels every object of one part carries. */
export function partMetadata(labels: Record<string, string>, name: string, namespace?: string) {
  return { name, ...(namespace ? { namespace } : {}), labels };
}

/** A ClusterRoleBinding (or, given a namespace, a RoleBinding of a Role) of `role` to one subject. */
export function roleBinding(labels: Record<string, string>, name: string, role: string, subject: Subject, namespace?: string): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: namespace ? 'RoleBinding' : 'ClusterRoleBinding',
    metadata: partMetadata(labels, name, namespace),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: namespace ? 'Role' : 'ClusterRole', name: role },
    subjects: [subject.kind === 'User' ? { apiGroup: 'rbac.authorization.k8s.io', ...subject } : subject],
  } as KubeObject;
}

/** A Service on port 443 whose one endpoint is a server the node runs on the host, and that endpoint. */
export function nodeServiceObjects(input: Pick<ExtensionApi, 'labels' | 'service' | 'namespace' | 'address'>): KubeObject[] {
  const meta = (name: string) => partMetadata(input.labels, name, input.namespace);
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta(input.service),
      spec: { ports: [{ name: 'https', port: 443, targetPort: input.address.port, protocol: 'TCP' }] },
    },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { ...meta(`${input.service}-node`), labels: { ...input.labels, 'kubernetes.io/service-name': input.service } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [input.address.host], conditions: { ready: true } }],
      ports: [{ name: 'https', port: input.address.port, protocol: 'TCP' }],
    } as KubeObject,
  ] as KubeObject[];
}

export interface ExtensionApi {
  /** Who the server is towards the API server. */
  user: string;
  /** The Service the APIService names, and its namespace. */
  service: string;
  namespace: string;
  /** Where the server listens on the node. */
  address: { host: string; port: number };
  group: string;
  version: string;
  labels: Record<string, string>;
}

/** The delegated authentication and authorization bindings, the Service, its endpoint and the APIService. */
export function extensionApiObjects(api: ExtensionApi): KubeObject[] {
  const meta = (name: string, namespace?: string) => partMetadata(api.labels, name, namespace);
  const user = { kind: 'User', name: api.user } as const;
  return [
    // Checks the callers the API server vouches for (TokenReviews and SubjectAccessReviews).
    roleBinding(api.labels, `${api.user}:auth-delegator`, 'system:auth-delegator', user),
    // Reads which front proxy the API server is (ConfigMap extension-apiserver-authentication).
    roleBinding(api.labels, `${api.user}:auth-reader`, 'extension-apiserver-authentication-reader', user, 'kube-system'),
    ...nodeServiceObjects(api),
    {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: meta(`${api.version}.${api.group}`),
      spec: {
        group: api.group,
        version: api.version,
        service: { name: api.service, namespace: api.namespace, port: 443 },
        // The server serves a certificate it made itself (or one no CA of the aggregator knows), as in
        // upstream's manifests.
        insecureSkipTLSVerify: true,
        groupPriorityMinimum: 100,
        versionPriority: 100,
      },
    },
  ] as KubeObject[];
}
