// The installer used by the test harness and `berth dev` stores the CRDs exactly as generated: the
// rules kubectl users rely on (CEL validations, enums, defaults, free-form maps) survive the client.
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installCrds, readCrds } from '../workbench/install-crds.ts';
import { kubeRequest } from '../src/runtime/index.ts';
import { testKubeConfig } from './support/cluster.ts';

const kc = testKubeConfig();
const crdsDir = resolve(import.meta.dirname, '../crds');

describe('installCrds', () => {
  it('stores every CRD with its CEL rules, enums, defaults and x-kubernetes-* markers', async () => {
    const names = await installCrds(kc, crdsDir);
    expect(names.length).toBeGreaterThanOrEqual(5);
    for (const generated of readCrds(crdsDir)) {
      // Read as plain JSON: the typed client would rename `enum` and `x-kubernetes-*` on the way in.
      const stored = await kubeRequest<typeof generated>(kc, {
        method: 'GET',
        path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${generated.metadata!.name!}`,
      });
      const wanted = JSON.stringify(generated.spec.versions.map((v) => v.schema));
      const got = JSON.stringify(stored.spec.versions.map((v) => v.schema));
      for (const marker of ['"x-kubernetes-validations"', '"enum"', '"default"', '"x-kubernetes-preserve-unknown-fields"']) {
        const count = (text: string) => text.split(marker).length - 1;
        expect(count(got), `${generated.metadata!.name} ${marker}`).toBe(count(wanted));
      }
    }
  });
});
