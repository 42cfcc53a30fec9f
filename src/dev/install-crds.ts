// Applies the generated CRDs (crds/*.yaml) with server-side apply and waits until each is Established.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiextensionsV1Api, KubernetesObjectApi, PatchStrategy, type KubeConfig, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';

export const fieldManager = 'berth';

export function readCrds(dir: string): V1CustomResourceDefinition[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
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
  const objects = KubernetesObjectApi.makeApiClient(kc);
  for (const crd of crds) await objects.patch(crd, undefined, undefined, fieldManager, true, PatchStrategy.ServerSideApply);
  const api = kc.makeApiClient(ApiextensionsV1Api);
  const deadline = Date.now() + timeoutMs;
  for (const crd of crds) {
    const name = crd.metadata!.name!;
    for (;;) {
      const current = await api.readCustomResourceDefinition({ name });
      if (current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new Error(`CRD ${name} not Established within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return crds.map((crd) => crd.metadata!.name!);
}
