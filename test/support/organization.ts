// An organization as a test of a running Berth needs one: its namespace, the operator namespace Berth
// keeps its API keys in, and a key that reaches the organization.
import { randomUUID } from 'node:crypto';
import { ensureApiKey, ensureOrganizationNamespace } from '../../src/facade/api-keys.ts';
import { testKubeConfig, useNamespace } from './cluster.ts';

export interface TestOrganization {
  /** Where Berth keeps its API keys (its --namespace). */
  operatorNamespace: string;
  /** Where the organization's deployments run. */
  namespace: string;
  /** The organization's id (X-Tenant-Id). */
  id: string;
  /** An API key that reaches it. */
  key: string;
}

/** A new organization in namespaces named after `name`, deleted after the file's tests. */
export async function useOrganization(name: string): Promise<TestOrganization> {
  const kc = testKubeConfig();
  const operatorNamespace = await useNamespace(`berth-${name}-op`);
  const namespace = await useNamespace(name);
  const id = randomUUID();
  await ensureOrganizationNamespace(kc, namespace, id);
  const { key } = await ensureApiKey(kc, operatorNamespace, [id]);
  return { operatorNamespace, namespace, id, key };
}
