// Berth reads only the Secrets labelled berth.dev/secret, against a real API server: its cache holds no
// other Secret, a spec naming one reads as missing, and the Secrets an earlier Berth made without the
// label are labelled at a leader's start, after which the Deployments reading them go on.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readableSecretLabel, type Deployment } from '../src/api/index.ts';
import { registerDeploymentControllers } from '../src/reconcilers/deployment/index.ts';
import { createLogger, kubeRequest, Manager } from '../src/runtime/index.ts';
import { labelManagedSecrets, readableSecrets } from '../src/workloads/readable-secrets.ts';
import { eventually } from '../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from './support/cluster.ts';
import { sharedSecretLabels } from '../workbench/support/shared-secrets.ts';

const kc = testKubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const logger = createLogger({ level: process.env.BERTH_TEST_LOG_LEVEL ?? 'silent' });

let namespace: string;
let manager: Manager;

beforeAll(async () => {
  namespace = await useNamespace('readable');
  // As an earlier Berth left them: its own Secret without the label, and a team's Secret never shared.
  await core.createNamespacedSecret({
    namespace,
    body: { metadata: { name: 'legacy-secrets', labels: { 'app.kubernetes.io/managed-by': 'berth' } }, stringData: { API_KEY: 'k1' } },
  });
  await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'private' }, stringData: { password: 'not-for-berth' } } });
  await core.createNamespacedSecret({
    namespace,
    body: { metadata: { name: 'given', labels: sharedSecretLabels }, stringData: { token: 't' } },
  });
  manager = new Manager({ kubeConfig: kc, healthPort: false, logger, processMetrics: false });
  registerDeploymentControllers(manager, { namespaces: [namespace] });
  await manager.start();
});

afterAll(async () => {
  await manager?.stop();
});

const deploymentPath = (name = '') => `/apis/berth.dev/v1alpha1/namespaces/${namespace}/deployments${name ? `/${name}` : ''}`;
const secretReason = (deployment: Deployment) =>
  deployment.status?.conditions?.find((c) => ['Stalled', 'Reconciling'].includes(c.type) && c.status === 'True')?.reason;

describe('the Secrets Berth reads', () => {
  it('are those labelled berth.dev/secret, and no other is in its cache', async () => {
    await readableSecrets(manager, [namespace]).waitForSync();
    const cached = readableSecrets(manager, [namespace])
      .list(namespace)
      .map((secret) => secret.metadata?.name);
    expect(cached).toEqual(['given']);
  });

  it("are labelled at a leader's start where an earlier Berth made them, and the Deployment reading one goes on", async () => {
    await kubeRequest(kc, {
      method: 'POST',
      path: deploymentPath(),
      body: {
        apiVersion: 'berth.dev/v1alpha1',
        kind: 'Deployment',
        metadata: { name: 'legacy' },
        spec: { source: 'external_docker', sourceRevisionConfig: { imageUri: 'nginx:1.27' }, secrets: [{ name: 'API_KEY' }] },
      },
    });
    const read = () => kubeRequest<Deployment>(kc, { method: 'GET', path: deploymentPath('legacy') });
    await eventually(async () => secretReason(await read()) === 'SecretNotFound', 30_000, 'legacy-secrets unread while unlabelled');

    await labelManagedSecrets(kc, [namespace], logger);
    const labelled = await core.readNamespacedSecret({ namespace, name: 'legacy-secrets' });
    expect(labelled.metadata?.labels?.[readableSecretLabel]).toBe('managed');
    await eventually(async () => (await read()).status?.latestRevisionId !== undefined, 30_000, 'a revision once labelled');
    // A team's Secret is never labelled for it.
    expect((await core.readNamespacedSecret({ namespace, name: 'private' })).metadata?.labels).toBeUndefined();
    expect(readableSecrets(manager, [namespace]).get(namespace, 'private')).toBeUndefined();
  });
});
