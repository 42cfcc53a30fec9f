// Builds from uploaded sources (internal_source), as the reference's deploy tool runs a remote build:
// create the deployment with no sources yet, ask for an upload URL, PUT the .tar.gz there, PATCH
// revision_source internal_source with the object path, then poll the newest revision until DEPLOYED
// while reading its build logs. The archive goes to the organization's repository of the registry Berth
// issues tokens for, as an OCI image; the build Job fetches it with the organization's credential, runs the install command on it, builds its Dockerfile with BuildKit, and the app serves
// what was built. A bad upload (not gzip, used twice, a path never uploaded) is refused and changes nothing.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '../../workbench/support/poll.ts';
import { useOrganization } from '../support/organization.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { httpApi, revisionReaches, type Api } from '../support/http-api.ts';
import { exampleImage, filePushRegistry, httpGet, kubectlOk, sourceBuildFlags, startOrganizationRegistry } from './support.ts';
import type { PushRegistry } from '../../workbench/node/push-registry.ts';

let berth: BerthProcess;
let registry: PushRegistry | undefined;
let tool: Api;
let namespace: string;
let workdir: string;
let base: string;

/** A .tar.gz of `files`, as the deploy tool makes one of a project directory. */
function archive(files: Record<string, string>): Buffer {
  const dir = mkdtempSync(join(workdir, 'project-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  const file = join(workdir, `${randomUUID()}.tar.gz`);
  execFileSync('tar', ['-czf', file, '-C', dir, '.']);
  return readFileSync(file);
}

/** The PUT the tool makes, with the headers it sends (a signed-URL upload: no API key). */
async function upload(url: string, body: Buffer | string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'PUT',
    body,
    headers: { 'Content-Type': 'application/gzip', 'X-Goog-Content-Length-Range': '0,209715200' },
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  const { operatorNamespace, key, id: organization, ...org } = await useOrganization('uploads');
  namespace = org.namespace;
  base = await exampleImage('upload-base');
  workdir = mkdtempSync(join(tmpdir(), 'berth-uploads-'));
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [namespace, operatorNamespace] }),
    ...(await sourceBuildFlags()),
  ]);
  await waitReady(berth);
  registry = await startOrganizationRegistry(berth, operatorNamespace, join(workdir, 'registry'));
  tool = httpApi(`http://127.0.0.1:${await berth.facadePort()}/api-host`, { 'x-api-key': key, 'X-Tenant-ID': organization });
}, 600_000);

afterAll(async () => {
  await registry?.stop();
  await berth?.stop();
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

describe('a remote build of uploaded sources, on the real node', () => {
  let id: string;

  it('creates an internal_source deployment that waits for its sources', async () => {
    const created = await tool.ok('POST', '/v2/deployments', {
      name: 'remote',
      source: 'internal_source',
      // Small requests: the node's two cores are shared by every file of the suite.
      source_config: {
        deployment_type: 'dev_zero',
        resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.1, memory_mb: 64, db_cpu: 0.1, db_memory_mb: 128 },
      },
      source_revision_config: { graph_config_path: 'app.json' },
      secrets: [],
    });
    id = created.id;
    expect(created.latest_revision_id).toBeNull();
    const reason = await eventually(
      async () =>
        (await kubectlOk([
          'get',
          'bdeploy',
          '-n',
          namespace,
          'remote',
          '-o',
          'jsonpath={.status.conditions[?(@.type=="Reconciling")].reason}',
        ])) || undefined,
      30_000,
      'the Reconciling condition',
    );
    expect(reason).toBe('AwaitingSource');
    const pushToken = await tool.call('POST', `/v2/deployments/${id}/push-token`);
    expect(pushToken.status).toBe(400);
  });

  it('refuses a body that is not gzip and a path never uploaded, changing nothing; the URL is single-use', async () => {
    const grant = await tool.ok('POST', `/v2/deployments/${id}/upload-url`);
    expect(grant.upload_url).toMatch(/\/api-host\/v2\/uploads\/bsu_/);
    expect(grant.object_path).toMatch(/^sources\/[0-9a-f]{32}\.tar\.gz$/);
    expect(grant.upload_headers).toEqual({ 'Content-Type': 'application/gzip' });

    const notGzip = await upload(grant.upload_url, 'just text');
    expect(notGzip.status).toBe(400);
    expect(String(notGzip.body['detail'])).toMatch(/not a gzip/);
    const never = await tool.call('PATCH', `/v2/deployments/${id}`, {
      revision_source: 'internal_source',
      source_revision_config: { source_tarball_path: grant.object_path },
    });
    expect(never.status).toBe(422);
    expect(never.body.detail[0].loc).toEqual(['body', 'source_revision_config', 'source_tarball_path']);
    expect((await tool.ok('GET', `/v2/deployments/${id}`)).latest_revision_id).toBeNull();

    const sources = archive({ Dockerfile: `FROM ${base}\nENV APP_VERSION=unused\n` });
    const stored = await upload(grant.upload_url, sources);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ object_path: grant.object_path, size: sources.length });
    const again = await upload(grant.upload_url, sources);
    expect(again.status).toBe(409);
    const forged = await upload(grant.upload_url.replace('/bsu_e', '/bsu_f'), sources);
    expect(forged.status).toBe(403);
  });

  it('builds the uploaded sources after the install command ran on them, records the tracked packages and serves what it built', async () => {
    const grant = await tool.ok('POST', `/v2/deployments/${id}/upload-url`);
    const sources = archive({ Dockerfile: `FROM ${base}\nRUN ["/app", "version"]\n` });
    expect((await upload(grant.upload_url, sources)).status).toBe(200);
    const patched = await tool.ok('PATCH', `/v2/deployments/${id}`, {
      revision_source: 'internal_source',
      source_revision_config: { source_tarball_path: grant.object_path, graph_config_path: 'app.json' },
      // The install command changes the sources before the image step: what answers proves it ran.
      source_config: { install_command: "printf 'ENV APP_VERSION=uploaded-1\\n' >> Dockerfile" },
      secrets: [],
      tracked_packages: ['example-sdk:1.2.3'],
    });
    const seen: string[] = [];
    const revision = await revisionReaches(tool, id, patched.latest_revision_id, ['DEPLOYED', 'BUILD_FAILED', 'DEPLOY_FAILED'], {
      seen,
      timeoutMs: 240_000,
    });
    expect(revision.status, revision.status_message).toBe('DEPLOYED');
    expect(seen).toContain('BUILDING');
    expect(revision.source_revision_config.source_tarball_path).toBe(grant.object_path);
    expect(revision.tracked_packages).toEqual(['example-sdk:1.2.3']);
    expect(revision.image_uri).toMatch(new RegExp(`^${filePushRegistry()}/${namespace}/remote:${revision.name}@sha256:[0-9a-f]{64}$`));

    const logs = await tool.ok('GET', `/v2/deployments/${id}/revisions/${revision.id}/logs?type=build&order=asc&limit=1000`);
    expect(logs.logs.some((line: { message: string }) => line.message.includes('RUN ["/app", "version"]'))).toBe(true);

    const url = (await tool.ok('GET', `/v2/deployments/${id}`)).url;
    await eventually(
      async () => (await httpGet(`${url}/`).catch(() => ({ body: '' }))).body.trim() === 'berth-example uploaded-1',
      20_000,
      'the built sources answering',
    );
  });
});
