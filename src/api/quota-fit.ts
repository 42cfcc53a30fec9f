// Whether a deployment can ever run within its organization's quota (the organization policy's
// resourceQuota): the requests of the application pods it keeps at its fewest, against the quota's
// hard limits. One that never fits is refused (the HTTP API's 422; Stalled, QuotaExceeded, when applied
// with kubectl); one that fits once other workloads free room waits for it (WaitingForQuota). Counts
// the application alone, so it never refuses a deployment that could fit. Pure.
import { quantityValue } from '../runtime/quantity.ts';
import { tierMinReplicas } from './deployment.ts';
import { type SizeName, requestAndLimit, serverSizing } from './sizes.ts';

/** The organization policy's quota as the installation applies it: its hard limits, and the factor it
 * scales every request by (--request-scale). */
export interface OrganizationQuota {
  hard: Readonly<Record<string, string>>;
  requestScale: number;
}

export interface QuotaExcess {
  /** The resourceSpec field to lower. */
  field: 'cpu' | 'memoryMb' | 'minScale';
  message: string;
}

interface SourceConfigSizing {
  deploymentType?: string | null | undefined;
  resourceSpec?:
    | {
        minScale?: number | null;
        cpu?: number | null;
        cpuLimit?: number | null;
        memoryMb?: number | null;
        memoryLimitMb?: number | null;
        size?: SizeName | null;
      }
    | null
    | undefined;
}

/** The first hard limit the deployment's fewest application pods exceed, with the numbers, or undefined. */
export function quotaExcess(
  sourceConfig: SourceConfigSizing | null | undefined,
  organizationQuota: OrganizationQuota | undefined,
): QuotaExcess | undefined {
  if (!organizationQuota) return undefined;
  const { hard: quota, requestScale } = organizationQuota;
  const resources = sourceConfig?.resourceSpec ?? {};
  const pods = Math.max(resources.minScale ?? 1, tierMinReplicas(sourceConfig?.deploymentType), 1);
  const defaults = serverSizing(resources.size);
  // What each pod asks for, as the renderer sizes it (a default request held to the spec's limit).
  const cores = requestAndLimit(resources.cpu, resources.cpuLimit, defaults.cpu, defaults.cpuLimit).request * pods;
  const mebibytes = requestAndLimit(resources.memoryMb, resources.memoryLimitMb, defaults.memoryMb, defaults.memoryLimitMb).request * pods;
  // What the pods request: the spec's figures times the installation's request scale (--request-scale).
  const scaled = (amount: number, unit: string) =>
    requestScale === 1
      ? `${+amount.toFixed(3)} ${unit}`
      : `${+amount.toFixed(3)} ${unit} (${+(amount * requestScale).toFixed(3)} at this installation's request scale, ${requestScale})`;
  const asked: { keys: string[]; field: QuotaExcess['field']; value: number; shown: string }[] = [
    { keys: ['requests.cpu', 'cpu'], field: 'cpu', value: cores * requestScale, shown: scaled(cores, 'CPU') },
    {
      keys: ['requests.memory', 'memory'],
      field: 'memoryMb',
      value: mebibytes * requestScale * 2 ** 20,
      shown: scaled(mebibytes, 'MiB of memory'),
    },
    { keys: ['pods'], field: 'minScale', value: pods, shown: `${pods} pods` },
  ];
  const replicas = `${pods} replica${pods === 1 ? '' : 's'}`;
  for (const { keys, field, value, shown } of asked) {
    for (const key of keys) {
      const hard = quota[key] === undefined ? undefined : quantityValue(quota[key]);
      if (hard !== undefined && value > hard)
        return {
          field,
          message: `asks for ${shown} for its ${replicas} at the fewest, more than the organization's quota allows in all (${key}=${quota[key]}): it could never run`,
        };
    }
  }
  return undefined;
}
