// Who sets an organization's network: Berth alone. The organization's NetworkPolicy (organization policy
// `networkPolicy`) selects every pod of its namespace, and NetworkPolicies add up: any other one a team
// writes there (Kubernetes' `admin` and `edit` roles allow it) can only widen what the pods reach and what
// reaches them (a cloud's metadata service, the blocked networks, the metrics store), and deleting
// Berth's opens the namespace until Berth puts it back. This ValidatingAdmissionPolicy (the API server's
// own policy engine, CEL) refuses creating, changing or deleting NetworkPolicies in organization
// namespaces to anyone but Berth and the cluster's own controllers (the namespace controller empties a
// namespace that goes). The chart installs the same objects with organizations.networkPolicy
// (test/chart.test.ts compares).
import { admissionPolicy, clusterControllerRequest, defaultClusterControllers } from './admission-policy.ts';
import { labels } from './group.ts';

/** `berth dev`'s; a chart release names its own after itself. */
export const networkPolicyGuardName = 'berth-network-policies';

/** The policy and its binding; `berthUser` is the identity Berth writes as (its service account's user name),
 * and the named cluster controllers may update and delete (the namespace controller empties a namespace). */
export function renderNetworkPolicyGuard(
  berthUser: string,
  name = networkPolicyGuardName,
  controllers: readonly string[] = defaultClusterControllers,
): object[] {
  return admissionPolicy(name, {
    matchConstraints: {
      namespaceSelector: { matchExpressions: [{ key: labels.organizationId, operator: 'Exists' }] },
      resourceRules: [
        {
          apiGroups: ['networking.k8s.io'],
          apiVersions: ['*'],
          resources: ['networkpolicies'],
          operations: ['CREATE', 'UPDATE', 'DELETE'],
        },
      ],
    },
    validations: [
      {
        expression: `request.userInfo.username == ${JSON.stringify(berthUser)} || ${clusterControllerRequest(['UPDATE', 'DELETE'], controllers)}`,
        message:
          "NetworkPolicies in an organization's namespace are Berth's: the organization policy sets what its pods reach and what reaches them",
        reason: 'Forbidden',
      },
    ],
  });
}
