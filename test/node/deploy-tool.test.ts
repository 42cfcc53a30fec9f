// A deploy tool written for the reference control plane, played against Berth on the real node as
// such a tool runs from CI against a self-hosted installation: every call under /api-host with an API
// key and X-Tenant-Id; look the deployment up by name, create it (internal_docker, dev_zero, no image
// yet) when there is none, PATCH the pushed image, poll the newest revision until DEPLOYED, read its
// deploy logs; a second run finds the deployment by name and ships the next image the same way.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '../../workbench/support/poll.ts';
import { useOrganization } from '../support/organization.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { httpApi, type Api } from '../support/http-api.ts';
import { exampleImage, httpGet } from './support.ts';

let berth: BerthProcess;
let tool: Api;
let organization: string;

beforeAll(async () => {
  const { operatorNamespace, namespace, key, id } = await useOrganization('tool');
  organization = id;
  berth = spawnBerth(inject('kubeconfigPath'), runArgs({ operatorNamespace, watchNamespaces: [namespace, operatorNamespace] }));
  await waitReady(berth);
  tool = httpApi(`http://127.0.0.1:${await berth.facadePort()}/api-host`, { 'x-api-key': key, 'X-Tenant-ID': organization });
});

afterAll(async () => {
  await berth?.stop();
});

/** One run of the tool: returns the deployment id, the revision it shipped and that revision's deploy logs. */
async function ship(name: string, image: string) {
  const found = await tool.ok('GET', `/v2/deployments?name_contains=${encodeURIComponent(name)}&limit=100`);
  let deployment = found.resources.find((candidate: { name: string }) => candidate.name === name);
  deployment ??= await tool.ok('POST', '/v2/deployments', {
    name,
    source: 'internal_docker',
    source_config: { deployment_type: 'dev_zero', resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.1, memory_mb: 64 } },
    source_revision_config: {},
    secrets: [],
  });
  await tool.ok('PATCH', `/v2/deployments/${deployment.id}`, { source_revision_config: { image_uri: image } });
  const revision = await eventually(
    async () => {
      const newest = (await tool.ok('GET', `/v2/deployments/${deployment.id}/revisions?limit=1`)).resources[0];
      if (newest?.image_uri !== image) return undefined;
      if (newest.status.endsWith('_FAILED')) throw new Error(`revision ${newest.id} ${newest.status}`);
      return newest.status === 'DEPLOYED' ? newest : undefined;
    },
    120_000,
    `the newest revision of ${name} DEPLOYED with ${image}`,
  );
  const logs = await eventually(
    async () => {
      const page = await tool.ok('GET', `/v2/deployments/${deployment.id}/revisions/${revision.id}/logs?type=deploy&order=asc`);
      return page.logs.length > 0 ? page.logs : undefined;
    },
    30_000,
    'deploy logs',
  );
  return { id: deployment.id as string, revision: revision.id as string, logs: logs as { message: string }[] };
}

describe("a reference deploy tool's whole sequence, on the real node", () => {
  it('creates, ships an image, waits for DEPLOYED and reads the logs; the next run finds it by name and ships the next image', async () => {
    const first = await ship('tool-app', await exampleImage('tool-v1'));
    expect(first.logs.some((line) => line.message.includes('listening'))).toBe(true);
    const deployment = await tool.ok('GET', `/v2/deployments/${first.id}`);
    expect(deployment).toMatchObject({ name: 'tool-app', status: 'READY', active_revision_id: first.revision, tenant_id: organization });
    expect(deployment.source_config.deployment_type).toBe('dev_zero');
    expect(
      await eventually(
        async () => (await httpGet(`${deployment.url}/`)).body === 'berth-example tool-v1\n',
        20_000,
        'the first image answering',
      ),
    ).toBe(true);

    const second = await ship('tool-app', await exampleImage('tool-v2'));
    expect(second.id).toBe(first.id);
    expect(second.revision).not.toBe(first.revision);
    expect(
      await eventually(
        async () => (await httpGet(`${deployment.url}/`)).body === 'berth-example tool-v2\n',
        20_000,
        'the second image answering',
      ),
    ).toBe(true);
    expect((await tool.ok('GET', '/v2/deployments?name=tool-app')).resources).toHaveLength(1);
  });
});
