// What Berth may change on a namespace: the Pod Security labels of an organization's namespace, nothing
// else. Kubernetes' RBAC grants `patch` on namespaces by name or on all of them; with no watchNamespaces
// Berth's service account holds it on every namespace of the cluster (organizations.podSecurity). This
// ValidatingAdmissionPolicy (the API server's own policy engine, CEL) narrows it: an update by Berth must
// find the organization label on the namespace, keep it, and change no label but
// `pod-security.kubernetes.io/*`, no annotation and no finalizer. The chart installs the same objects for
// its service account (test/chart.test.ts compares).
import { admissionPolicy } from './admission-policy.ts';
import { labels } from './group.ts';

/** `berth dev`'s; a chart release names its own after itself. */
export const namespacePolicyName = 'berth-namespace-labels';

const podSecurityPrefix = 'pod-security.kubernetes.io/';

/** CEL variables: the labels and annotations before and after the update, empty maps when absent. */
const variables = [
  ['oldLabels', 'oldObject.metadata.labels'],
  ['newLabels', 'object.metadata.labels'],
  ['oldAnnotations', 'oldObject.metadata.annotations'],
  ['newAnnotations', 'object.metadata.annotations'],
].map(([name, field]) => ({ name, expression: `has(${field}) ? ${field} : {}` }));

/** CEL: every key of `from` other than a Pod Security label is in `to` with the same value. */
const keeps = (from: string, to: string) =>
  `variables.${from}.all(k, k.startsWith('${podSecurityPrefix}') || (k in variables.${to} && variables.${to}[k] == variables.${from}[k]))`;

/** The rules, each with what its refusal says. */
const rules = [
  {
    expression: `${JSON.stringify(labels.organizationId)} in variables.oldLabels`,
    message: 'Berth changes organization namespaces only: this namespace has no berth.dev/organization-id label',
  },
  {
    expression: `${keeps('oldLabels', 'newLabels')} && ${keeps('newLabels', 'oldLabels')}`,
    message: "Berth changes a namespace's pod-security.kubernetes.io labels only",
  },
  {
    expression: 'variables.newAnnotations == variables.oldAnnotations && object.spec == oldObject.spec',
    message: "Berth changes no namespace's annotations or finalizers",
  },
];

/** The policy and its binding; `berthUser` is the identity Berth writes as (its service account's user name). */
export function renderNamespacePolicy(berthUser: string, name = namespacePolicyName): object[] {
  return admissionPolicy(name, {
    matchConstraints: {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'], operations: ['UPDATE'] }],
    },
    matchConditions: [{ name: 'berth', expression: `request.userInfo.username == ${JSON.stringify(berthUser)}` }],
    variables,
    validations: rules.map(({ expression, message }) => ({ expression, message, reason: 'Forbidden' })),
  });
}
