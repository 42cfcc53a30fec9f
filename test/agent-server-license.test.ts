// The reference agent server's licence key, against a real API server and a running Berth: the platform
// team names a Secret in Berth's namespace (--agent-server-license-secret); each organization namespace
// gets a copy, which follows the Secret when it changes and goes when it does; an agent deployment on the
// reference's image reads its key from that copy, never from a variable of that name its tenant sets.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '../workbench/support/poll.ts';
import { httpApi, type Api } from './support/http-api.ts';
import { kubectl } from './support/cluster.ts';
import { useOrganization } from './support/organization.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from './support/berth-process.ts';

const platformSecret = 'platform-agent-license';
let berth: BerthProcess;
let operatorNamespace: string;
let organization: string;
let api: Api;

/** The platform's Secret in Berth's namespace, holding `key`. */
async function putLicense(key: string): Promise<void> {
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: platformSecret }, stringData: { LANGGRAPH_CLOUD_LICENSE_KEY: key } };
  const applied = await kubectl(['apply', '-n', operatorNamespace, '-f', '-'], JSON.stringify(secret));
  expect(applied.code, applied.stderr).toBe(0);
}

/** The organization's copy, decoded, or undefined while there is none. */
async function copiedKey(): Promise<string | undefined> {
  const got = await kubectl(['get', 'secret', 'berth-agent-server-license', '-n', organization, '-o', 'json']);
  if (got.code !== 0) return undefined;
  const data = (JSON.parse(got.stdout) as { data?: Record<string, string> }).data ?? {};
  return Buffer.from(data.LANGGRAPH_CLOUD_LICENSE_KEY ?? '', 'base64').toString();
}

beforeAll(async () => {
  const created = await useOrganization('licensed');
  ({ operatorNamespace, namespace: organization } = created);
  await putLicense('key-one');
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [operatorNamespace, organization] }),
    '--agent-server-license-secret',
    platformSecret,
  ]);
  await waitReady(berth);
  api = httpApi(`http://127.0.0.1:${await berth.facadePort()}`, { 'x-api-key': created.key, 'X-Tenant-ID': created.id });
});

afterAll(async () => {
  await berth?.stop();
});

describe("the reference agent server's licence key", () => {
  it('is copied into each organization namespace, and follows the platform Secret when it changes', async () => {
    await eventually(async () => (await copiedKey()) === 'key-one' || undefined, 20_000, 'the copy');
    await putLicense('key-two');
    await eventually(async () => (await copiedKey()) === 'key-two' || undefined, 20_000, 'the rotated copy');
  });

  it("reaches an agent deployment on the reference's image from the copy, not from the tenant's secret of that name", async () => {
    const created = await api.ok('POST', '/v2/deployments', {
      name: 'licensed-agent',
      source: 'internal_docker',
      source_config: {},
      source_revision_config: { image_uri: 'registry.test:5000/licensed/agent@sha256:' + '0'.repeat(64) },
      secrets: [{ name: 'LANGGRAPH_CLOUD_LICENSE_KEY', value: 'the-tenants-own' }],
    });
    expect(created.id).toBeTruthy();
    const env = await eventually(
      async () => {
        const got = await kubectl([
          'get',
          'deployments.apps',
          'licensed-agent',
          '-n',
          organization,
          '-o',
          'jsonpath={.spec.template.spec.containers[0].env}',
        ]);
        return got.code === 0 && got.stdout ? (JSON.parse(got.stdout) as { name: string; valueFrom?: object }[]) : undefined;
      },
      30_000,
      "the agent's workload",
    );
    expect(env.filter((entry) => entry.name === 'LANGGRAPH_CLOUD_LICENSE_KEY')).toEqual([
      {
        name: 'LANGGRAPH_CLOUD_LICENSE_KEY',
        valueFrom: { secretKeyRef: { name: 'berth-agent-server-license', key: 'LANGGRAPH_CLOUD_LICENSE_KEY' } },
      },
    ]);
  });

  it('is gone from the organizations once the platform Secret is', async () => {
    expect((await kubectl(['delete', 'secret', platformSecret, '-n', operatorNamespace])).code).toBe(0);
    await eventually(async () => (await copiedKey()) === undefined || undefined, 20_000, 'the copy gone');
  });
});
