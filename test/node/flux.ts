// Flux on the real node, installed as its install manifests install it: the toolkit's CRDs, the
// flux-system namespace, source-controller (with its artifact Service) and kustomize-controller, each
// with its ServiceAccount bound to cluster-admin as Flux's cluster-reconciler binding does. The
// controllers are built from the Go module proxy (scripts/build-flux.sh) into images made here.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { cachedBuild } from '../../workbench/cache-dir.ts';
import { buildImage, pushImage } from '../../workbench/node/images.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { crane, kubectlOk } from './support.ts';

export const fluxNamespace = 'flux-system';
const controllers = ['source-controller', 'kustomize-controller'] as const;
type Controller = (typeof controllers)[number];

function controllerDeployment(name: Controller, image: string): object[] {
  const labels = { app: name };
  const source = name === 'source-controller';
  const args = [
    '--watch-all-namespaces=true',
    '--log-level=info',
    '--log-encoding=json',
    '--enable-leader-election=false',
    ...(source ? ['--storage-path=/data', '--storage-adv-addr=source-controller.$(RUNTIME_NAMESPACE).svc.cluster.local.'] : []),
  ];
  const volumes = [{ name: 'temp', emptyDir: {} }, ...(source ? [{ name: 'data', emptyDir: {} }] : [])];
  const mounts = [{ name: 'temp', mountPath: '/tmp' }, ...(source ? [{ name: 'data', mountPath: '/data' }] : [])];
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: fluxNamespace } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `flux-${name}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name, namespace: fluxNamespace }],
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: fluxNamespace, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: name,
            terminationGracePeriodSeconds: 10,
            securityContext: { fsGroup: 1337 },
            containers: [
              {
                name: 'manager',
                image,
                args,
                env: [{ name: 'RUNTIME_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
                ports: [{ name: 'healthz', containerPort: 9440 }, ...(source ? [{ name: 'http', containerPort: 9090 }] : [])],
                readinessProbe: { httpGet: { path: '/readyz', port: 'healthz' }, periodSeconds: 2 },
                securityContext: {
                  allowPrivilegeEscalation: false,
                  readOnlyRootFilesystem: true,
                  runAsNonRoot: true,
                  capabilities: { drop: ['ALL'] },
                },
                volumeMounts: mounts,
              },
            ],
            volumes,
          },
        },
      },
    },
    ...(source
      ? [
          {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name, namespace: fluxNamespace, labels },
            spec: { selector: labels, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
          },
        ]
      : []),
  ];
}

/** The install manifests: the namespace and both controllers. */
export function fluxInstallObjects(images: Record<Controller, string>): object[] {
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: fluxNamespace } },
    ...controllers.flatMap((name) => controllerDeployment(name, images[name])),
  ];
}

let installed: Promise<void> | undefined;

/** Installs Flux once per test file: CRDs, then the controllers, Ready. */
export function installFlux(): Promise<void> {
  installed ??= (async () => {
    // The controllers and their CRDs (crds/), built if they are not cached yet.
    const bin = cachedBuild('flux');
    const images = {} as Record<Controller, string>;
    for (const name of controllers) {
      const image = await buildImage(name, { env: { CONTROLLER_BIN: join(bin, name) } });
      images[name] = await pushImage(crane(), image, `${inject('registry')}/fluxcd/${name}:latest`);
    }
    const crds = readdirSync(join(bin, 'crds')).map((file) => join(bin, 'crds', file));
    await kubectlOk(['apply', '--server-side', ...crds.flatMap((file) => ['-f', file])]);
    await kubectlOk([
      'wait',
      '--for=condition=Established',
      '--timeout=60s',
      'crd/gitrepositories.source.toolkit.fluxcd.io',
      'crd/kustomizations.kustomize.toolkit.fluxcd.io',
    ]);
    await kubectlOk(
      ['apply', '--server-side', '-f', '-'],
      fluxInstallObjects(images)
        .map((o) => JSON.stringify(o))
        .join('\n'),
    );
    for (const name of controllers) {
      await eventually(
        async () => (await kubectlOk(['get', 'deployment', '-n', fluxNamespace, name, '-o', 'jsonpath={.status.readyReplicas}'])) === '1',
        120_000,
        `Flux ${name} Ready`,
      );
    }
  })();
  return installed;
}

/** The controllers' logs (for the secret-leak check). */
export async function fluxLogs(): Promise<string> {
  const logs = await Promise.all(controllers.map((name) => kubectlOk(['logs', '-n', fluxNamespace, `deployment/${name}`, '--tail=-1'])));
  return logs.join('\n');
}
