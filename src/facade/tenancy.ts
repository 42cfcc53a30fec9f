// Who is asking: the organization an API key reaches (chosen with X-Tenant-Id among several) and the
// namespace that is that organization. Pure: the caller hands in what the caches hold.
import type { V1Namespace } from '@kubernetes/client-node';
import { labels } from '../api/group.ts';
import type { DeepReadonly } from '../runtime/types.ts';
import { matchApiKey, type ApiKeyRecord } from './api-keys.ts';
import { unauthorized } from './errors.ts';

export interface Tenant {
  organizationId: string;
  namespace: string;
}

export interface TenancyInputs {
  apiKey: string | string[] | undefined;
  tenantId: string | string[] | undefined;
  keys: Iterable<ApiKeyRecord>;
  namespaces: Iterable<DeepReadonly<V1Namespace>>;
}

export function resolveTenant(inputs: TenancyInputs): Tenant {
  const apiKey = single(inputs.apiKey);
  if (!apiKey) throw unauthorized('Missing API key: send it in the X-Api-Key header.');
  const record = matchApiKey(apiKey, inputs.keys);
  if (!record) throw unauthorized('Invalid API key.');
  const tenantId = single(inputs.tenantId)?.trim();
  const organizationId = tenantId || record.organizationIds[0];
  if (!organizationId || !record.organizationIds.includes(organizationId)) {
    throw unauthorized(`The API key cannot reach organization ${tenantId}.`);
  }
  const namespace = organizationNamespace(organizationId, inputs.namespaces);
  if (!namespace) throw unauthorized(`Organization ${organizationId} has no namespace.`);
  return { organizationId, namespace };
}

/** The namespace labelled with the organization's id; the first by name when several claim it. */
export function organizationNamespace(organizationId: string, namespaces: Iterable<DeepReadonly<V1Namespace>>): string | undefined {
  const names: string[] = [];
  for (const namespace of namespaces) {
    const name = namespace.metadata?.name;
    if (name && namespace.metadata?.labels?.[labels.organizationId] === organizationId && !namespace.metadata.deletionTimestamp) {
      names.push(name);
    }
  }
  return names.sort()[0];
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
