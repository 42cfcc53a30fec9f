// What `berth dev` needs to call its own HTTP API at once: an organization (a labelled namespace) and
// an API key that reaches it. The key is printed once by the caller; only its hash is stored.
import { createHash } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { ensureApiKey, ensureOrganizationNamespace } from '../src/facade/api-keys.ts';

export interface DevAccessOptions {
  operatorNamespace: string;
  /** The organization's namespace. Default `berth-dev`. */
  namespace?: string;
  /** Default: a UUID derived from the namespace's name, the same on every start. */
  organizationId?: string;
  /** A key to store (e.g. from BERTH_API_KEY, so it survives restarts); default a fresh one. */
  key?: string;
}

export interface DevAccess {
  key: string;
  organizationId: string;
  namespace: string;
}

export async function ensureDevAccess(kubeConfig: KubeConfig, options: DevAccessOptions): Promise<DevAccess> {
  const namespace = options.namespace ?? 'berth-dev';
  const organizationId = options.organizationId ?? uuidFromName(namespace);
  await ensureOrganizationNamespace(kubeConfig, namespace, organizationId);
  const { key } = await ensureApiKey(kubeConfig, options.operatorNamespace, [organizationId], ...(options.key ? [options.key] : []));
  return { key, organizationId, namespace };
}

/** A stable UUID (version 5 layout) for a name, so a restarted dev cluster keeps its organization id. */
export function uuidFromName(name: string): string {
  const bytes = createHash('sha1').update(`berth.dev/organization/${name}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
