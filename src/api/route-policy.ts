// Who routes traffic to an organization's apps, and scales them: Berth alone. A team with `edit` in its
// namespace may create Ingresses (Kubernetes' own roles allow it), and one allowed HTTPRoutes could
// attach them to a shared Gateway: either could claim another organization's host, or a longer path on
// it, past the host claims Berth checks for what it renders (src/api/custom-hosts.ts). A team granted
// KEDA's kinds (upstream aggregates them into `edit`) could send KEDA or the scale-to-zero interceptor to
// any URL or Service, a ReferenceGrant could open another namespace's Services to its routes, and a
// Gateway, a ListenerSet or the Gateway implementation's own kinds could take hosts past the shared
// listeners. This ValidatingAdmissionPolicy (the API server's own policy engine, CEL) refuses all of
// them in organization namespaces from anyone but Berth. The chart installs the same objects for its
// service account (test/chart.test.ts compares).
import { admissionPolicy, clusterControllerRequest, defaultClusterControllers } from './admission-policy.ts';
import { labels } from './group.ts';

/** `berth dev`'s; a chart release names its own after itself. */
export const routePolicyName = 'berth-routes';

/** The kinds that steer traffic or scaling: routes, what opens or adds listeners, KEDA's, and those of
 * the Gateway implementation the embedded node runs (Traefik). */
export const steeringResources = [
  { apiGroups: ['networking.k8s.io'], resources: ['ingresses'] },
  {
    apiGroups: ['gateway.networking.k8s.io'],
    resources: ['httproutes', 'grpcroutes', 'tlsroutes', 'tcproutes', 'udproutes', 'referencegrants', 'gateways', 'listenersets'],
  },
  { apiGroups: ['gateway.networking.x-k8s.io'], resources: ['xlistenersets'] },
  { apiGroups: ['keda.sh'], resources: ['scaledobjects', 'scaledjobs', 'triggerauthentications'] },
  { apiGroups: ['http.keda.sh'], resources: ['interceptorroutes', 'httpscaledobjects'] },
  {
    apiGroups: ['traefik.io'],
    resources: [
      'ingressroutes',
      'ingressroutetcps',
      'ingressrouteudps',
      'middlewares',
      'middlewaretcps',
      'serverstransports',
      'serverstransporttcps',
      'tlsoptions',
      'tlsstores',
      'traefikservices',
    ],
  },
];

/** What a refusal says (CEL, with the kind refused). */
const steeringMessage =
  "request.kind.kind + \" objects in an organization's namespace are Berth's: a deployment's hosts come from its spec (custom_url), where Berth checks each host's claim, and its scaling from its resource_spec\"";

/** The policy and its binding; `berthUser` is the identity Berth writes as (its service account's user name).
 * The named cluster controllers may update what Berth made (KEDA's operator writes its finalizer and more
 * back into every ScaledObject); a team's people and service accounts make and change nothing here. */
export function renderRoutePolicy(
  berthUser: string,
  name = routePolicyName,
  controllers: readonly string[] = defaultClusterControllers,
): object[] {
  return admissionPolicy(name, {
    matchConstraints: {
      namespaceSelector: { matchExpressions: [{ key: labels.organizationId, operator: 'Exists' }] },
      resourceRules: steeringResources.map((rule) => ({ ...rule, apiVersions: ['*'], operations: ['CREATE', 'UPDATE'] })),
    },
    validations: [
      {
        expression: `request.userInfo.username == ${JSON.stringify(berthUser)} || ${clusterControllerRequest(['UPDATE'], controllers)}`,
        messageExpression: steeringMessage,
        reason: 'Forbidden',
      },
    ],
  });
}
