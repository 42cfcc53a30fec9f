// The Helm chart, checked with the pinned helm (test/tools) against the real test API server: it lints,
// renders manifests the API server accepts (server-side dry-run, strict field validation), installs,
// and gives Berth's service account exactly the permissions the controller and the facade need.
import { renderNamespacePolicy } from '../src/api/namespace-policy.ts';
import { renderNetworkPolicyGuard } from '../src/api/network-policy-guard.ts';
import { runQueueMetricName, runQueueTriggerOrder } from '../src/api/run-queue.ts';
import { renderRoutePolicy } from '../src/api/route-policy.ts';
import { metricsStorePolicyName, metricsStoreService } from '../src/api/metrics-store-policy.ts';
import { defaultCertManagerUser, renderIssuerPolicy } from '../src/api/issuer-policy.ts';
import { buildPlacementSchema } from '../src/api/build-placement.ts';
import { hardenedOrganizationPolicy, organizationPolicySchema } from '../src/api/organization-policy.ts';
import { metricsViewFiles, renderAlertRules, renderDashboard } from '../src/api/metrics-views.ts';
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  ApiextensionsV1Api,
  AppsV1Api,
  AuthorizationV1Api,
  CoreV1Api,
  RbacAuthorizationV1Api,
  type V1Deployment,
  type V1ResourceAttributes,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { apiKeyRecordFromSecret, matchApiKey } from '../src/facade/api-keys.ts';
import { compareChartCrds, renderChartCrd } from '../scripts/chart-crds.ts';
import { currentChartCrds, expectedChartCrds } from '../scripts/sync-chart-crds.ts';
import { readCrds } from '../workbench/install-crds.ts';
import { kubectl, testKubeConfig, useNamespace } from './support/cluster.ts';
import { cachedBuild } from '../workbench/cache-dir.ts';

const root = join(import.meta.dirname, '..');
const chart = join(root, 'charts/berth');
const kc = testKubeConfig();
let helmBin = '';

beforeAll(() => {
  helmBin = join(cachedBuild('tools'), 'helm');
}, 900_000);

interface Run {
  stdout: string;
  stderr: string;
  code: number;
}

async function helm(args: string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(helmBin, [...args, '--kubeconfig', inject('kubeconfigPath')], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      // helm keeps its own state (repositories, cache) out of the user's home during tests.
      env: {
        ...process.env,
        HELM_CACHE_HOME: '/tmp/berth-helm/cache',
        HELM_CONFIG_HOME: '/tmp/berth-helm/config',
        HELM_DATA_HOME: '/tmp/berth-helm/data',
      },
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; code?: number };
    return { stdout: e.stdout ?? '', stderr: e.stderr ?? '', code: typeof e.code === 'number' ? e.code : 1 };
  }
}

type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  [key: string]: unknown;
};

/** The one value a render needs besides the defaults: where Berth acts (every namespace, here). */
const clusterWide = ['--set', 'rbac.clusterWide=true'];

async function render(namespace: string, values: string[] = []): Promise<Manifest[]> {
  const result = await helm(['template', 'berth', chart, '--namespace', namespace, ...clusterWide, ...values]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return parseAllDocuments(result.stdout)
    .map((doc) => doc.toJSON() as Manifest | null)
    .filter((doc): doc is Manifest => doc !== null);
}

/** The environment of Berth's container in rendered manifests. */
function env(manifests: Manifest[]): { name: string; value?: string }[] {
  const deployment = manifests.find((m) => m.kind === 'Deployment') as unknown as {
    spec: { template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } };
  };
  return deployment.spec.template.spec.containers[0]!.env;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the chart', () => {
  it('holds exactly the CRDs in crds/ (run `node scripts/sync-chart-crds.ts` after regenerating them)', () => {
    expect(compareChartCrds(expectedChartCrds(root), currentChartCrds(root))).toEqual({ missing: [], stale: [], changed: [] });
  });

  it('renders the CRDs of crds/ unchanged but for the keep annotation, and none with crds.install=false', async () => {
    const rendered = (await render('berth-system')).filter((m) => m.kind === 'CustomResourceDefinition');
    const sources = readCrds(join(root, 'crds'));
    expect(rendered.map((m) => m.metadata.name).sort()).toEqual(sources.map((c) => c.metadata!.name!).sort());
    for (const crd of rendered) {
      expect(crd.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
      const source = sources.find((c) => c.metadata!.name === crd.metadata.name)!;
      const { annotations: _annotations, ...metadata } = crd.metadata;
      expect({ ...crd, metadata }).toEqual(JSON.parse(JSON.stringify(source)));
    }
    const without = await render('berth-system', ['--set', 'crds.install=false']);
    expect(without.filter((m) => m.kind === 'CustomResourceDefinition')).toEqual([]);
  });

  it('keeps a CRD description that looks like a template action as text', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'berth-chart-'));
    try {
      cpSync(chart, copy, { recursive: true });
      const description = 'Rendered as {{ .Values.crds.install }} {{- "literally" }} by nobody.';
      const crd = [
        'apiVersion: apiextensions.k8s.io/v1',
        'kind: CustomResourceDefinition',
        'metadata:',
        '  name: widgets.example.com',
        'spec:',
        '  group: example.com',
        '  scope: Namespaced',
        '  names: { kind: Widget, plural: widgets }',
        '  versions:',
        '    - name: v1',
        '      served: true',
        '      storage: true',
        `      schema: { openAPIV3Schema: { type: object, description: ${JSON.stringify(description)} } }`,
      ].join('\n');
      writeFileSync(join(copy, 'templates/crds/widgets.yaml'), renderChartCrd('widgets.yaml', crd));
      const result = await helm(['template', 'berth', copy, ...clusterWide, '--show-only', 'templates/crds/widgets.yaml']);
      expect(result.stderr).toBe('');
      const rendered = parse(result.stdout) as {
        metadata: { annotations: Record<string, string> };
        spec: { versions: { schema: { openAPIV3Schema: { description: string } } }[] };
      };
      expect(rendered.spec.versions[0]!.schema.openAPIV3Schema.description).toBe(description);
      expect(rendered.metadata.annotations['helm.sh/resource-policy']).toBe('keep');
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('passes helm lint --strict with the fewest values and with every optional part switched on', async () => {
    const defaults = await helm(['lint', chart, '--strict', ...clusterWide]);
    expect(defaults.stdout).toContain('0 chart(s) failed');
    const everything = await helm([
      'lint',
      chart,
      '--strict',
      '--set',
      'watchNamespaces={team-a,team-b}',
      '--set',
      'facade.ingress.enabled=true',
      '--set',
      'metrics.serviceMonitor.enabled=true',
      '--set',
      'metrics.prometheusRule.enabled=true',
      '--set',
      'metrics.grafanaDashboard.enabled=true',
      '--set',
      `apiKey.sha256=${sha256('key')}`,
      '--set',
      'apiKey.organizations={00000000-0000-4000-8000-000000000001}',
    ]);
    expect(everything.stdout).toContain('0 chart(s) failed');
  });

  it('installs the dashboard and alerts of metrics-views.ts when asked, as generated (run `npm run generate` after changing them)', async () => {
    for (const [file, text] of Object.entries(metricsViewFiles()))
      expect(readFileSync(join(import.meta.dirname, '../charts/berth', file), 'utf8'), file).toBe(text);
    expect((await render('berth-system')).filter((m) => m.kind === 'PrometheusRule' || m.metadata?.name?.endsWith('-dashboard'))).toEqual(
      [],
    );
    const views = await render('berth-system', [
      '--set',
      'metrics.prometheusRule.enabled=true',
      '--set',
      'metrics.grafanaDashboard.enabled=true',
    ]);
    const rule = views.find((m) => m.kind === 'PrometheusRule') as unknown as { spec: object };
    expect(rule.spec).toEqual(renderAlertRules());
    const dashboard = views.find((m) => m.kind === 'ConfigMap' && m.metadata?.name?.endsWith('-dashboard')) as unknown as {
      metadata: { labels: Record<string, string> };
      data: Record<string, string>;
    };
    expect(dashboard.metadata.labels.grafana_dashboard).toBe('1');
    expect(JSON.parse(dashboard.data['berth-deployment.json']!)).toEqual(renderDashboard());
  });

  it('is namespace-scoped by default: without watchNamespaces it renders only when rbac.clusterWide says so', async () => {
    const unscoped = await helm(['template', 'berth', chart]);
    expect(unscoped.code).not.toBe(0);
    expect(unscoped.stderr).toContain('set watchNamespaces');
    expect(unscoped.stderr).toContain('rbac.clusterWide=true');
    const scoped = await helm(['template', 'berth', chart, '--set', 'watchNamespaces={team-a}']);
    expect(scoped.code).toBe(0);
    const kinds = parseAllDocuments(scoped.stdout).map((doc) => (doc.toJSON() as Manifest | null)?.kind);
    expect(kinds.filter((kind) => kind === 'ClusterRoleBinding')).toHaveLength(1); // namespaces read, nothing else
  });

  it('passes the code hosts a platform team allows on beside the public ones, and none by default', async () => {
    const namespace = 'berth-system';
    expect(env(await render(namespace)).find((e) => e.name === 'BERTH_CODE_HOST_ORIGINS')).toBeUndefined();
    const allowed = env(await render(namespace, ['--set', 'codeHost.origins={https://ghe.example.com,http://10.0.0.5:*}']));
    expect(allowed.find((e) => e.name === 'BERTH_CODE_HOST_ORIGINS')?.value).toBe(
      'https://api.github.com,https://github.com,https://gitlab.com,https://ghe.example.com,http://10.0.0.5:*',
    );
  });

  it('passes on how many builds an organization runs at once, and the nodes builds run on when named', async () => {
    const namespace = 'berth-system';
    const plain = env(await render(namespace));
    expect(plain).toContainEqual({ name: 'BERTH_BUILDS_PER_ORGANIZATION', value: '4' });
    expect(plain.find((e) => e.name === 'BERTH_BUILD_PLACEMENT')).toBeUndefined();
    const placed = env(
      await render(namespace, [
        '--set',
        'builder.perOrganization=2',
        '--set',
        'builder.nodeSelector.pool=builds',
        '--set',
        'builder.tolerations[0].key=pool',
        '--set',
        'builder.tolerations[0].operator=Exists',
      ]),
    );
    expect(placed).toContainEqual({ name: 'BERTH_BUILDS_PER_ORGANIZATION', value: '2' });
    const placement = placed.find((e) => e.name === 'BERTH_BUILD_PLACEMENT')?.value ?? '';
    expect(buildPlacementSchema.parse(JSON.parse(placement))).toEqual({
      nodeSelector: { pool: 'builds' },
      tolerations: [{ key: 'pool', operator: 'Exists' }],
    });
  });

  it('rejects values that values.schema.json does not allow, naming the value', async () => {
    const bad: [string[], RegExp][] = [
      [['--set', 'components={controller,scheduler}'], /components/],
      [['--set', 'replicaCount=-1'], /replicaCount/],
      [['--set', 'apiKey.sha256=the-key-itself'], /apiKey.*sha256|sha256/],
      [['--set', 'watchNamespaces={Not_A_Namespace}'], /watchNamespaces/],
      [['--set', 'replicas=3'], /replicas/],
      [['--set', 'apps.concurrencyQuery=sum(up)'], /concurrencyQuery/],
      [['--set', 'apps.concurrencyMetrics=prometheus:9090'], /concurrencyMetrics/],
      [['--set', 'apps.activatorProxy=interceptor:8080'], /activatorProxy/],
      [['--set', 'apps.activatorScaler=http://scaler'], /activatorScaler/],
      [['--set', 'apps.proxyNamespace=Envoy_Gateway'], /proxyNamespace/],
      [['--set', 'apps.networkPolicyCheck=maybe'], /networkPolicyCheck/],
      [['--set', 'services.postgres.engine=mysql'], /engine/],
      [['--set', 'codeHost.origins={https://ghe.example.com/api/v3}'], /codeHost/],
    ];
    for (const [values, message] of bad) {
      const result = await helm(['template', 'berth', chart, ...clusterWide, ...values]);
      expect(result.code, values.join(' ')).not.toBe(0);
      expect(result.stderr).toMatch(message);
    }
    const noOrganizations = await helm(['template', 'berth', chart, ...clusterWide, '--set', `apiKey.sha256=${sha256('key')}`]);
    expect(noOrganizations.code).not.toBe(0);
    expect(noOrganizations.stderr).toContain('apiKey.organizations');
  });

  it('renders manifests the API server accepts (server-side dry-run, strict field validation)', async () => {
    const namespace = await useNamespace('chart-dry-run');
    const watched = await useNamespace('chart-watched');
    // A dry run makes no namespace: the Role of the build namespace needs one that exists.
    const builds = await useNamespace('chart-builds');
    for (const values of [
      ['--set', 'facade.ingress.enabled=true', '--set', `apiKey.sha256=${sha256('key')}`, '--set', 'apiKey.organizations={org-1}'],
      [
        '--set',
        `watchNamespaces={${watched}}`,
        '--set',
        `builder.namespace=${builds}`,
        '--set',
        'crds.install=false',
        '--set',
        'components={controller}',
      ],
    ]) {
      const manifests = await render(namespace, values);
      const applied = await kubectl(
        [
          'apply',
          '--server-side',
          '--dry-run=server',
          '--force-conflicts',
          '--field-manager',
          'chart-test',
          '--validate=strict',
          '-f',
          '-',
        ],
        manifests.map((m) => JSON.stringify(m)).join('\n'),
      );
      expect(applied.stderr).toBe('');
      expect(applied.code).toBe(0);
      expect(applied.stdout.trim().split('\n')).toHaveLength(manifests.length);
    }
  });

  it('lets Berth create Secrets in its namespace (the registry signing key) only with builder.pushRegistry, and passes the registry on', async () => {
    const secretCreate = (manifests: Manifest[]) =>
      manifests
        .filter((m) => m.kind === 'Role' && m.metadata.name.endsWith('-api-keys'))
        .flatMap((m) => (m as unknown as { rules: { resources: string[]; verbs: string[] }[] }).rules)
        .some((rule) => rule.resources.includes('secrets') && rule.verbs.includes('create'));
    const plain = await render('berth-system');
    expect(secretCreate(plain)).toBe(false);
    expect(env(plain).find((e) => e.name === 'BERTH_PUSH_REGISTRY')).toBeUndefined();
    const withRegistry = await render('berth-system', ['--set', 'builder.pushRegistry=registry.example:5000']);
    expect(secretCreate(withRegistry)).toBe(true);
    expect(env(withRegistry)).toContainEqual({ name: 'BERTH_PUSH_REGISTRY', value: 'registry.example:5000' });
  });

  it('runs builds in a namespace of their own (privileged there only), passed on and watched like a team namespace', async () => {
    const plain = await render('berth-system');
    const namespace = plain.find((m) => m.kind === 'Namespace');
    expect(namespace?.metadata).toMatchObject({ name: 'berth-builds', labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } });
    expect(env(plain)).toContainEqual({ name: 'BERTH_BUILD_NAMESPACE', value: 'berth-builds' });
    const scoped = await render('berth-system', ['--set', 'watchNamespaces={team-a}']);
    expect(scoped.filter((m) => m.kind === 'Role' && m.metadata.name.endsWith('-manager')).map((m) => m.metadata.namespace)).toEqual([
      'team-a',
      'berth-builds',
    ]);
    // Pod Security in organization namespaces (the default) and the privileged builder go together once
    // builds run apart; beside their deployments, only with Pod Security turned off.
    const beside = await helm(['template', 'berth', chart, ...clusterWide, '--set', 'builder.namespace=']);
    expect(beside.code).not.toBe(0);
    expect(beside.stderr).toContain('builder.namespace');
    expect(
      (await render('berth-system', ['--set', 'builder.namespace=', '--set', 'organizations.podSecurity=none'])).find(
        (m) => m.kind === 'Namespace',
      ),
    ).toBeUndefined();
  });

  it('renders the hardened organization policy with no values, each part turned off by a value that says so', async () => {
    const policyOf = async (values: string[] = []) => {
      const value = env(await render('berth-system', values)).find((e) => e.name === 'BERTH_ORGANIZATION_POLICY')?.value;
      return value === undefined ? undefined : organizationPolicySchema.parse(JSON.parse(value));
    };
    expect(await policyOf()).toEqual(hardenedOrganizationPolicy);
    const off = {
      'organizations.podSecurity=none': 'podSecurity',
      'organizations.networkPolicy.enabled=false': 'networkPolicy',
      'organizations.resourceQuota.enabled=false': 'resourceQuota',
      'organizations.limitRange.enabled=false': 'limitRange',
      'organizations.nodeVolumes.enabled=false': 'nodeVolumes',
      'organizations.maxCustomHosts=null': 'maxCustomHosts',
      'organizations.customHostProof=null': 'customHostProof',
    } as const;
    for (const [value, part] of Object.entries(off)) {
      const { [part]: _, ...rest } = hardenedOrganizationPolicy;
      expect(await policyOf(['--set', value]), value).toEqual(rest);
    }
    expect(await policyOf(Object.keys(off).flatMap((value) => ['--set', value]))).toBeUndefined();
  });

  it("installs the route policy src/api/route-policy.ts renders, for the release's service account", async () => {
    const manifests = await render('berth-system');
    const policy = manifests.filter((m) => m.metadata.name === 'berth-routes');
    const spec = (objects: object[]) => objects.map((o) => [(o as Manifest).kind, (o as { spec: unknown }).spec]);
    expect(spec(policy)).toEqual(spec(renderRoutePolicy('system:serviceaccount:berth-system:berth')));
    expect(policy.map((m) => m.kind)).toEqual(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
    expect(
      (await render('berth-system', ['--set', 'organizations.routePolicy=false'])).filter((m) => m.metadata.name === 'berth-routes'),
    ).toEqual([]);
  });

  it("keeps organization namespaces' NetworkPolicies Berth's with the policy src/api/network-policy-guard.ts renders", async () => {
    const manifests = await render('berth-system');
    const policy = manifests.filter((m) => m.metadata.name === 'berth-network-policies');
    const spec = (objects: object[]) => objects.map((o) => [(o as Manifest).kind, (o as { spec: unknown }).spec]);
    expect(spec(policy)).toEqual(spec(renderNetworkPolicyGuard('system:serviceaccount:berth-system:berth')));
    expect(
      (await render('berth-system', ['--set', 'organizations.networkPolicy.enabled=false'])).filter(
        (m) => m.metadata.name === 'berth-network-policies',
      ),
    ).toEqual([]);
  });

  it("narrows Berth's namespace patches with the policy src/api/namespace-policy.ts renders, with Pod Security on", async () => {
    const manifests = await render('berth-system');
    const policy = manifests.filter((m) => m.metadata.name === 'berth-namespace-labels');
    const spec = (objects: object[]) => objects.map((o) => [(o as Manifest).kind, (o as { spec: unknown }).spec]);
    expect(spec(policy)).toEqual(spec(renderNamespacePolicy('system:serviceaccount:berth-system:berth')));
    expect(
      (await render('berth-system', ['--set', 'organizations.podSecurity=none'])).filter(
        (m) => m.metadata.name === 'berth-namespace-labels',
      ),
    ).toEqual([]);
  });

  it("keeps a NetworkPolicy on Berth's own pods: the API from anywhere, metrics from the release namespace, no link-local address", async () => {
    const policyOf = async (values: string[] = []) =>
      (await render('berth-system', values)).find((m) => m.kind === 'NetworkPolicy' && m.metadata.name === 'berth') as
        (Manifest & { spec: Record<string, unknown> }) | undefined;
    expect((await policyOf())?.spec).toEqual({
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'berth', 'app.kubernetes.io/instance': 'berth' } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        { ports: [{ port: 8080, protocol: 'TCP' }] },
        {
          ports: [{ port: 9090, protocol: 'TCP' }],
          from: [
            { namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['berth-system'] }] } },
          ],
        },
      ],
      egress: [
        { to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['169.254.0.0/16'] } }, { ipBlock: { cidr: '::/0', except: ['fe80::/10'] } }] },
      ],
    });
    const monitored = await policyOf(['--set', 'networkPolicy.metricsFromNamespaces[0]=monitoring']);
    expect(JSON.stringify(monitored?.spec)).toContain('["berth-system","monitoring"]');
    expect(await policyOf(['--set', 'networkPolicy.enabled=false'])).toBeUndefined();
  });

  it('keeps a ClusterIssuer to Berth with the policy src/api/issuer-policy.ts renders, and renders none for an Issuer', async () => {
    const tls = (issuer: string) => [
      '--set',
      `apps.tlsIssuer=${issuer}`,
      '--set',
      'apps.gateway.namespace=gateway',
      '--set',
      'apps.gateway.name=public',
      '--set',
      'apps.urlTemplate=https://{deployment}.{organization}.apps.example.com/',
    ];
    const policyOf = (manifests: Manifest[]) => manifests.filter((m) => m.metadata.name === 'berth-issuer');
    const spec = (objects: object[]) => objects.map((o) => [(o as Manifest).kind, (o as { spec: unknown }).spec]);
    const rendered = policyOf(await render('berth-system', tls('ClusterIssuer/letsencrypt')));
    expect(rendered.map((m) => m.kind)).toEqual(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
    expect(spec(rendered)).toEqual(
      spec(
        renderIssuerPolicy({
          issuer: 'letsencrypt',
          berthUser: 'system:serviceaccount:berth-system:berth',
          certManagerUser: defaultCertManagerUser,
          name: 'berth-issuer',
        }),
      ),
    );
    expect(policyOf(await render('berth-system', tls('Issuer/apps')))).toEqual([]);
  });

  it('routes apps through apps.gateway: passes the URL template and Gateway on, and grants httproutes only then', async () => {
    const routesGranted = (manifests: Manifest[]) =>
      manifests
        .filter((m) => m.kind === 'ClusterRole' || m.kind === 'Role')
        .flatMap((m) => (m as unknown as { rules?: { apiGroups?: string[]; resources?: string[]; verbs?: string[] }[] }).rules ?? [])
        .some(
          (rule) =>
            rule.apiGroups?.includes('gateway.networking.k8s.io') &&
            rule.resources?.includes('httproutes') &&
            rule.verbs?.includes('patch'),
        );
    const plain = await render('berth-system');
    expect(routesGranted(plain)).toBe(false);
    expect(env(plain).find((e) => e.name === 'BERTH_GATEWAY')).toBeUndefined();
    const routed = await render('berth-system', [
      '--set',
      'apps.urlTemplate=https://{deployment}.{organization}.apps.example.com/',
      '--set',
      'apps.gateway.namespace=gateways',
      '--set',
      'apps.gateway.name=public',
    ]);
    expect(routesGranted(routed)).toBe(true);
    expect(env(routed)).toEqual(
      expect.arrayContaining([
        { name: 'BERTH_APP_URL_TEMPLATE', value: 'https://{deployment}.{organization}.apps.example.com/' },
        { name: 'BERTH_GATEWAY', value: 'gateways/public' },
      ]),
    );
  });

  it("lets Berth read exactly the run queue's external metrics that src/api/run-queue.ts names", async () => {
    const external = (await render('berth-system'))
      .filter((m) => m.kind === 'ClusterRole' || m.kind === 'Role')
      .flatMap((m) => (m as unknown as { rules?: { apiGroups?: string[]; resources?: string[]; verbs?: string[] }[] }).rules ?? [])
      .filter((rule) => rule.apiGroups?.includes('external.metrics.k8s.io'));
    expect(external.map((rule) => ({ resources: rule.resources, verbs: rule.verbs }))).toEqual([
      { resources: runQueueTriggerOrder.map(runQueueMetricName), verbs: ['get'] },
    ]);
  });

  it("scales apps on their requests in flight with apps.concurrencyMetrics: passes it on, grants KEDA's ScaledObjects only then", async () => {
    const scaledObjectsGranted = (manifests: Manifest[]) =>
      manifests
        .filter((m) => m.kind === 'ClusterRole' || m.kind === 'Role')
        .flatMap((m) => (m as unknown as { rules?: { apiGroups?: string[]; resources?: string[] }[] }).rules ?? [])
        .some((rule) => rule.apiGroups?.includes('keda.sh') && rule.resources?.includes('scaledobjects'));
    const plain = await render('berth-system');
    expect(scaledObjectsGranted(plain)).toBe(false);
    expect(env(plain).find((e) => e.name === 'BERTH_CONCURRENCY_METRICS')).toBeUndefined();
    const query = 'sum(envoy_in_flight{namespace="{namespace}",service="{service}"})';
    const scaled = await render('berth-system', [
      '--set',
      'apps.concurrencyMetrics=http://prometheus.monitoring:9090',
      '--set-string',
      // helm --set splits on commas unless escaped.
      `apps.concurrencyQuery=${query.replaceAll(',', '\\,')}`,
    ]);
    expect(scaledObjectsGranted(scaled)).toBe(true);
    expect(env(scaled)).toEqual(
      expect.arrayContaining([
        { name: 'BERTH_CONCURRENCY_METRICS', value: 'http://prometheus.monitoring:9090' },
        { name: 'BERTH_CONCURRENCY_QUERY', value: query },
      ]),
    );
  });

  it("lets Berth guard the metrics store's pods where apps.concurrencyMetrics names a Service, as metrics-store-policy.ts reads it", async () => {
    const storeRole = (manifests: Manifest[]) => manifests.find((m) => m.kind === 'Role' && m.metadata.name === 'berth-metrics-store');
    for (const url of [
      'http://vmsingle.monitoring.svc:8428',
      'http://prometheus.metrics:9090',
      'https://vmauth.monitoring.svc.cluster.local/select',
      'http://10.0.0.7:9090',
      'https://metrics.example.com',
      'http://prometheus:9090',
    ]) {
      const service = metricsStoreService(url);
      const role = storeRole(await render('berth-system', ['--set', `apps.concurrencyMetrics=${url}`]));
      expect(role?.metadata.namespace, url).toBe(service?.namespace);
      if (!service) continue;
      expect(role!.rules, url).toEqual([
        { apiGroups: [''], resources: ['services'], verbs: ['get'], resourceNames: [service.name] },
        {
          apiGroups: ['networking.k8s.io'],
          resources: ['networkpolicies'],
          verbs: ['get', 'patch'],
          resourceNames: [metricsStorePolicyName],
        },
        { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: ['create'] },
      ]);
    }
  });

  it("lets Berth read the API server's EndpointSlice alone, in default, where organizations have a NetworkPolicy", async () => {
    const apiServerRole = (manifests: Manifest[]) => manifests.filter((m) => m.kind === 'Role' && m.metadata.name === 'berth-api-server');
    const [role] = apiServerRole(await render('berth-system'));
    expect(role?.metadata.namespace).toBe('default');
    expect((role as unknown as { rules: unknown[] }).rules).toEqual([
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get'], resourceNames: ['kubernetes'] },
    ]);
    expect(apiServerRole(await render('berth-system', ['--set', 'organizations.networkPolicy.enabled=false']))).toEqual([]);
  });

  it("scales dev_zero to zero with apps.activatorProxy: passes both parts on, grants ReferenceGrants in the activator's namespace only", async () => {
    type Rule = { apiGroups: string[]; resources: string[] };
    const granting = (manifests: Manifest[], resource: string) =>
      manifests
        .filter(
          (m) =>
            (m.kind === 'Role' || m.kind === 'ClusterRole') &&
            ((m as unknown as { rules?: Rule[] }).rules ?? []).some((r) => r.resources.includes(resource)),
        )
        .map((m) => `${m.kind}/${m.metadata?.namespace ?? ''}`);
    const plain = await render('berth-system');
    expect(granting(plain, 'interceptorroutes')).toEqual([]);
    expect(granting(plain, 'httpscaledobjects')).toEqual([]);
    expect(granting(plain, 'referencegrants')).toEqual([]);
    const zero = await render('berth-system', [
      '--set',
      'apps.gateway.namespace=gateways',
      '--set',
      'apps.gateway.name=public',
      '--set',
      'apps.activatorProxy=keda/keda-add-ons-http-interceptor-proxy:8080',
      '--set',
      'apps.activatorScaler=keda-add-ons-http-external-scaler.keda:9090',
    ]);
    expect(env(zero)).toEqual(
      expect.arrayContaining([
        { name: 'BERTH_ACTIVATOR_PROXY', value: 'keda/keda-add-ons-http-interceptor-proxy:8080' },
        { name: 'BERTH_ACTIVATOR_SCALER', value: 'keda-add-ons-http-external-scaler.keda:9090' },
      ]),
    );
    // Where Berth watches (the watched namespaces' Roles), as its other children.
    expect(granting(zero, 'interceptorroutes')).toEqual(granting(zero, 'httproutes'));
    // The HTTPScaledObjects an earlier Berth wrote, there too, to prune.
    expect(granting(zero, 'httpscaledobjects')).toEqual(granting(zero, 'httproutes'));
    expect(granting(zero, 'scaledobjects')).toEqual(granting(zero, 'httproutes'));
    expect(granting(zero, 'referencegrants')).toEqual(['Role/keda']);
  });

  it('passes the path check on: auto by default, and the proxy namespace when given', async () => {
    const plain = await render('berth-system');
    expect(env(plain)).toContainEqual({ name: 'BERTH_NETWORK_POLICY_CHECK', value: 'auto' });
    expect(env(plain).map((e) => e.name)).not.toContain('BERTH_PROXY_NAMESPACE');
    const proxied = await render('berth-system', [
      '--set',
      'apps.proxyNamespace=envoy-gateway-system',
      '--set',
      'apps.networkPolicyCheck=off',
    ]);
    expect(env(proxied)).toEqual(
      expect.arrayContaining([
        { name: 'BERTH_PROXY_NAMESPACE', value: 'envoy-gateway-system' },
        { name: 'BERTH_NETWORK_POLICY_CHECK', value: 'off' },
      ]),
    );
  });

  it("terminates TLS with apps.tlsIssuer: passes it on, grants Certificates and listeners in the Gateway's namespace only", async () => {
    const gateway = ['--set', 'apps.gateway.namespace=gateways', '--set', 'apps.gateway.name=public'];
    const https = ['--set', 'apps.urlTemplate=https://{deployment}.{organization}.apps.example.com/'];
    const manifests = await render('berth-system', [...gateway, ...https, '--set', 'apps.tlsIssuer=ClusterIssuer/letsencrypt']);
    expect(env(manifests)).toEqual(
      expect.arrayContaining([
        { name: 'BERTH_TLS_ISSUER', value: 'ClusterIssuer/letsencrypt' },
        { name: 'BERTH_LISTENERS_PER_GATEWAY', value: '64' },
      ]),
    );
    type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
    const granting = (resource: string) =>
      manifests.filter(
        (m) =>
          (m.kind === 'Role' || m.kind === 'ClusterRole') &&
          ((m as unknown as { rules?: Rule[] }).rules ?? []).some((rule) => rule.resources.includes(resource)),
      );
    for (const resource of ['certificates', 'gateways'])
      expect(
        granting(resource).map((m) => [m.kind, m.metadata.namespace]),
        resource,
      ).toEqual([['Role', 'gateways']]);
    // The Gateway's shards (listeners past apps.listenersPerGateway) are Berth's to make and delete.
    const gatewayRule = granting('gateways')
      .flatMap((m) => (m as unknown as { rules: Rule[] }).rules)
      .find((r) => r.resources.includes('gateways'));
    expect(gatewayRule?.verbs).toEqual(expect.arrayContaining(['patch', 'create', 'delete']));
    const binding = manifests.find((m) => m.kind === 'RoleBinding' && m.metadata.name === 'berth-gateway-tls');
    expect(binding?.metadata.namespace).toBe('gateways');

    for (const values of [https, gateway, [...gateway, '--set', 'apps.urlTemplate=http://{deployment}.{organization}.apps.example.com/']]) {
      const refused = await helm([
        'template',
        'berth',
        chart,
        ...clusterWide,
        ...values,
        '--set',
        'apps.tlsIssuer=ClusterIssuer/letsencrypt',
      ]);
      expect(refused.code, values.join(' ')).not.toBe(0);
      expect(refused.stderr).toContain('apps.tlsIssuer needs apps.gateway');
    }
    const notAnIssuer = await helm([
      'template',
      'berth',
      chart,
      ...clusterWide,
      ...gateway,
      ...https,
      '--set',
      'apps.tlsIssuer=letsencrypt',
    ]);
    expect(notAnIssuer.code).not.toBe(0);
    expect(notAnIssuer.stderr).toMatch(/tlsIssuer/);
  });

  it('runs the container hardened: non-root, read-only root filesystem, no capabilities, RuntimeDefault seccomp', async () => {
    const deployment = (await render('berth-system')).find((m) => m.kind === 'Deployment') as unknown as V1Deployment;
    const pod = deployment.spec!.template.spec!;
    const container = pod.containers[0]!;
    expect(deployment.spec!.replicas).toBe(2);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } });
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'probes' });
    expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'probes' });
    expect(container.ports).toContainEqual({ name: 'probes', containerPort: 9090, protocol: 'TCP' });
    expect(pod.topologySpreadConstraints?.length).toBeGreaterThan(0);
    const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
    expect(env).toMatchObject({ BERTH_COMPONENTS: 'controller,facade', BERTH_LEADER_ELECT: 'true', BERTH_PROBE_ADDRESS: '0.0.0.0:9090' });
  });
});

// What the controller and the facade touch (the contract in the command-line docs): every entry must
// be allowed, in the namespaces Berth watches.
const berthKinds = [
  'deployments',
  'revisions',
  'oauthproviders',
  'codehostintegrations',
  'tracingprojects',
  'databasebackups',
  'databaserestores',
];
const manage = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
const needed: Omit<V1ResourceAttributes, 'namespace'>[] = [
  ...berthKinds.flatMap((resource) => manage.map((verb) => ({ group: 'berth.dev', resource, verb }))),
  ...berthKinds.flatMap((resource) => ['update', 'patch'].map((verb) => ({ group: 'berth.dev', resource, subresource: 'status', verb }))),
  ...berthKinds.map((resource) => ({ group: 'berth.dev', resource, subresource: 'finalizers', verb: 'update' })),
  ...['secrets', 'services'].flatMap((resource) => manage.map((verb) => ({ group: '', resource, verb }))),
  ...[
    ['apps', 'deployments'],
    ['apps', 'statefulsets'],
    ['batch', 'jobs'],
    ['autoscaling', 'horizontalpodautoscalers'],
    ['networking.k8s.io', 'ingresses'],
  ].flatMap(([group, resource]) => manage.map((verb) => ({ group, resource, verb }))),
  ...['get', 'list', 'watch', 'patch', 'delete'].map((verb) => ({ group: '', resource: 'persistentvolumeclaims', verb })),
  ...['get', 'list', 'watch'].map((verb) => ({ group: '', resource: 'pods', verb })),
  { group: '', resource: 'pods', subresource: 'log', verb: 'get' },
  ...['', 'events.k8s.io'].flatMap((group) => ['create', 'patch'].map((verb) => ({ group, resource: 'events', verb }))),
];
const neededInOperatorNamespace: Omit<V1ResourceAttributes, 'namespace'>[] = [
  ...['get', 'create', 'update'].map((verb) => ({ group: 'coordination.k8s.io', resource: 'leases', verb })),
  ...['get', 'list', 'watch'].map((verb) => ({ group: '', resource: 'secrets', verb })),
  { group: '', resource: 'events', verb: 'create' },
];
const neededClusterWide: V1ResourceAttributes[] = ['get', 'list', 'watch'].map((verb) => ({ group: '', resource: 'namespaces', verb }));
// What it must not be able to do anywhere.
const forbidden: V1ResourceAttributes[] = [
  { group: '', resource: 'namespaces', verb: 'delete' },
  { group: '', resource: 'namespaces', verb: 'create' },
  { group: '', resource: 'namespaces', verb: 'update' },
  { group: '', resource: 'pods', verb: 'create' },
  { group: '', resource: 'pods', verb: 'delete' },
  { group: '', resource: 'pods', subresource: 'exec', verb: 'create' },
  { group: '', resource: 'configmaps', verb: 'get' },
  { group: '', resource: 'serviceaccounts', verb: 'create' },
  { group: '', resource: 'persistentvolumeclaims', verb: 'create' },
  { group: '', resource: 'nodes', verb: 'list' },
  { group: 'apps', resource: 'daemonsets', verb: 'create' },
  { group: 'rbac.authorization.k8s.io', resource: 'roles', verb: 'create' },
  { group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings', verb: 'create' },
  { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', verb: 'delete' },
  { group: 'cert-manager.io', resource: 'certificates', verb: 'get' },
  { group: 'berth.dev', resource: 'deployments', verb: 'deletecollection' },
];

describe('helm install into the test API server', () => {
  const core = kc.makeApiClient(CoreV1Api);
  const authorization = kc.makeApiClient(AuthorizationV1Api);
  const suffix = randomBytes(3).toString('hex');
  const installed: { release: string; namespace: string }[] = [];

  async function can(serviceAccount: string, namespace: string, attributes: V1ResourceAttributes): Promise<boolean> {
    const review = await authorization.createSubjectAccessReview({
      body: {
        spec: {
          user: `system:serviceaccount:${namespace}:${serviceAccount}`,
          groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
          resourceAttributes: attributes,
        },
      },
    });
    return review.status?.allowed === true;
  }

  async function permissions(serviceAccount: string, namespace: string, list: V1ResourceAttributes[]) {
    return Promise.all(list.map(async (attributes) => ({ ...attributes, allowed: await can(serviceAccount, namespace, attributes) })));
  }

  async function install(release: string, namespace: string, values: string[]): Promise<string> {
    // Each release makes its own build namespace (two releases cannot share one). Its route policy would
    // refuse the routes of the other Berths this API server runs for other tests: the helm suite has it.
    const result = await helm([
      'install',
      release,
      chart,
      '--namespace',
      namespace,
      '--set',
      `builder.namespace=${release}-builds`,
      '--set',
      'organizations.routePolicy=false',
      ...values,
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    installed.push({ release, namespace });
    return result.stdout;
  }

  afterAll(async () => {
    for (const { release, namespace } of installed) await helm(['uninstall', release, '--namespace', namespace]);
  });

  it('installs Berth watching every namespace: CRDs established and kept, RBAC, Deployment, Services, API-key Secret', async () => {
    const namespace = await useNamespace('chart-install');
    const elsewhere = await useNamespace('chart-elsewhere');
    const release = `berth-${suffix}`;
    const key = `berth_${randomBytes(16).toString('hex')}`;
    const organization = '6b9d3a52-3c1e-4f0a-9a57-0c5f0d6e7a11';
    // The test API server already has the CRDs (applied by the test harness, as `kubectl apply` would):
    // adopt them into the release the way Helm documents for existing objects.
    for (const crd of readCrds(join(root, 'crds'))) {
      const name = crd.metadata!.name!;
      expect(
        (
          await kubectl([
            'annotate',
            '--overwrite',
            `crd/${name}`,
            `meta.helm.sh/release-name=${release}`,
            `meta.helm.sh/release-namespace=${namespace}`,
          ])
        ).code,
      ).toBe(0);
      expect((await kubectl(['label', '--overwrite', `crd/${name}`, 'app.kubernetes.io/managed-by=Helm'])).code).toBe(0);
    }
    // No --force-conflicts: the harness applied crds/ under its own field manager, so any value in which
    // the chart's CRDs differed from crds/ would fail the install with a conflict.
    const notes = await install(release, namespace, [
      ...clusterWide,
      '--set',
      `apiKey.sha256=${sha256(key)}`,
      '--set',
      `apiKey.organizations={${organization}}`,
    ]);

    // NOTES.txt: the next steps, with this release's names.
    expect(notes).toContain(`kubectl -n ${namespace} rollout status deployment/${release}`);
    expect(notes).toContain(`API key: the one whose SHA-256 you set in apiKey.sha256, for ${organization}`);

    const crds = await kc.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition();
    const berthCrds = crds.items.filter((c) => c.spec.group === 'berth.dev');
    expect(berthCrds.map((c) => c.spec.names.plural).sort()).toEqual([...berthKinds].sort());
    for (const crd of berthCrds) {
      expect(crd.status?.conditions).toContainEqual(expect.objectContaining({ type: 'Established', status: 'True' }));
      expect(crd.metadata?.annotations?.['helm.sh/resource-policy']).toBe('keep');
    }

    const deployment = await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: release, namespace });
    expect(deployment.spec?.replicas).toBe(2);
    expect(deployment.spec?.template.spec?.serviceAccountName).toBe(release);
    const services = await core.listNamespacedService({ namespace });
    expect(
      Object.fromEntries(services.items.map((s) => [s.metadata!.name!, s.spec!.ports!.map((p) => `${p.name}:${p.port}->${p.targetPort}`)])),
    ).toEqual({
      [release]: ['http:80->http'],
      [`${release}-metrics`]: ['metrics:9090->probes'],
    });
    await core.readNamespacedServiceAccount({ name: release, namespace });

    // The facade reads the generated Secret as an API key: the key matches, only its hash is stored.
    const secret = await core.readNamespacedSecret({ name: `${release}-api-key`, namespace });
    const record = apiKeyRecordFromSecret(secret);
    expect(record?.organizationIds).toEqual([organization]);
    expect(matchApiKey(key, [record!])).toBe(record);
    expect(JSON.stringify(secret.data)).not.toContain(Buffer.from(key).toString('base64'));

    const serviceAccount = release;
    const inWatched = await permissions(
      serviceAccount,
      namespace,
      needed.map((a) => ({ ...a, namespace: elsewhere })),
    );
    expect(inWatched.filter((p) => !p.allowed)).toEqual([]);
    const inOperator = await permissions(
      serviceAccount,
      namespace,
      neededInOperatorNamespace.map((a) => ({ ...a, namespace })),
    );
    expect(inOperator.filter((p) => !p.allowed)).toEqual([]);
    expect((await permissions(serviceAccount, namespace, neededClusterWide)).filter((p) => !p.allowed)).toEqual([]);

    const denied = await permissions(serviceAccount, namespace, [
      ...forbidden.flatMap((a) => [{ ...a, namespace: elsewhere }, a]),
      { group: 'coordination.k8s.io', resource: 'leases', verb: 'update', namespace: elsewhere },
      { group: 'coordination.k8s.io', resource: 'leases', verb: 'delete', namespace },
    ]);
    expect(denied.filter((p) => p.allowed)).toEqual([]);

    // Uninstalling keeps the CRDs (and with them every Berth object) but removes the rest.
    const uninstalled = await helm(['uninstall', release, '--namespace', namespace]);
    expect(uninstalled.code).toBe(0);
    installed.splice(
      installed.findIndex((i) => i.release === release),
      1,
    );
    const after = await kc.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition();
    expect(after.items.filter((c) => c.spec.group === 'berth.dev')).toHaveLength(berthKinds.length);
    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    await expect(rbac.readClusterRole({ name: `${release}-manager` })).rejects.toMatchObject({ code: 404 });
  });

  it('with watchNamespaces, grants Roles in those namespaces only: no Secrets or Berth objects elsewhere', async () => {
    const namespace = await useNamespace('chart-scoped');
    const watched = await useNamespace('chart-team');
    const unwatched = await useNamespace('chart-other');
    const release = `berth-scoped-${suffix}`;
    await install(release, namespace, ['--set', `watchNamespaces={${watched}}`, '--set', 'crds.install=false']);

    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    await expect(rbac.readClusterRole({ name: `${release}-manager` })).rejects.toMatchObject({ code: 404 });
    await rbac.readNamespacedRole({ name: `${release}-manager`, namespace: watched });

    const serviceAccount = release;
    const inWatched = await permissions(
      serviceAccount,
      namespace,
      needed.map((a) => ({ ...a, namespace: watched })),
    );
    expect(inWatched.filter((p) => !p.allowed)).toEqual([]);
    const inOperator = await permissions(
      serviceAccount,
      namespace,
      neededInOperatorNamespace.map((a) => ({ ...a, namespace })),
    );
    expect(inOperator.filter((p) => !p.allowed)).toEqual([]);
    expect((await permissions(serviceAccount, namespace, neededClusterWide)).filter((p) => !p.allowed)).toEqual([]);

    const denied = await permissions(serviceAccount, namespace, [
      ...forbidden.flatMap((a) => [a, { ...a, namespace: watched }]),
      { group: '', resource: 'secrets', verb: 'get', namespace: unwatched },
      { group: '', resource: 'secrets', verb: 'list' },
      { group: '', resource: 'secrets', verb: 'create', namespace },
      { group: 'berth.dev', resource: 'deployments', verb: 'list' },
      { group: 'berth.dev', resource: 'deployments', verb: 'create', namespace: unwatched },
      { group: 'apps', resource: 'deployments', verb: 'create', namespace: unwatched },
      { group: '', resource: 'services', verb: 'get', namespace: unwatched },
      // Pod Security labels go on the watched namespaces alone.
      { group: '', resource: 'namespaces', verb: 'patch', name: unwatched },
      { group: '', resource: 'namespaces', verb: 'patch', name: 'kube-system' },
    ]);
    expect(denied.filter((p) => p.allowed)).toEqual([]);
    const labelled = await permissions(serviceAccount, namespace, [{ group: '', resource: 'namespaces', verb: 'patch', name: watched }]);
    expect(labelled.filter((p) => !p.allowed)).toEqual([]);
  });
});

describe('values.yaml', () => {
  it('documents every top-level value in charts/berth/README.md', () => {
    const values = parse(readFileSync(join(chart, 'values.yaml'), 'utf8')) as Record<string, unknown>;
    const readme = readFileSync(join(chart, 'README.md'), 'utf8');
    const missing = Object.keys(values).filter((key) => !readme.includes(`\`${key}`));
    expect(missing).toEqual([]);
  });
});
