// Pushed images: an internal_docker deployment waits for its first image; POST .../push-token gives a
// short-lived credential for that deployment's repository in Berth's registry (CNCF distribution with
// token authentication, Berth the issuer); `docker login` + `docker push` (crane, which speaks the same
// protocol, where no Docker engine runs; CI always has one) push it, a push to another repository is
// refused, and a PATCH with the pushed digest makes a revision that serves, pulled by the kubelet with
// the organization's pull secret (Secret berth-organization). Anonymous clients get nothing, nor does
// one organization's credential get another's repositories, nor does its pod run another's image that
// the node has cached.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pushRegistryAddress } from '../../workbench/node/network.ts';
import { randomUUID } from 'node:crypto';
import { ensureApiKey, ensureOrganizationNamespace } from '../../src/facade/api-keys.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from '../support/cluster.ts';
import { useOrganization } from '../support/organization.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { httpApi, type Api } from '../support/http-api.ts';
import { startPushRegistry, type PushRegistry } from '../../workbench/node/push-registry.ts';
import { crane, exampleImage, filePushRegistry, httpGet, kubectlOk } from './support.ts';

const run = promisify(execFile);
let berth: BerthProcess;
let api: Api;
let registry: PushRegistry;
let namespace: string;
let berthUrl: string;
let clientConfig: string;
let source: string;
let thief: { namespace: string; api: Api };
/** The registry for pushed images of the slot this file holds (./support.ts). */
let registryAddress: string;

/** docker when an engine answers that reaches the node's registries over HTTP (scripts/start-docker.sh
 * starts one so; CI always runs it), else crane: both log in and push through the token endpoint. */
const useDocker = await run('docker', ['info', '--format', '{{json .RegistryConfig.IndexConfigs}}'], {
  timeout: 10_000,
  encoding: 'utf8',
}).then(
  ({ stdout }) => stdout.includes(pushRegistryAddress),
  () => false,
);

async function client(command: string, args: string[], input?: string): Promise<string> {
  const env = { ...process.env, DOCKER_CONFIG: clientConfig };
  const child = run(command, args, { env, encoding: 'utf8', timeout: 120_000 });
  if (input !== undefined) child.child.stdin?.end(input);
  return (await child).stdout;
}

async function login(username: string, password: string): Promise<void> {
  if (useDocker) await client('docker', ['login', registryAddress, '--username', username, '--password-stdin'], password);
  else await client(crane(), ['auth', 'login', registryAddress, '--username', username, '--password-stdin'], password);
}

/** Pushes the example image as `target` and returns the digest the registry gives it. */
async function push(target: string): Promise<string> {
  if (!useDocker) {
    await client(crane(), ['copy', '--insecure', source, target]);
    return (await client(crane(), ['digest', '--insecure', target])).trim();
  }
  await client('docker', ['pull', '--quiet', source]);
  await client('docker', ['tag', source, target]);
  const out = await client('docker', ['push', target]);
  return /digest: (sha256:[0-9a-f]{64})/.exec(out)?.[1] ?? '';
}

beforeAll(async () => {
  registryAddress = filePushRegistry();
  if (process.env.CI === 'true' && !useDocker)
    throw new Error(
      `CI runs this with a Docker engine that reaches ${registryAddress} (.ci/run starts one first with scripts/start-docker.sh)`,
    );
  const kc = testKubeConfig();
  const { operatorNamespace, key, ...org } = await useOrganization('push');
  namespace = org.namespace;
  // Another organization of the same installation, which knows the first one's image names.
  const thiefNamespace = await useNamespace('push-thief');
  const thiefId = randomUUID();
  await ensureOrganizationNamespace(kc, thiefNamespace, thiefId);
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [namespace, thiefNamespace, operatorNamespace] }),
    '--push-registry',
    registryAddress,
  ]);
  await waitReady(berth).catch((error: Error) => {
    throw new Error(`${error.message}\n${berth.rawOutput.slice(-20).join('\n')}`);
  });
  berthUrl = `http://127.0.0.1:${await berth.facadePort()}`;
  api = httpApi(berthUrl, { 'x-api-key': key });
  thief = {
    namespace: thiefNamespace,
    api: httpApi(berthUrl, { 'x-api-key': (await ensureApiKey(kc, operatorNamespace, [thiefId])).key }),
  };
  clientConfig = mkdtempSync(join(tmpdir(), 'berth-docker-config-'));
  registry = await startPushRegistry({
    dir: join(clientConfig, 'registry'),
    address: registryAddress,
    kubeConfig: kc,
    operatorNamespace,
    berthUrl,
  });
  source = await exampleImage('push-v1');
}, 300_000);

afterAll(async () => {
  await registry?.stop();
  await berth?.stop();
  if (clientConfig) rmSync(clientConfig, { recursive: true, force: true });
});

describe(`pushed images (${useDocker ? 'docker' : 'crane'}) through Berth's registry, on the real node`, () => {
  let id: string;
  let pushedImage = '';
  let credential: { registry_url: string; repository_url: string; username: string; token: string };

  it('gives an internal_docker deployment that waits for its image a credential for its repository only', async () => {
    const created = await api.ok('POST', '/v2/deployments', {
      name: 'pushed',
      source: 'internal_docker',
      source_config: { resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.1, memory_mb: 64 } },
      source_revision_config: {},
    });
    id = created.id;
    expect(created.latest_revision_id).toBeNull();
    credential = await api.ok('POST', `/v2/deployments/${id}/push-token`);
    expect(credential).toMatchObject({
      registry_url: registryAddress,
      repository_url: `${registryAddress}/${namespace}/pushed`,
      username: 'berth-push',
    });
    expect(credential.token).toMatch(/^bpt_/);
  });

  it('refuses a wrong password at login, and a push to another repository with the right one', async () => {
    await expect(login(credential.username, `${credential.token}x`)).rejects.toThrow(useDocker ? /401|unauthorized/i : /./);
    // crane stores credentials without asking; the registry refuses them at the first push.
    if (!useDocker) await expect(push(`${credential.repository_url}:refused`)).rejects.toThrow(/UNAUTHORIZED|DENIED|401/i);
    await login(credential.username, credential.token);
    await expect(push(`${registryAddress}/${namespace}/other:v1`)).rejects.toThrow(/denied|unauthorized|insufficient_scope|401|403/i);
  });

  it('pushes the image, and a PATCH with the pushed digest makes a revision the kubelet pulls and serves', async () => {
    const digest = await push(`${credential.repository_url}:v1`);
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const image = `${credential.repository_url}@${digest}`;
    pushedImage = image;
    const patched = await api.ok('PATCH', `/v2/deployments/${id}`, { source_revision_config: { image_uri: image } });
    const revision = await eventually(
      async () => {
        const current = await api.ok('GET', `/v2/deployments/${id}/revisions/${patched.latest_revision_id}`);
        return ['DEPLOYED', 'DEPLOY_FAILED'].includes(current.status) ? current : undefined;
      },
      120_000,
      'the pushed revision deployed',
    );
    expect(revision.status, revision.status_message).toBe('DEPLOYED');
    expect(revision.image_uri).toBe(image);
    const url = (await api.ok('GET', `/v2/deployments/${id}`)).url;
    await eventually(
      async () => (await httpGet(url).catch(() => ({ body: '' }))).body.trim() === 'berth-example push-v1',
      20_000,
      'the pushed image answering',
    );
  });

  it("never runs an organization's image for another, though the node has it cached", async () => {
    const image = pushedImage;
    expect(image).toContain(`${namespace}/pushed@sha256:`);
    await thief.api.ok('POST', '/v2/deployments', {
      name: 'copy',
      source: 'external_docker',
      source_config: { resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.1, memory_mb: 64 } },
      source_revision_config: { image_uri: image },
    });
    const waiting = await eventually(
      async () => {
        const pods = JSON.parse(
          await kubectlOk(['get', 'pods', '-n', thief.namespace, '-l', 'berth.dev/deployment=copy', '-o', 'json']),
        ) as {
          items: {
            spec: { containers: { imagePullPolicy: string }[] };
            status: { containerStatuses?: { state: { waiting?: { reason: string } } }[] };
          }[];
        };
        const pod = pods.items[0];
        const reason = pod?.status.containerStatuses?.[0]?.state.waiting?.reason;
        return reason === 'ErrImagePull' || reason === 'ImagePullBackOff' ? pod : undefined;
      },
      60_000,
      "the copy's pod refused the image by the registry",
    );
    expect(waiting.spec.containers[0]?.imagePullPolicy).toBe('Always');
  });

  it('answers 400 for a deployment of another source, and a forged credential gets no token', async () => {
    const external = await api.ok('POST', '/v2/deployments', {
      name: 'external',
      source: 'external_docker',
      source_config: { resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.1, memory_mb: 64 } },
      source_revision_config: { image_uri: source },
    });
    const refused = await api.call('POST', `/v2/deployments/${external.id}/push-token`);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain('only available for internal_docker deployments');
    const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`berth-push:${password}`).toString('base64')}` });
    const scope = `repository:${namespace}/pushed:push,pull`;
    const denied = await fetch(`${berthUrl}/v2/registry/token?service=berth-registry&scope=${encodeURIComponent(scope)}`, {
      headers: basic('bpt_forged.token'),
    });
    expect(denied.status).toBe(401);
  });

  it("keeps an organization's images to itself: nothing for anonymous clients, its own repositories for its credential, not another's", async () => {
    const secret = JSON.parse(await kubectlOk(['get', 'secret', '-n', namespace, 'berth-organization', '-o', 'json']));
    expect(secret.type).toBe('kubernetes.io/dockerconfigjson');
    const auth = JSON.parse(Buffer.from(secret.data['.dockerconfigjson'], 'base64').toString()).auths[registryAddress];
    expect(auth.username).toBe('berth-organization');
    const organization = { authorization: `Basic ${auth.auth}` };
    const tokenFor = async (repository: string, headers: Record<string, string> = {}) => {
      const scope = `repository:${repository}:pull,push`;
      const answer = await fetch(`${berthUrl}/v2/registry/token?service=berth-registry&scope=${encodeURIComponent(scope)}`, { headers });
      const { token } = (await answer.json()) as { token: string };
      return { token, access: JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()).access };
    };
    const manifest = async (repository: string, token: string) =>
      (
        await fetch(`http://${registryAddress}/v2/${repository}/manifests/v1`, {
          headers: { authorization: `Bearer ${token}`, accept: manifestTypes },
        })
      ).status;
    const anonymous = await tokenFor(`${namespace}/pushed`);
    expect(anonymous.access).toEqual([]);
    expect(await manifest(`${namespace}/pushed`, anonymous.token)).toBe(401);
    const own = await tokenFor(`${namespace}/pushed`, organization);
    expect(own.access).toEqual([{ type: 'repository', name: `${namespace}/pushed`, actions: ['pull', 'push'] }]);
    expect(await manifest(`${namespace}/pushed`, own.token)).toBe(200);
    // Another organization's repository, and a name that merely starts like this one's.
    for (const foreign of ['victim-org/pushed', `${namespace}x/pushed`]) {
      const asked = await tokenFor(foreign, organization);
      expect(asked.access).toEqual([]);
      expect(await manifest(foreign, asked.token)).toBe(401);
    }
  });
});

const manifestTypes = [
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
].join(', ');
