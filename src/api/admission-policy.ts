// The envelope of Berth's ValidatingAdmissionPolicies (the API server's own policy engine, CEL): the
// policy with the spec a rule gives, and the binding that denies what it refuses. Each policy module
// (route-policy.ts, namespace-policy.ts, issuer-policy.ts) says only what it matches and refuses.

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
