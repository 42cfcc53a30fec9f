// What steers traffic or scaling in an organization's namespace is Berth's alone, refused to anyone
// else by the API server's own admission policy (src/api/route-policy.ts), with the node's real CRDs:
// KEDA's ScaledObject and TriggerAuthentication, the HTTP add-on's InterceptorRoute and HTTPScaledObject,
// and the Gateway API's ReferenceGrant and Gateway. The team here holds a Role that grants those kinds (as
// a cluster that aggregates KEDA's roles into `edit` would): the policy is what refuses them. The same for the
// apps' ClusterIssuer (src/api/issuer-policy.ts), with cert-manager's Certificates.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureOrganizationNamespace } from '../../src/facade/api-keys.ts';
import { renderRoutePolicy, steeringResources } from '../../src/api/route-policy.ts';
import { defaultClusterControllers } from '../../src/api/admission-policy.ts';
import { kedaUser } from '../../workbench/node/keda.ts';
import { defaultCertManagerUser, renderIssuerPolicy } from '../../src/api/issuer-policy.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { kubectl, testKubeConfig, useNamespace } from '../support/cluster.ts';
import { kubectlOk } from './support.ts';

const policyName = `berth-steering-${process.pid}`;
const issuerPolicyName = `berth-issuer-${process.pid}`;
const appsIssuer = `berth-apps-${process.pid}`;
let namespace: string;
const identity = (name: string) => `system:serviceaccount:${namespace}:${name}`;

beforeAll(async () => {
  namespace = await useNamespace('steering');
  await ensureOrganizationNamespace(testKubeConfig(), namespace, randomUUID());
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'steering', namespace },
    rules: [...steeringResources, { apiGroups: ['cert-manager.io'], resources: ['certificates', 'certificaterequests'] }].map((rule) => ({
      ...rule,
      verbs: ['create', 'update', 'patch', 'get'],
    })),
  };
  // Bound to this file's namespace only: the Berths of the suite's other files write routes and KEDA's
  // objects in their organizations' namespaces meanwhile, as another identity.
  const ownNamespace = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } } };
  const bound = (objects: object[]) =>
    objects.map((object) =>
      (object as { kind: string }).kind === 'ValidatingAdmissionPolicyBinding'
        ? { ...object, spec: { ...(object as { spec: object }).spec, matchResources: ownNamespace } }
        : object,
    );
  const objects = [
    // As berth dev installs it: the node's KEDA writes back into ScaledObjects as its own user.
    ...bound(renderRoutePolicy(identity('berth'), policyName, [...defaultClusterControllers, kedaUser])),
    ...renderIssuerPolicy({
      issuer: appsIssuer,
      berthUser: identity('berth'),
      certManagerUser: defaultCertManagerUser,
      name: issuerPolicyName,
    }),
    role,
    ...['berth', 'tenant'].flatMap((name) => [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name, namespace },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'steering' },
        subjects: [{ kind: 'ServiceAccount', name, namespace }],
      },
    ]),
  ];
  await kubectlOk(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
});

afterAll(async () => {
  for (const name of [policyName, issuerPolicyName])
    await kubectl(['delete', 'validatingadmissionpolicybinding,validatingadmissionpolicy', name, '--ignore-not-found']);
});

/** One valid object of each kind, as a team would write it to take a host or steer scaling. */
const attempts = [
  {
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'ScaledObject',
    metadata: { name: 'steal' },
    spec: {
      scaleTargetRef: { name: 'app' },
      // A trigger that sends KEDA nowhere: the object below is made for real.
      triggers: [{ type: 'cpu', metricType: 'Utilization', metadata: { value: '50' } }],
    },
  },
  {
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'TriggerAuthentication',
    metadata: { name: 'steal' },
    spec: { secretTargetRef: [{ parameter: 'bearerToken', name: 'other', key: 'token' }] },
  },
  {
    apiVersion: 'http.keda.sh/v1beta1',
    kind: 'InterceptorRoute',
    metadata: { name: 'steal' },
    spec: {
      target: { service: 'app', port: 8000 },
      rules: [{ hosts: ['bank.example.com'] }],
      scalingMetric: { concurrency: { targetValue: 10 } },
    },
  },
  {
    apiVersion: 'http.keda.sh/v1alpha1',
    kind: 'HTTPScaledObject',
    metadata: { name: 'steal' },
    spec: {
      hosts: ['bank.example.com'],
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'app', service: 'app', port: 8000 },
      replicas: { min: 0, max: 1 },
    },
  },
  {
    apiVersion: 'gateway.networking.k8s.io/v1beta1',
    kind: 'ReferenceGrant',
    metadata: { name: 'steal' },
    spec: {
      from: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace: 'elsewhere' }],
      to: [{ group: '', kind: 'Service' }],
    },
  },
  {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name: 'steal' },
    spec: { gatewayClassName: 'berth', listeners: [{ name: 'http', port: 18080, protocol: 'HTTP', hostname: 'bank.example.com' }] },
  },
];

const create = (as: string, object: object) =>
  kubectl(['create', '--dry-run=server', '-n', namespace, '-f', '-', `--as=${identity(as)}`], JSON.stringify(object));

describe("what steers traffic or scaling in an organization's namespace", () => {
  it.each(attempts.map((object) => [object.kind, object] as const))(
    '%s: refused to the team, admitted from Berth',
    async (kind, object) => {
      // The policy is bound within seconds of its creation.
      const refused = await eventually(
        async () => {
          const result = await create('tenant', object);
          return result.code !== 0 && result.stderr.includes('denied request') ? result : undefined;
        },
        20_000,
        `${kind} refused by the policy`,
      );
      expect(refused.stderr).toContain(`${kind} objects in an organization's namespace are Berth's`);
      const admitted = await create('berth', object);
      expect(admitted.stderr).toBe('');
      expect(admitted.code).toBe(0);
    },
  );
});

describe("updates to what Berth made in an organization's namespace", () => {
  it("admit the cluster's controllers (KEDA's operator writing back a ScaledObject), never the team", async () => {
    const scaled = attempts[0]!;
    await eventually(async () => (await create('berth', scaled)).code === 0, 20_000, 'the policy admitting Berth');
    const made = await kubectl(['create', '-n', namespace, '-f', '-', `--as=${identity('berth')}`], JSON.stringify(scaled));
    expect(made.code, made.stderr).toBe(0);
    const patch = (as: string, body: object) =>
      kubectl([
        'patch',
        'scaledobject',
        'steal',
        '-n',
        namespace,
        '--type=merge',
        '--dry-run=server',
        '-p',
        JSON.stringify(body),
        `--as=${as}`,
      ]);
    // As the node's KEDA operator does to every ScaledObject (its own user, rights from its role).
    const keda = await patch('system:keda', { metadata: { finalizers: ['finalizer.keda.sh'] }, spec: { maxReplicaCount: 3 } });
    expect(keda.stderr).toBe('');
    expect(keda.code).toBe(0);
    for (const body of [{ metadata: { labels: { seen: 'yes' } } }, { spec: { maxReplicaCount: 100 } }]) {
      const team = await patch(identity('tenant'), body);
      expect(team.code, JSON.stringify(body)).not.toBe(0);
      expect(team.stderr).toContain("ScaledObject objects in an organization's namespace are Berth's");
    }
  });
});

/** A Certificate for another organization's names, from the issuer `issuerRef` names. */
const certificate = (issuerRef: object) => ({
  apiVersion: 'cert-manager.io/v1',
  kind: 'Certificate',
  metadata: { name: 'steal' },
  spec: { secretName: 'steal', dnsNames: ['*.victim.apps.example.com'], issuerRef },
});

describe("the apps' ClusterIssuer (cert-manager's real CRDs)", () => {
  it("signs for Berth alone: a team's Certificate naming it is refused, one naming an issuer of its own is not", async () => {
    const apps = certificate({ group: 'cert-manager.io', kind: 'ClusterIssuer', name: appsIssuer });
    const refused = await eventually(
      async () => {
        const result = await create('tenant', apps);
        return result.code !== 0 && result.stderr.includes('denied request') ? result : undefined;
      },
      20_000,
      'the Certificate refused by the policy',
    );
    expect(refused.stderr).toContain(`ClusterIssuer ${appsIssuer} signs the apps' certificates for Berth alone`);
    // The issuerRef's defaults (group cert-manager.io) name it too.
    expect((await create('tenant', certificate({ kind: 'ClusterIssuer', name: appsIssuer }))).code).not.toBe(0);
    expect((await create('berth', apps)).code).toBe(0);
    const own = await create('tenant', certificate({ kind: 'Issuer', name: appsIssuer }));
    expect(own.stderr).toBe('');
    expect(own.code).toBe(0);
  });
});
