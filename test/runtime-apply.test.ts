// The generic write helpers against the real API server, on a throwaway CRD: server-side apply,
// status writes skipped when nothing changed, deletes, and discovery of kinds installed late.
import { ApiextensionsV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyObject,
  writeStatus,
  deleteObject,
  kubeRequest,
  onKubeApiRequest,
  KindNotServedError,
  resolveResource,
  StaleObjectError,
  type KubeApiRequestLabels,
  type KubeObject,
} from '../src/runtime/index.ts';
import { eventually } from '../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from './support/cluster.ts';

const kc = testKubeConfig();
const extensions = kc.makeApiClient(ApiextensionsV1Api);
const group = 'runtime-test.berth.dev';
const apiVersion = `${group}/v1`;
const widgets = { apiVersion, kind: 'Widget', plural: 'widgets' } as const;

interface Widget extends KubeObject {
  spec?: Record<string, unknown>;
  status?: { phase?: string; observedGeneration?: number };
}

describe('write helpers', () => {
  let namespace: string;
  const requests: KubeApiRequestLabels[] = [];

  beforeAll(async () => {
    namespace = await useNamespace('apply');
    afterAll(onKubeApiRequest(kc.getCurrentCluster()!.server, (labels) => requests.push(labels)));
  });
  afterAll(async () => {
    await extensions.deleteCustomResourceDefinition({ name: `widgets.${group}` }).catch(() => {});
  });

  it('resolves a kind installed after a first failed lookup', async () => {
    await expect(resolveResource(kc, apiVersion, 'Widget')).rejects.toThrow();
    await extensions.createCustomResourceDefinition({
      body: {
        metadata: { name: `widgets.${group}` },
        spec: {
          group,
          names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
          scope: 'Namespaced',
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              subresources: { status: {} },
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: {
                    spec: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
                    status: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
                  },
                },
              },
            },
          ],
        },
      },
    });
    const resource = await eventually(
      () => resolveResource(kc, apiVersion, 'Widget').catch(() => undefined),
      20_000,
      'the Widget kind to be served',
    );
    expect(resource).toEqual({ apiVersion, kind: 'Widget', plural: 'widgets', namespaced: true });
    await expect(resolveResource(kc, 'v1', 'NoSuchKind')).rejects.toThrow('the API server serves no kind NoSuchKind in v1');
    await expect(resolveResource(kc, 'v1', 'NoSuchKind')).rejects.toBeInstanceOf(KindNotServedError);
  });

  it('applies an object with force, changes it, and removes fields it no longer sends', async () => {
    const widget = (spec: Record<string, unknown>): Widget => ({ apiVersion, kind: 'Widget', metadata: { name: 'w', namespace }, spec });
    const created = await eventually(
      () => applyObject(kc, widget({ size: 1, color: 'red' }), 'berth-test').catch(() => undefined),
      20_000,
      'the first apply',
    );
    expect(created.spec).toEqual({ size: 1, color: 'red' });
    const same = await applyObject(kc, widget({ size: 1, color: 'red' }), 'berth-test');
    expect(same.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    // Another manager's value is overridden: always force.
    await applyObject(kc, widget({ size: 5 }), 'someone-else');
    const changed = await applyObject(kc, widget({ size: 2 }), 'berth-test');
    expect(changed.spec).toEqual({ size: 2 });
  });

  it('writes status only when it differs', async () => {
    const current = await applyObject<Widget>(
      kc,
      { apiVersion, kind: 'Widget', metadata: { name: 's', namespace }, spec: { size: 1 } },
      'berth-test',
    );
    const written = await writeStatus(kc, current, { phase: 'Ready', observedGeneration: 1 }, 'berth-test');
    expect(written?.status).toEqual({ phase: 'Ready', observedGeneration: 1 });
    const statusWrites = () => requests.filter((r) => r.resource === `widgets.${group}/status`).length;
    const before = statusWrites();
    expect(await writeStatus(kc, written!, { observedGeneration: 1, phase: 'Ready' }, 'berth-test')).toBeUndefined();
    expect(statusWrites()).toBe(before);
    const again = await writeStatus(kc, written!, { phase: 'Failed', observedGeneration: 1 }, 'berth-test');
    expect(again?.status?.phase).toBe('Failed');
    expect(statusWrites()).toBe(before + 1);
  });

  it('refuses a status decided from an older version of the object, and changes nothing', async () => {
    const seen = await applyObject<Widget>(
      kc,
      { apiVersion, kind: 'Widget', metadata: { name: 'stale', namespace }, spec: { size: 1 } },
      'berth-test',
    );
    const newer = await writeStatus(kc, seen, { phase: 'Ready', observedGeneration: 1 }, 'berth-test');
    const refused = writeStatus(kc, seen, { phase: 'Failed', observedGeneration: 1 }, 'berth-test');
    await expect(refused).rejects.toBeInstanceOf(StaleObjectError);
    await expect(refused).rejects.toThrow(`Widget ${namespace}/stale changed since resourceVersion ${seen.metadata?.resourceVersion}`);
    const stored = await kubeRequest<Widget>(kc, { method: 'GET', path: `/apis/${apiVersion}/namespaces/${namespace}/widgets/stale` });
    expect(stored.status).toEqual(newer!.status);
  });

  it('refuses an object without a name, before any request', async () => {
    const before = requests.length;
    await expect(applyObject(kc, { apiVersion, kind: 'Widget', metadata: { namespace } }, 'berth-test')).rejects.toThrow(
      'an applied object needs apiVersion, kind and metadata.name',
    );
    expect(requests.length).toBe(before);
  });

  it('deletes an object, and treats one already gone as done', async () => {
    expect(await deleteObject(kc, widgets, { namespace, name: 'w' })).toBe(true);
    expect(await deleteObject(kc, widgets, { namespace, name: 'w' })).toBe(false);
  });
});
