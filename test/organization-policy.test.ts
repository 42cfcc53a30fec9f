// The organization policy against a real API server: every organization namespace in Berth's scope gets
// the installation's ResourceQuota, LimitRange and NetworkPolicy, which the API server then enforces on
// whatever the tenant creates (a pod past the quota is refused; a pod without requests gets the
// defaults). A tenant who deletes one sees it back; a pass that finds them as rendered writes nothing;
// a namespace that stops being an organization's loses them, and one never an organization's has none.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureOrganizationNamespace } from '../src/facade/api-keys.ts';
import { eventually, kubectl, testKubeConfig, useNamespace } from './support/cluster.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from './support/berth-process.ts';

const policy = {
  resourceQuota: { pods: '2' },
  limitRange: { defaultRequest: { cpu: '50m', memory: '32Mi' }, default: { cpu: '200m', memory: '128Mi' } },
  networkPolicy: { blockedCidrs: ['10.244.0.0/16', '169.254.169.254/32'] },
};
const kinds = 'resourcequota,limitrange,networkpolicy';
let berth: BerthProcess;
let operatorNamespace: string;
let organization: string;
let bystander: string;

beforeAll(async () => {
  operatorNamespace = await useNamespace('berth-policy-op');
  organization = await useNamespace('policy-org');
  bystander = await useNamespace('policy-other');
  await ensureOrganizationNamespace(testKubeConfig(), organization, randomUUID());
  berth = spawnBerth(inject('kubeconfigPath'), [...runArgs({ operatorNamespace, watchNamespaces: [operatorNamespace, organization, bystander] }), '--organization-policy', JSON.stringify(policy)]);
  await waitReady(berth);
});

afterAll(async () => {
  await berth?.stop();
});

async function objectsIn(namespace: string): Promise<string[]> {
  const got = await kubectl(['get', kinds, '-n', namespace, '-o', 'name']);
  return got.stdout.trim().split('\n').filter(Boolean).sort();
}

const pod = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image: 'busybox:1' }] } });

describe('the organization policy', () => {
  const expected = ['limitrange/berth-organization', 'networkpolicy.networking.k8s.io/berth-organization', 'resourcequota/berth-organization'];

  it('gives an organization namespace its quota, container limits and network policy, and no other namespace any', async () => {
    await eventually(async () => (await objectsIn(organization)).length === 3, 20_000, 'the three objects');
    expect(await objectsIn(organization)).toEqual(expected);
    expect(await objectsIn(bystander)).toEqual([]);
    const egress = JSON.parse((await kubectl(['get', 'networkpolicy', 'berth-organization', '-n', organization, '-o', 'jsonpath={.spec.egress[2]}'])).stdout);
    expect(egress).toEqual({ to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.244.0.0/16', '169.254.169.254/32'] } }, { ipBlock: { cidr: '::/0' } }] });
  });

  it('is enforced by the API server: a pod without requests gets the defaults, a pod past the quota is refused', async () => {
    expect((await kubectl(['apply', '-n', organization, '-f', '-'], pod('first'))).code).toBe(0);
    const resources = JSON.parse((await kubectl(['get', 'pod', 'first', '-n', organization, '-o', 'jsonpath={.spec.containers[0].resources}'])).stdout);
    expect(resources).toEqual({ requests: { cpu: '50m', memory: '32Mi' }, limits: { cpu: '200m', memory: '128Mi' } });
    expect((await kubectl(['apply', '-n', organization, '-f', '-'], pod('second'))).code).toBe(0);
    // The quota controller counts what the namespace holds; admission refuses past it from then on.
    await eventually(async () => (await kubectl(['get', 'resourcequota', 'berth-organization', '-n', organization, '-o', 'jsonpath={.status.used.pods}'])).stdout === '2', 20_000, 'the quota counting two pods');
    const third = await kubectl(['apply', '-n', organization, '-f', '-'], pod('third'));
    expect(third.code).not.toBe(0);
    expect(third.stderr).toContain('exceeded quota: berth-organization');
  });

  it('comes back when a tenant deletes a part, and a pass that finds it as rendered writes nothing', async () => {
    expect((await kubectl(['delete', 'resourcequota', 'berth-organization', '-n', organization])).code).toBe(0);
    await eventually(async () => (await objectsIn(organization)).includes('resourcequota/berth-organization'), 20_000, 'the quota back');
    const versions = async () => (await kubectl(['get', kinds, '-n', organization, '-o', 'jsonpath={.items[*].metadata.resourceVersion}'])).stdout;
    const before = await versions();
    // A change of the namespace runs a pass.
    expect((await kubectl(['annotate', 'namespace', organization, 'touched=1'])).code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await versions()).toBe(before);
  });

  it('removes them from a namespace that stops being an organization\'s', async () => {
    expect((await kubectl(['label', 'namespace', organization, 'berth.dev/organization-id-'])).code).toBe(0);
    await eventually(async () => (await objectsIn(organization)).length === 0, 20_000, 'the objects gone');
  });
});
