// The envelope of Berth's ValidatingAdmissionPolicies (the API server's own policy engine, CEL): the
// policy with the spec a rule gives, and the binding that denies what it refuses. Each policy module
// (route-policy.ts, namespace-policy.ts, issuer-policy.ts, network-policy-guard.ts) says only what it
// matches and refuses.

/**
 * The identities that update or delete what Berth made in organization namespaces besides Berth: the
 * controller-manager (as itself, or with a service account per controller) removing finalizers and
 * emptying a namespace that goes, and KEDA's operator writing its finalizer into every ScaledObject (as
 * its upstream chart installs it). Named, never a prefix: another namespace's service account or a
 * cluster-wide GitOps controller applying a team's manifests is a `system:` identity too. A platform
 * names its own (the chart's organizations.clusterControllers; `berth dev` adds its KEDA's user).
 */
export const defaultClusterControllers = [
  'system:kube-controller-manager',
  'system:serviceaccount:kube-system:generic-garbage-collector',
  'system:serviceaccount:kube-system:namespace-controller',
  'system:serviceaccount:keda:keda-operator',
] as const;

/** CEL: a request, for one of `operations`, by one of the named cluster controllers. */
export function clusterControllerRequest(operations: readonly string[], controllers: readonly string[]): string {
  const list = (items: readonly string[]) => `[${items.map((item) => `'${item}'`).join(', ')}]`;
  const operation = operations.length === 1 ? `request.operation == '${operations[0]}'` : `request.operation in ${list(operations)}`;
  return `${operation} && request.userInfo.username in ${list(controllers)}`;
}

/** The policy named `name` with `spec`, and its binding (validationActions Deny), both Berth's. */
export function admissionPolicy(name: string, spec: Record<string, unknown>): object[] {
  const labels = { 'app.kubernetes.io/managed-by': 'berth' };
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name, labels },
      spec: { failurePolicy: 'Fail', ...spec },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name, labels },
      spec: { policyName: name, validationActions: ['Deny'] },
    },
  ];
}
