// Applies the generated CRDs (crds/*.yaml) with server-side apply and waits until each is Established.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig, V1CustomResourceDefinition } from '@kubernetes/client-node';
import { fieldManager } from '../src/api/group.ts';
import { applyObject } from '../src/runtime/apply.ts';
import { kubeRequest } from '../src/runtime/kube-request.ts';
import { parseAllDocuments } from 'yaml';
import { eventually } from './support/poll.ts';

export function readCrds(dir: string): V1CustomResourceDefinition[] {
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .sort();
  } catch {
    return [];
  }
  return files.flatMap((f) =>
    parseAllDocuments(readFileSync(join(dir, f), 'utf8'))
      .map((doc) => doc.toJSON() as V1CustomResourceDefinition | null)
      .filter((doc): doc is V1CustomResourceDefinition => doc?.kind === 'CustomResourceDefinition'),
  );
}

export async function installCrds(kc: KubeConfig, dir: string, timeoutMs = 30_000): Promise<string[]> {
  const crds = readCrds(dir);
  // Sent as plain JSON: the client's typed serializer knows `enum`, `default` and `x-kubernetes-*`
  // only under its own property names and would drop them silently (CEL rules, enums, defaults,
  // preserve-unknown-fields).
  for (const crd of crds) await applyObject(kc, crd, fieldManager);
  const established = async (name: string) => {
    const current = await kubeRequest<V1CustomResourceDefinition>(kc, {
      method: 'GET',
      path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
    });
    return current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
  };
  const names = crds.map((crd) => crd.metadata!.name!);
  await eventually(
    async () => (await Promise.all(names.map(established))).every(Boolean),
    timeoutMs,
    `CRDs ${names.join(', ')} Established`,
  );
  return crds.map((crd) => crd.metadata!.name!);
}
