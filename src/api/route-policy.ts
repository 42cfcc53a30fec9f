// Who routes traffic to an organization's apps: Berth alone. A team with `edit` in its namespace may
// create Ingresses (Kubernetes' own roles allow it), and one allowed HTTPRoutes could attach them to a
// shared Gateway: either could claim another organization's host, or a longer path on it, past the
// host claims Berth checks for what it renders (src/api/custom-hosts.ts). This ValidatingAdmissionPolicy
// (the API server's own policy engine, CEL) refuses routes in organization namespaces from anyone but
// Berth. The chart installs the same objects for its service account (test/chart.test.ts compares).
import { labels } from './group.ts';

/** `berth dev`'s; a chart release names its own after itself. */
export const routePolicyName = 'berth-routes';

/** The route kinds a team could point at a Gateway or an ingress controller. */
const routeResources = [
  { apiGroups: ['networking.k8s.io'], resources: ['ingresses'] },
  { apiGroups: ['gateway.networking.k8s.io'], resources: ['httproutes', 'grpcroutes', 'tlsroutes', 'tcproutes', 'udproutes'] },
];

/** The policy and its binding; `berthUser` is the identity Berth writes as (its service account's user name). */
export function renderRoutePolicy(berthUser: string, name = routePolicyName): object[] {
  const managed = { 'app.kubernetes.io/managed-by': 'berth' };
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name, labels: managed },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          namespaceSelector: { matchExpressions: [{ key: labels.organizationId, operator: 'Exists' }] },
          resourceRules: routeResources.map((rule) => ({ ...rule, apiVersions: ['*'], operations: ['CREATE', 'UPDATE'] })),
        },
        validations: [
          {
            expression: `request.userInfo.username == ${JSON.stringify(berthUser)}`,
            message:
              "routes in an organization's namespace are Berth's: a deployment's hosts come from its spec (custom_url), where Berth checks each host's claim",
            reason: 'Forbidden',
          },
        ],
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name, labels: managed },
      spec: { policyName: name, validationActions: ['Deny'] },
    },
  ];
}
