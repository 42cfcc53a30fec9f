// What an installation imposes on every organization namespace (chart values `organizations`, flag
// --organization-policy): a cap on one deployment's replicas and on one organization's custom hosts, a
// ResourceQuota, a LimitRange for containers, a NetworkPolicy that keeps an organization's pods to
// themselves, their own databases, cluster DNS and the outside, the NFS servers and CSI drivers volumes
// may have the kubelet mount from the node, and the Pod Security level the API server enforces there.
// Each part is optional; an absent object part means Berth keeps no such object (and removes the one it
// made before).
import { z } from 'zod';
import { repositoryPatternSchema } from './preview-database.ts';

/** A Kubernetes resource quantity: `500m`, `2`, `1Gi`, `1e3`. */
const quantity = z.preprocess(
  // A chart's `--set pods=10` arrives as a number.
  (value) => (typeof value === 'number' ? String(value) : value),
  z
    .string()
    .regex(/^[+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?[0-9]+))?$/, 'expected a quantity such as 500m, 2 or 1Gi'),
);

/** Quantities by resource name (`cpu`, `memory`, `requests.cpu`, `pods`, ...). */
const quantities = z.record(z.string().min(1).max(253), quantity);

/** An IPv4 or IPv6 network in CIDR notation. */
export const cidrSchema = z
  .string()
  .regex(
    /^([0-9]{1,3}(\.[0-9]{1,3}){3}\/[0-9]{1,2}|[0-9a-fA-F:]+\/[0-9]{1,3})$/,
    'expected a network in CIDR notation such as 169.254.169.254/32',
  );

export const organizationPolicySchema = z
  .object({
    maxReplicas: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .describe(
        'The most replicas one deployment may ask for, for its application and for its queue worker (min and max scale): a deployment asking more is refused with a 422, or Stalled (ReplicaCapExceeded) when applied with kubectl.',
      ),
    maxCustomHosts: z
      .number()
      .int()
      .min(0)
      .max(1_000)
      .optional()
      .describe(
        "The most custom_url hosts one organization's deployments may hold. Each takes a listener of the shared Gateway or of one of its shards: another host is refused with a 409, or Stalled (CustomHostLimit) when applied with kubectl.",
      ),
    customHostProof: z
      .literal('dns', { error: 'expected dns: the only proof Berth asks for is a DNS TXT record' })
      .optional()
      .describe(
        "What an organization proves before Berth routes or certifies a custom_url host for it. dns: a TXT record _berth-challenge.<host> holding the organization's token (the refusal names both), unless the organization namespace's annotation berth.dev/verified-domains lists the host's domain. An unproven host is refused with a 422, or Stalled (HostOwnershipUnproven) when applied with kubectl. Unset: none (the first claim of a host keeps it).",
      ),
    resourceQuota: quantities
      .optional()
      .describe(
        'spec.hard of ResourceQuota berth-organization in each organization namespace, e.g. {"requests.cpu": "4", "pods": "40"}. A deployment whose fewest pods ask more than it allows in all is refused with a 422, or Stalled (QuotaExceeded) when applied with kubectl; one that fits once room is freed waits for it (WaitingForQuota).',
      ),
    limitRange: z
      .object({
        default: quantities.optional().describe('Limits of a container that sets none.'),
        defaultRequest: quantities.optional().describe('Requests of a container that sets none.'),
        max: quantities.optional().describe('The most a container may ask for.'),
        min: quantities.optional().describe('The least a container may ask for.'),
      })
      .strict()
      .optional()
      .describe('The Container limits of LimitRange berth-organization in each organization namespace.'),
    networkPolicy: z
      .object({
        blockedCidrs: z
          .array(cidrSchema)
          .max(64)
          .describe(
            "Networks pods may not reach even though they are outside the namespace: the cluster's pod and node networks, cloud metadata addresses.",
          ),
        ingressFromNamespaces: z
          .array(z.record(z.string().min(1).max(317), z.string().max(63)))
          .max(16)
          .default([])
          .describe(
            "Label sets of namespaces whose pods may reach an organization's pods besides its own (an ingress controller's, a Gateway's).",
          ),
      })
      .strict()
      .optional()
      .describe(
        'NetworkPolicy berth-organization in each organization namespace: pods reach their own namespace, cluster DNS and any address outside blockedCidrs; only their own namespace and ingressFromNamespaces reach them.',
      ),
    nodeVolumes: z
      .object({
        nfsServers: z
          .array(
            z
              .string()
              .min(1)
              .max(253)
              .regex(/^[A-Za-z0-9.:[\]-]+$/, 'expected a host name or address'),
          )
          .max(64)
          .default([])
          .describe('The NFS servers a deployment may mount exports of (a volume naming another is refused). Empty: none.'),
        csiDrivers: z
          .array(
            z
              .string()
              .min(1)
              .max(63)
              .regex(/^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/, 'expected a CSI driver name such as secrets-store.csi.k8s.io'),
          )
          .max(64)
          .default([])
          .describe('The CSI drivers an inline csi volume may name (a volume naming another is refused). Empty: none.'),
      })
      .strict()
      .optional()
      .describe(
        'Volumes the kubelet mounts from the node, past every NetworkPolicy: NFS exports and inline CSI volumes. Only the listed servers and drivers; a deployment naming another is refused with a 422, or Stalled (VolumeNotAllowed) when applied with kubectl. Unset: any.',
      ),
    previewDatabaseClone: z
      .array(repositoryPatternSchema)
      .max(256)
      .optional()
      .describe(
        "The repositories whose deployments' previews may begin with a clone of the deployment's database (previews.database clone: its newest completed backup), as host/owner/name or host/owner/* for every repository under the owner. A request from a fork never gets one. A deployment asking it of another repository is refused with a 422, or Stalled (PreviewCloneRefused) when applied with kubectl. Unset or empty: none.",
      ),
    podSecurity: z
      .literal('baseline', { error: 'expected baseline: the pods Berth renders do not meet restricted yet' })
      .optional()
      .describe(
        "The Pod Security Standard the API server enforces in each organization namespace (labels pod-security.kubernetes.io/enforce, warn and audit): a tenant's own pods, privileged or sharing the node's namespaces, are refused. Builds run privileged unless --build-privileged is false, so this needs builds that are not.",
      ),
  })
  .strict();

export type OrganizationPolicy = z.output<typeof organizationPolicySchema>;

/**
 * What an installation imposes when it says nothing: the chart's defaults (charts/berth/values.yaml,
 * compared by test/chart.test.ts) and `berth dev`'s. Pod Security baseline (builds run apart, in the
 * build namespace), the NetworkPolicy, a quota that leaves room for a team's apps but none for node
 * ports or load balancers, and a request for every container that sets none (the quota needs one).
 */
export const hardenedOrganizationPolicy = {
  podSecurity: 'baseline',
  maxCustomHosts: 10,
  customHostProof: 'dns',
  networkPolicy: { blockedCidrs: ['169.254.169.254/32'], ingressFromNamespaces: [] },
  resourceQuota: {
    'requests.cpu': '16',
    'requests.memory': '32Gi',
    'requests.storage': '200Gi',
    pods: '100',
    persistentvolumeclaims: '20',
    'services.loadbalancers': '0',
    'services.nodeports': '0',
  },
  limitRange: { defaultRequest: { cpu: '50m', memory: '64Mi' } },
  nodeVolumes: { nfsServers: [], csiDrivers: [] },
} as const satisfies OrganizationPolicy;

/** The name of every object the policy makes in an organization namespace. */
export const organizationPolicyObjectName = 'berth-organization';

/** The scale fields a replica cap bounds, in the CRD's spelling. */
const cappedScaleFields = ['minScale', 'maxScale', 'queueMinScale', 'queueMaxScale'] as const;
export type CappedScaleField = (typeof cappedScaleFields)[number];

/** The first scale field above the installation's cap, or undefined (no cap, or none above it). Pure. */
export function replicaCapExcess(
  resourceSpec: Partial<Record<CappedScaleField, number | null>> | null | undefined,
  maxReplicas: number | undefined,
): { field: CappedScaleField; value: number; message: string } | undefined {
  if (maxReplicas === undefined || !resourceSpec) return undefined;
  for (const field of cappedScaleFields) {
    const value = resourceSpec[field];
    if (value != null && value > maxReplicas)
      return { field, value, message: `must be at most ${maxReplicas}: this installation's cap on one deployment's replicas` };
  }
  return undefined;
}

export type NodeVolumes = NonNullable<OrganizationPolicy['nodeVolumes']>;

/**
 * The first volume of `resourceSpec` the kubelet would mount from the node that the policy does not
 * list (an NFS server, an inline CSI driver): its place (index and source) and why; undefined when all
 * are allowed, or the installation lists none (any). Pure.
 */
export function nodeVolumeRefusal(
  resourceSpec: { volumes?: readonly { nfs?: Record<string, unknown>; csi?: Record<string, unknown> }[] | null } | null | undefined,
  allowed: NodeVolumes | undefined,
): { path: [number, 'nfs' | 'csi']; message: string } | undefined {
  if (!allowed) return undefined;
  for (const [index, volume] of (resourceSpec?.volumes ?? []).entries()) {
    if (volume.nfs) {
      const server = String(volume.nfs.server ?? '');
      if (!allowed.nfsServers.includes(server))
        return {
          path: [index, 'nfs'],
          message: `mounts NFS server ${JSON.stringify(server)}, which this installation does not allow (the kubelet mounts it from the node, past every NetworkPolicy)`,
        };
    }
    if (volume.csi) {
      const driver = String(volume.csi.driver ?? '');
      if (!allowed.csiDrivers.includes(driver))
        return {
          path: [index, 'csi'],
          message: `names CSI driver ${JSON.stringify(driver)}, which this installation does not allow in an inline volume`,
        };
    }
  }
  return undefined;
}

/** The namespace labels that make the API server's Pod Security admission enforce a level. */
export function podSecurityLabels(level: 'baseline'): Record<string, string> {
  return {
    'pod-security.kubernetes.io/enforce': level,
    'pod-security.kubernetes.io/enforce-version': 'latest',
    'pod-security.kubernetes.io/warn': level,
    'pod-security.kubernetes.io/audit': level,
  };
}
