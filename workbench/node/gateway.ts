// The node's Gateway: Traefik, a Gateway API implementation built here (scripts/build-gateway.sh), run
// on the host beside the kubelet and listening on loopback only; the Gateway API CRDs; and the
// GatewayClass and Gateway every Deployment's HTTPRoutes attach to. Objects rendered by pure functions.
import { stringify } from 'yaml';
import { labels } from '../../src/api/group.ts';
import { gatewayHttpAddress, gatewayHttpsAddress, gatewayMetricsAddress } from './network.ts';

/** The Gateway Berth's HTTPRoutes attach to under `berth dev` (its `--gateway`). */
export const nodeGateway = { namespace: 'kube-system', name: 'berth' };

/** Every Deployment's own URL under `berth dev` (its `--app-url-template`): `*.localhost` is loopback. */
export const nodeAppUrlTemplate = `http://{deployment}.{organization}.localhost:${gatewayHttpAddress.port}/`;

/** The same over TLS, as `berth dev` gives it: certificates from the local apps CA (certificates.ts). */
export const nodeTlsAppUrlTemplate = `https://{deployment}.{organization}.localhost:${gatewayHttpsAddress.port}/`;

const gatewayClassName = 'berth';
const controllerName = 'traefik.io/gateway-controller';
/** Traefik's entry points of the Gateway's HTTP listener and of the HTTPS listeners Berth adds, one per
 * organization: they meet on the port. */
const webEntryPoint = 'web';
const websecureEntryPoint = 'websecure';
const metricsEntryPoint = 'metrics';

/** The namespaces a shared listener admits routes from: organizations' (README, "Tenancy"). */
export const organizationNamespaces = { matchExpressions: [{ key: labels.organizationId, operator: 'Exists' }] };

export function gatewayObjects() {
  return [
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'GatewayClass',
      metadata: { name: gatewayClassName },
      spec: { controllerName, description: "The embedded node's Gateway: Traefik on the host's loopback." },
    },
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: nodeGateway.name, namespace: nodeGateway.namespace },
      spec: {
        gatewayClassName,
        listeners: [
          {
            name: 'http',
            protocol: 'HTTP',
            port: gatewayHttpAddress.port,
            // Every organization's Deployments attach their routes here, and only they: a route in any
            // other namespace would claim any host.
            allowedRoutes: {
              namespaces: { from: 'Selector', selector: organizationNamespaces },
              kinds: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute' }],
            },
          },
        ],
      },
    },
  ];
}

/**
 * Traefik's static configuration, written in the node's data dir (so its command line names the data
 * dir, as every node process's does, and a run that died is cleaned up by it): the Kubernetes Gateway
 * provider only, loopback entry points, no dashboard, no calls home. Its Prometheus metrics, per
 * Service (`traefik_service_request_duration_seconds`: the apps' request concurrency), are served on an
 * entry point of their own. Requests answered 5xx go to `errorLog` with the upstream each was sent to
 * (ServiceURL, ServiceAddr: an app's pod, or the activator's proxy for a dev_zero app): what a
 * Gateway's 502 or 504 needs to be explained.
 */
export function traefikConfig(errorLog: string): string {
  return stringify({
    global: { checkNewVersion: false, sendAnonymousUsage: false },
    log: { level: 'INFO' },
    accessLog: { filePath: errorLog, format: 'json', filters: { statusCodes: ['500-599'] } },
    // An idle connection to an app is closed by the Gateway before the app closes it: servers close
    // theirs after 5 s (uvicorn's and Node's default keep-alive), and a request sent on a connection
    // the app is closing fails with a 502 that Go's proxy retries only for idempotent methods (a POST
    // /threads was lost so). Traefik's default is 90 s.
    serversTransport: { forwardingTimeouts: { dialTimeout: '30s', idleConnTimeout: '4s' } },
    entryPoints: {
      [webEntryPoint]: { address: `${gatewayHttpAddress.host}:${gatewayHttpAddress.port}` },
      [websecureEntryPoint]: { address: `${gatewayHttpsAddress.host}:${gatewayHttpsAddress.port}` },
      [metricsEntryPoint]: { address: `${gatewayMetricsAddress.host}:${gatewayMetricsAddress.port}` },
    },
    metrics: { prometheus: { entryPoint: metricsEntryPoint, addServicesLabels: true, addEntryPointsLabels: false } },
    providers: { kubernetesGateway: { statusAddress: { ip: gatewayHttpAddress.host } } },
  });
}
