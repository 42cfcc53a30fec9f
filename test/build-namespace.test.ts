// Builds apart from their organization (--build-namespace), against a real API server: the Job lands in
// the build namespace, named by its Revision's uid and labelled with whose build it is; its credentials
// are copies in a Secret of its own; nothing of the build is in the organization's namespace; the
// finalizer removes the Job with the Deployment. (The node suite runs such builds for real.)
import { CoreV1Api, type V1Job, type V1Secret } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Revision } from '../src/api/index.ts';
import { clusterDnsEgress } from '../src/api/cluster-dns.ts';
import { registerDeploymentControllers } from '../src/reconcilers/deployment/index.ts';
import { prepareBuildNamespace, renderBuildNetworkPolicy } from '../src/reconcilers/deployment/builds/build-namespace.ts';
import { createLogger, kubeRequest, Manager, type KubeObject } from '../src/runtime/index.ts';
import { eventually } from '../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from './support/cluster.ts';
import { managedSecretLabels, sharedSecretLabels } from '../workbench/support/shared-secrets.ts';

const kc = testKubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const api = '/apis/berth.dev/v1alpha1';
const logger = createLogger({ level: process.env.BERTH_TEST_LOG_LEVEL ?? 'silent' });

let namespace: string;
let builds: string;
let manager: Manager;

beforeAll(async () => {
  namespace = await useNamespace('org');
  builds = await useNamespace('builds');
  await prepareBuildNamespace(kc, builds, logger);
  manager = new Manager({ kubeConfig: kc, healthPort: false, logger, processMetrics: false });
  registerDeploymentControllers(manager, {
    namespaces: [namespace, builds],
    registry: 'registry.test:5000',
    buildNamespace: builds,
    registryCredentials: 'berth-organization',
  });
  await manager.start();
});

afterAll(async () => {
  await manager?.stop();
});

const jobs = (ns: string) => kubeRequest<{ items: V1Job[] }>(kc, { method: 'GET', path: `/apis/batch/v1/namespaces/${ns}/jobs` });

describe('a codehost build in the build namespace', () => {
  let deployment: Deployment;
  let revision: Revision;
  let job: V1Job;

  it('runs apart: named by its revision uid, labelled, owned by nobody; nothing of it beside the deployment', async () => {
    const registryConfig = JSON.stringify({ auths: { 'registry.test:5000': { auth: 'b3JnOnNlY3JldA==' } } });
    await core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: 'berth-organization', labels: managedSecretLabels },
        type: 'kubernetes.io/dockerconfigjson',
        stringData: { '.dockerconfigjson': registryConfig },
      },
    });
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'github-credentials', labels: sharedSecretLabels }, stringData: { token: 'ghp_apart' } },
    });
    const integration = await kubeRequest<{ metadata: { uid: string } }>(kc, {
      method: 'POST',
      path: `${api}/namespaces/${namespace}/codehostintegrations`,
      body: {
        apiVersion: 'berth.dev/v1alpha1',
        kind: 'CodeHostIntegration',
        metadata: { name: 'github' },
        spec: { provider: 'github', credentialsSecretRef: { name: 'github-credentials' } },
      },
    });
    deployment = await kubeRequest<Deployment>(kc, {
      method: 'POST',
      path: `${api}/namespaces/${namespace}/deployments`,
      body: {
        apiVersion: 'berth.dev/v1alpha1',
        kind: 'Deployment',
        metadata: { name: 'app' },
        spec: {
          source: 'codehost',
          sourceConfig: { integrationId: integration.metadata.uid, repoUrl: 'https://github.com/acme/app' },
          sourceRevisionConfig: { repoRef: 'main' },
        },
      },
    });
    job = await eventually(
      async () => (await jobs(builds)).items.find((j) => j.metadata?.labels?.['berth.dev/build-for-namespace'] === namespace),
      30_000,
      'the build Job',
    );
    const revisions = await kubeRequest<{ items: Revision[] }>(kc, { method: 'GET', path: `${api}/namespaces/${namespace}/revisions` });
    revision = revisions.items[0]!;
    expect(job.metadata?.name).toBe(`build-${revision.metadata.uid}`);
    expect(job.metadata?.ownerReferences).toBeUndefined();
    expect(job.metadata?.labels).toMatchObject({
      'berth.dev/revision': revision.metadata.name,
      'berth.dev/build-for-deployment': deployment.metadata.uid,
    });
    expect(job.spec?.template.spec?.automountServiceAccountToken).toBe(false);
    expect((await jobs(namespace)).items).toEqual([]);
  });

  it("copies the organization's registry credential and the code host token into the build's own Secret, owned by its Job", async () => {
    const secret = await eventually(
      () =>
        core.readNamespacedSecret({ namespace: builds, name: job.metadata!.name! }).catch(() => undefined) as Promise<V1Secret | undefined>,
      30_000,
      "the build's Secret",
    );
    expect(secret.metadata?.ownerReferences).toEqual([expect.objectContaining({ kind: 'Job', uid: job.metadata?.uid })]);
    expect(Buffer.from(secret.data!.token!, 'base64').toString()).toBe('ghp_apart');
    expect(JSON.parse(Buffer.from(secret.data!['.dockerconfigjson']!, 'base64').toString())).toEqual({
      auths: { 'registry.test:5000': { auth: 'b3JnOnNlY3JldA==' } },
    });
    const pod = job.spec!.template.spec!;
    expect(pod.initContainers!.find((c) => c.name === 'clone')!.env).toContainEqual({
      name: 'GIT_TOKEN',
      valueFrom: { secretKeyRef: { name: job.metadata!.name!, key: 'token', optional: true } },
    });
  });

  it("follows the Job: a failed build is the revision's BUILD_FAILED", async () => {
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const failed = { status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
    await kubeRequest(kc, {
      method: 'PATCH',
      path: `/apis/batch/v1/namespaces/${builds}/jobs/${job.metadata!.name}/status`,
      contentType: 'application/merge-patch+json',
      body: {
        status: {
          startTime: now,
          failed: 1,
          conditions: [
            { type: 'FailureTarget', ...failed, lastProbeTime: now, lastTransitionTime: now },
            { type: 'Failed', ...failed, lastProbeTime: now, lastTransitionTime: now },
          ],
        },
      },
    });
    await eventually(
      async () => {
        const current = await kubeRequest<Revision>(kc, {
          method: 'GET',
          path: `${api}/namespaces/${namespace}/revisions/${revision.metadata.name}`,
        });
        return current.status?.status === 'BUILD_FAILED' ? current : undefined;
      },
      30_000,
      'BUILD_FAILED',
    );
  });

  it('removes the Job with the deployment (no ownerReference crosses namespaces: the finalizer does it)', async () => {
    await kubeRequest(kc, { method: 'DELETE', path: `${api}/namespaces/${namespace}/deployments/app` });
    await eventually(
      async () => (await jobs(builds)).items.every((j) => j.metadata?.deletionTimestamp || j.metadata?.name !== job.metadata?.name),
      30_000,
      'the build Job removed',
    );
    await eventually(
      () =>
        kubeRequest(kc, { method: 'GET', path: `${api}/namespaces/${namespace}/deployments/app` }).then(
          () => false,
          () => true,
        ),
      30_000,
      'the deployment gone',
    );
  });

  it('keeps the build namespace closed: its policy takes no connection and lets builds out but for link-local addresses', async () => {
    const policy = await kubeRequest<{
      spec: { policyTypes: string[]; ingress?: unknown[]; egress: { to: { ipBlock: { except: string[] } }[] }[] };
    }>(kc, {
      method: 'GET',
      path: `/apis/networking.k8s.io/v1/namespaces/${builds}/networkpolicies/berth-builds`,
    });
    expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(policy.spec.ingress ?? []).toEqual([]);
    expect(policy.spec.egress[0]!.to[0]!.ipBlock.except).toEqual(['169.254.0.0/16']);
    // Cluster DNS stays reachable, whatever networks the installation blocks.
    expect(policy.spec.egress[2]).toEqual(clusterDnsEgress);
  });

  it('blocks the networks the installation names (--build-blocked-cidrs), each in its family', () => {
    const policy = renderBuildNetworkPolicy('b', ['169.254.0.0/16', 'fe80::/10', '10.244.0.0/16']) as KubeObject & {
      spec: { egress: { to: { ipBlock?: { cidr: string; except?: string[] } }[] }[] };
    };
    expect(policy.spec.egress.slice(0, 2).map((rule) => rule.to[0]!.ipBlock)).toEqual([
      { cidr: '0.0.0.0/0', except: ['169.254.0.0/16', '10.244.0.0/16'] },
      { cidr: '::/0', except: ['fe80::/10'] },
    ]);
  });
});
