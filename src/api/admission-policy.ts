// The envelope of Berth's ValidatingAdmissionPolicies (the API server's own policy engine, CEL): the
// policy with the spec a rule gives, and the binding that denies what it refuses. Each policy module
// (route-policy.ts, namespace-policy.ts, issuer-policy.ts, network-policy-guard.ts) says only what it
// matches and refuses.

/** CEL: a request, for one of `operations`, by one of the cluster's own controllers: a `system:` identity
 * that is not a service account of the object's namespace (a team's people and its namespace's service
 * accounts are never one). */
export function clusterControllerRequest(operations: readonly string[]): string {
  const operation =
    operations.length === 1
      ? `request.operation == '${operations[0]}'`
      : `request.operation in [${operations.map((o) => `'${o}'`).join(', ')}]`;
  return `${operation} && request.userInfo.username.startsWith('system:') && !request.userInfo.username.startsWith('system:serviceaccount:' + request.namespace + ':')`;
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
