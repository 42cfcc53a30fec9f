// Berth's namespace patches narrowed by the API server's own policy engine (src/api/namespace-policy.ts,
// the chart's templates/namespace-policy.yaml): with RBAC's `patch` on every namespace, Berth's identity
// still changes only the Pod Security labels of an organization's namespace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labels } from '../src/api/group.ts';
import { renderNamespacePolicy } from '../src/api/namespace-policy.ts';
import { eventually } from '../workbench/support/poll.ts';
import { kubectl, useNamespace } from './support/cluster.ts';

const suffix = `${process.pid}-${Date.now()}`;
const policyName = `berth-namespaces-test-${suffix}`;
// The identity the policy is bound to, with RBAC's patch on every namespace as the chart grants it.
const berthUser = `berth-namespace-test-${suffix}`;
const asBerth = `--as=${berthUser}`;

let organization: string;
let plain: string;

beforeAll(async () => {
  organization = await useNamespace('ns-policy-org', { [labels.organizationId]: 'ns-policy-org' });
  plain = await useNamespace('ns-policy-plain');
  const role = ['create', 'clusterrole', policyName, '--verb=get,list,watch,patch,update', '--resource=namespaces'];
  expect((await kubectl(role)).code).toBe(0);
  expect((await kubectl(['create', 'clusterrolebinding', policyName, `--clusterrole=${policyName}`, `--user=${berthUser}`])).code).toBe(0);
  const policy = renderNamespacePolicy(berthUser, policyName).map((object) => JSON.stringify(object));
  expect((await kubectl(['apply', '-f', '-'], policy.join('\n'))).code).toBe(0);
  // The policy takes effect once the API server has loaded it: until then the refusal below is not one.
  await eventually(
    // A new value each time: kubectl sends nothing for a label it would leave as it is.
    async () =>
      (await kubectl(['label', 'namespace', plain, `probe=${Date.now()}`, '--overwrite', asBerth])).stderr.includes('denied request'),
    30_000,
    'the namespace policy in force',
  );
});

afterAll(async () => {
  await kubectl(['delete', 'validatingadmissionpolicybinding,validatingadmissionpolicy', policyName, '--ignore-not-found']);
  await kubectl(['delete', 'clusterrolebinding,clusterrole', policyName, '--ignore-not-found']);
});

async function labelsOf(namespace: string): Promise<Record<string, string>> {
  const { stdout } = await kubectl(['get', 'namespace', namespace, '-o', 'json']);
  return (JSON.parse(stdout) as { metadata: { labels?: Record<string, string> } }).metadata.labels ?? {};
}

describe("Berth's namespace patches", () => {
  it("set an organization namespace's Pod Security labels, the way Berth applies them", async () => {
    const manifest = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: organization, labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } },
    });
    const applied = await kubectl(['apply', '--server-side', '--field-manager=berth-pod-security', '-f', '-', asBerth], manifest);
    expect(applied.stderr).toBe('');
    expect(await labelsOf(organization)).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'baseline',
      [labels.organizationId]: 'ns-policy-org',
    });
  });

  it('are refused on a namespace that is no organization, which keeps its labels', async () => {
    const before = await labelsOf(plain);
    const result = await kubectl(['label', 'namespace', plain, 'pod-security.kubernetes.io/enforce=privileged', asBerth]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('Berth changes organization namespaces only');
    expect(await labelsOf(plain)).toEqual(before);
  });

  it("are refused when they change any other label of an organization's namespace, or remove its organization", async () => {
    const before = await labelsOf(organization);
    const other = await kubectl(['label', 'namespace', organization, 'team=attacker', asBerth]);
    expect(other.stderr).toContain("Berth changes a namespace's pod-security.kubernetes.io labels only");
    const moved = await kubectl(['label', 'namespace', organization, `${labels.organizationId}=someone-else`, '--overwrite', asBerth]);
    expect(moved.stderr).toContain("Berth changes a namespace's pod-security.kubernetes.io labels only");
    const removed = await kubectl(['label', 'namespace', organization, `${labels.organizationId}-`, asBerth]);
    expect(removed.stderr).toContain("Berth changes a namespace's pod-security.kubernetes.io labels only");
    expect(await labelsOf(organization)).toEqual(before);
  });

  it("are refused when they annotate an organization's namespace", async () => {
    const result = await kubectl([
      'annotate',
      'namespace',
      organization,
      'scheduler.alpha.kubernetes.io/node-selector=pool=tenant',
      asBerth,
    ]);
    expect(result.stderr).toContain("Berth changes no namespace's annotations or finalizers");
  });

  it('leave everyone else alone', async () => {
    expect((await kubectl(['label', 'namespace', plain, 'team=platform'])).code).toBe(0);
    expect(await labelsOf(plain)).toMatchObject({ team: 'platform' });
  });
});
