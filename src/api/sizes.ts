// Named sizes, as the reference offers them: `size` for the application server and its queue worker,
// `dbSize` for its Postgres, each small, medium or large. A size stands for the CPU and memory figures
// the spec leaves unset (the db* fields for the database): a figure the spec sets wins. Without a size,
// the defaults are Berth's own (the application's below; the database's by tier, render/postgres.ts).
// Pure.
import { z } from 'zod';

export const sizeNames = ['small', 'medium', 'large'] as const;
export type SizeName = (typeof sizeNames)[number];

/** Requests and limits, in cores and MiB, of one workload. */
export interface SizeFigures {
  readonly cpu: number;
  readonly memoryMb: number;
  readonly cpuLimit?: number;
  readonly memoryLimitMb?: number;
}

export const serverSizes: Readonly<Record<SizeName, SizeFigures>> = {
  small: { cpu: 0.5, cpuLimit: 1, memoryMb: 1024, memoryLimitMb: 2048 },
  medium: { cpu: 1, cpuLimit: 2, memoryMb: 2048, memoryLimitMb: 4096 },
  large: { cpu: 2, cpuLimit: 4, memoryMb: 4096, memoryLimitMb: 8192 },
};

export const databaseSizes: Readonly<Record<SizeName, SizeFigures & { readonly maxConnections: number }>> = {
  small: { cpu: 0.25, cpuLimit: 1, memoryMb: 512, memoryLimitMb: 1024, maxConnections: 100 },
  medium: { cpu: 1, cpuLimit: 2, memoryMb: 2048, memoryLimitMb: 4096, maxConnections: 200 },
  large: { cpu: 2, cpuLimit: 4, memoryMb: 8192, memoryLimitMb: 16384, maxConnections: 400 },
};

/** What the application's and queue worker's pods ask for when the spec names no size and no figure. */
export const applicationSizingDefaults: SizeFigures = { cpu: 0.5, memoryMb: 512 };

const describeSizes = (sizes: Readonly<Record<SizeName, SizeFigures>>) =>
  sizeNames
    .map((name) => {
      const { cpu, cpuLimit, memoryMb, memoryLimitMb } = sizes[name];
      return `${name} ${cpu} core${cpu > 1 ? 's' : ''} / ${memoryMb} MiB (limits ${cpuLimit} / ${memoryLimitMb})`;
    })
    .join(', ');

export const serverSizeSchema = z
  .enum(sizeNames)
  .describe(
    `Named size of the application server and its queue worker: ${describeSizes(serverSizes)}. ` +
      'A cpu or memory field set beside it wins. Applied in place (no new revision): the pods roll, threads and URL stay.',
  );

export const databaseSizeSchema = z
  .enum(sizeNames)
  .describe(
    `Named size of the Postgres database: ${describeSizes(databaseSizes)}; max connections ` +
      `${sizeNames.map((name) => databaseSizes[name].maxConnections).join(', ')}. A db* field set beside it wins. ` +
      'Applied in place (no new revision): the database restarts on its volume. Runs no database by itself.',
  );

/** The figures the application server and queue worker default to: the size's, else Berth's. */
export function serverSizing(size: SizeName | null | undefined): SizeFigures {
  return size ? serverSizes[size] : applicationSizingDefaults;
}

/** The spec's figures where it sets them; a default request never above the spec's limit, and a
 * default limit never below the spec's request, so that a pod is never refused for its own sizes. */
export function requestAndLimit(
  request: number | null | undefined,
  limit: number | null | undefined,
  defaultRequest: number,
  defaultLimit: number | undefined,
): { request: number; limit?: number } {
  const chosen = request ?? Math.min(defaultRequest, limit ?? Infinity);
  const chosenLimit = limit ?? (defaultLimit === undefined ? undefined : Math.max(defaultLimit, chosen));
  return chosenLimit === undefined ? { request: chosen } : { request: chosen, limit: chosenLimit };
}
