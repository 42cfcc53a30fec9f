// The node's request-driven activator: KEDA's HTTP add-on (scripts/build-http-add-on.sh), its interceptor
// and its external scaler, run as pods in kube-system from one image built here, as the add-on's chart
// runs them. The Gateway sends a dev_zero app's traffic to the interceptor, which counts it, holds a
// request while the app has no ready pod, and forwards it to the app's Service by cluster DNS; the scaler
// tells KEDA's operator (on the host) how many requests wait, and KEDA takes the app from zero to one and
// back. Both run under service accounts with upstream's rights (read InterceptorRoutes, the
// HTTPScaledObjects they replace, Services, EndpointSlices), as nobody, with nothing to write. Berth
// writes the InterceptorRoutes and their ScaledObjects itself: the add-on's operator is not run.
// Objects rendered by pure functions.
import type { Activator } from '../../src/api/activator.ts';
import type { KubeObject } from '../../src/runtime/index.ts';
import { partMetadata, roleBinding } from './extension-api.ts';
import { activatorScalerServiceIp } from './network.ts';

const namespace = 'kube-system';
const labels = { 'app.kubernetes.io/name': 'keda-http-add-on', 'app.kubernetes.io/managed-by': 'berth' };
const ports = { proxy: 8080, admin: 9090, scaler: 9090 };
const names = {
  interceptor: 'keda-http-interceptor',
  proxy: 'keda-http-interceptor-proxy',
  admin: 'keda-http-interceptor-admin',
  scaler: 'keda-http-scaler',
};

/** How long the interceptor holds a request while the app starts: a cold start includes pulling the image,
 * and an agent server's start on a busy node took 122 s once (the add-on's own default is no limit at
 * all). Under the reference SDK's 300 s read timeout, so its caller gets the interceptor's 504, which
 * says what happened, rather than a timeout of its own. */
const coldStartWaitSeconds = 270;

/** The activator as Berth is told about it (`--activator-proxy`, `--activator-scaler`): the interceptor's
 * proxy Service, and the scaler's address as KEDA's operator on the host dials it (a fixed cluster IP). */
export const nodeActivator: Activator = {
  proxy: { namespace, name: names.proxy, port: ports.proxy },
  scalerAddress: `${activatorScalerServiceIp}:${ports.scaler}`,
};

function clusterRole(name: string, rules: object[]): KubeObject {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: partMetadata(labels, name), rules } as KubeObject;
}

// The add-on reads both its kinds (v0.15.0 lists InterceptorRoutes even where only HTTPScaledObjects
// exist). Upstream also lets the interceptor read ConfigMaps, for a cold start's placeholder page, which
// it reads only when a route names one: Berth's never do, so it is not granted.
const readRoutes = {
  apiGroups: ['http.keda.sh'],
  resources: ['interceptorroutes', 'httpscaledobjects'],
  verbs: ['get', 'list', 'watch'],
};
const readEndpointSlices = { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch'] };

function part(
  name: string,
  image: string,
  command: string,
  env: Record<string, string>,
  containerPorts: Record<string, number>,
  readinessProbe: object,
): KubeObject[] {
  const podLabels = componentLabels(name);
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: partMetadata(labels, name, namespace) } as KubeObject,
    roleBinding(labels, name, name, { kind: 'ServiceAccount', name, namespace }),
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: partMetadata(labels, name, namespace),
      spec: {
        replicas: 1,
        selector: { matchLabels: podLabels },
        template: {
          metadata: { labels: podLabels },
          spec: {
            serviceAccountName: name,
            priorityClassName: 'system-cluster-critical',
            terminationGracePeriodSeconds: 5,
            containers: [
              {
                name,
                image,
                command: [command],
                env: Object.entries(env).map(([key, value]) => ({ name: key, value })),
                ports: Object.entries(containerPorts).map(([portName, containerPort]) => ({ name: portName, containerPort })),
                readinessProbe: { ...readinessProbe, periodSeconds: 1 },
                resources: { requests: { cpu: '20m', memory: '32Mi' }, limits: { memory: '128Mi' } },
                securityContext: {
                  allowPrivilegeEscalation: false,
                  readOnlyRootFilesystem: true,
                  runAsNonRoot: true,
                  capabilities: { drop: ['ALL'] },
                },
              },
            ],
          },
        },
      },
    } as KubeObject,
  ];
}

function service(name: string, component: string, port: number, clusterIP?: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: partMetadata(labels, name, namespace),
    spec: {
      selector: componentLabels(component),
      ...(clusterIP ? { clusterIP } : {}),
      ports: [{ name: 'http', port, targetPort: port, protocol: 'TCP' }],
    },
  } as KubeObject;
}

/** The interceptor (proxy and admin Services) and the scaler (a Service at a fixed cluster IP, which
 * KEDA's operator on the host reaches through kube-proxy), with their rights and pods. */
export function httpAddOnObjects(image: string): KubeObject[] {
  return [
    clusterRole(names.interceptor, [
      { apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch'] },
      readEndpointSlices,
      readRoutes,
    ]),
    ...part(
      names.interceptor,
      image,
      '/keda-http-interceptor',
      {
        KEDA_HTTP_PROXY_PORT: String(ports.proxy),
        KEDA_HTTP_ADMIN_PORT: String(ports.admin),
        KEDA_HTTP_READINESS_TIMEOUT: `${coldStartWaitSeconds}s`,
        // An agent server's runs/wait sends its headers when the run ends: minutes, as through the Gateway.
        KEDA_HTTP_RESPONSE_HEADER_TIMEOUT: '600s',
        KEDA_HTTP_CONNECT_TIMEOUT: '5s',
        OTEL_PROM_EXPORTER_ENABLED: 'false',
      },
      { proxy: ports.proxy, admin: ports.admin },
      // Ready once its caches have synced (upstream's probe, on the admin port since v0.12.2).
      { httpGet: { path: '/readyz', port: ports.admin } },
    ),
    service(names.proxy, names.interceptor, ports.proxy),
    service(names.admin, names.interceptor, ports.admin),
    clusterRole(names.scaler, [readEndpointSlices, readRoutes]),
    ...part(
      names.scaler,
      image,
      '/keda-http-scaler',
      {
        KEDA_HTTP_SCALER_PORT: String(ports.scaler),
        KEDA_HTTP_SCALER_TARGET_ADMIN_NAMESPACE: namespace,
        KEDA_HTTP_SCALER_TARGET_ADMIN_SERVICE: names.admin,
        KEDA_HTTP_SCALER_TARGET_ADMIN_DEPLOYMENT: names.admin,
        KEDA_HTTP_SCALER_TARGET_ADMIN_PORT: String(ports.admin),
        // How often the scaler reads the interceptor's counts, and tells KEDA whether an app is wanted
        // (upstream: 500 ms, 200 ms). Both are on a request that wakes an app: 100 ms each here.
        KEDA_HTTP_QUEUE_TICK_DURATION: '100ms',
        KEDA_HTTP_SCALER_STREAM_INTERVAL_MS: '100',
      },
      { grpc: ports.scaler },
      { tcpSocket: { port: ports.scaler } },
    ),
    service(names.scaler, names.scaler, ports.scaler, activatorScalerServiceIp),
    // The interceptor reaches any dev_zero app with any Host header, and its admin port lists every
    // host: the node (the Gateway, KEDA's operator) reaches them, and the scaler the admin port; no
    // pod of an organization or a build does (the node's policy controller admits the node itself).
    onlyFrom(names.interceptor, [
      { from: [{ podSelector: { matchLabels: componentLabels(names.scaler) } }], ports: [{ port: ports.admin }] },
    ]),
    onlyFrom(names.scaler, []),
  ];
}

function componentLabels(component: string): Record<string, string> {
  return { ...labels, 'app.kubernetes.io/component': component };
}

/** A NetworkPolicy that admits, to a part's pods, the node and `ingress` alone. */
function onlyFrom(component: string, ingress: object[]): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: partMetadata(labels, component, namespace),
    spec: { podSelector: { matchLabels: componentLabels(component) }, policyTypes: ['Ingress'], ingress },
  } as KubeObject;
}
