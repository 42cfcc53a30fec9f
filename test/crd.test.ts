// The CRDs in crds/ are generated from src/api, structural, documented field by field, and accepted by
// the API server (the global setup installed them; here we check the server's view of them).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { crdFileName, crdName, crdSources, renderCrd } from '../src/api/crd.ts';
import { apiVersion, group, labels, version } from '../src/api/index.ts';
import { renderCrdYaml } from '../src/api/crd-yaml.ts';
import type { JsonSchema } from '../src/api/structural-schema.ts';
import { kubectl, testKubeConfig, useNamespace } from './support/cluster.ts';

const crdDir = join(import.meta.dirname, '../crds');
const ansiEscape = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const kc = testKubeConfig();

type Node = JsonSchema & { properties?: Record<string, Node>; items?: Node; additionalProperties?: Node };

/** Paths of schema nodes below spec and status that lack a description. */
function undocumented(node: Node, path: string): string[] {
  const own = node.description ? [] : [path];
  const children = [
    ...Object.entries(node.properties ?? {}).flatMap(([name, child]) => undocumented(child, `${path}.${name}`)),
    ...(node.items ? undocumented(node.items, `${path}[]`) : []),
  ];
  return [...own, ...children];
}

function nodes(node: Node): Node[] {
  return [
    node,
    ...Object.values(node.properties ?? {}).flatMap(nodes),
    ...(node.items ? nodes(node.items) : []),
    ...(node.additionalProperties ? nodes(node.additionalProperties) : []),
  ];
}

describe('generated CRDs', () => {
  it('crds/ holds exactly what scripts/generate-crds.ts renders (run `npm run generate` after changing src/api)', () => {
    const expected = new Map(crdSources.map((source) => [crdFileName(source.descriptor), renderCrdYaml(renderCrd(source))]));
    expect(
      readdirSync(crdDir)
        .filter((f) => f.endsWith('.yaml'))
        .sort(),
    ).toEqual([...expected.keys()].sort());
    for (const [file, text] of expected) expect(readFileSync(join(crdDir, file), 'utf8'), file).toBe(text);
  });

  it('describes every field of spec and status, for kubectl explain and the OpenAPI document', () => {
    for (const source of crdSources) {
      const root = renderCrd(source).spec.versions[0]!.schema!.openAPIV3Schema as Node;
      expect(undocumented(root.properties!.spec!, `${source.descriptor.kind}.spec`)).toEqual([]);
      expect(undocumented(root.properties!.status!, `${source.descriptor.kind}.status`)).toEqual([]);
    }
  });

  it('is structural: every node typed, no $ref or anyOf, free-form maps keep unknown fields', () => {
    for (const source of crdSources) {
      const all = nodes(renderCrd(source).spec.versions[0]!.schema!.openAPIV3Schema as Node);
      for (const node of all) {
        expect(node.type, JSON.stringify(node).slice(0, 200)).toBeTypeOf('string');
        for (const key of ['$ref', 'anyOf', 'oneOf', 'allOf', '$schema']) expect(node).not.toHaveProperty(key);
        expect(node.additionalProperties).not.toBe(false);
      }
    }
    const deployment = renderCrd(crdSources[0]!).spec.versions[0]!.schema!.openAPIV3Schema as Node;
    const resourceSpec = deployment.properties!.spec!.properties!.sourceConfig!.properties!.resourceSpec!;
    const volume = resourceSpec.properties!.volumes!.items!;
    expect(volume.properties!.configMap).toMatchObject({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    expect(resourceSpec.properties!.labels).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
  });

  it('is installed and Established, with names, short names, category berth and a status subresource', async () => {
    const api = kc.makeApiClient(ApiextensionsV1Api);
    for (const source of crdSources) {
      const crd = await api.readCustomResourceDefinition({ name: crdName(source.descriptor) });
      expect(crd.status?.conditions?.find((c) => c.type === 'Established')?.status).toBe('True');
      expect(crd.status?.conditions?.find((c) => c.type === 'NamesAccepted')?.status).toBe('True');
      expect(crd.spec.names).toMatchObject({ kind: source.descriptor.kind, plural: source.descriptor.plural, categories: ['berth'] });
      expect(crd.spec.names.shortNames).toEqual([...source.descriptor.shortNames]);
      expect(crd.spec.versions[0]?.subresources?.status).toEqual({});
      // The API server's own warnings (e.g. an unsupported format) would show as NonStructuralSchema.
      expect(crd.status?.conditions?.find((c) => c.type === 'NonStructuralSchema')).toBeUndefined();
      // What the server stores is what was generated: CEL rules, enums and defaults survived.
      const stored = JSON.stringify(
        await kubectl(['get', 'crd', crdName(source.descriptor), '-o', 'json']).then((r) => JSON.parse(r.stdout).spec.versions[0].schema),
      );
      const generated = JSON.stringify(renderCrd(source).spec.versions[0]!.schema);
      for (const key of [
        'x-kubernetes-validations',
        '"enum"',
        '"default"',
        'x-kubernetes-preserve-unknown-fields',
        'x-kubernetes-list-type',
      ]) {
        expect(stored.split(key).length, `${source.descriptor.kind} ${key}`).toBe(generated.split(key).length);
      }
    }
  });

  it('prints descriptions with kubectl explain', async () => {
    // kubectl wraps and highlights long lines: compare the words, not the layout.
    const explain = async (path: string) => {
      const result = await kubectl(['explain', path]);
      return { ...result, stdout: result.stdout.replace(ansiEscape, '').replace(/\s+/g, ' ') };
    };
    const result = await explain(`deployments.${group}.spec.sourceConfig.resourceSpec`);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('Sizes, scale and pod settings of the workloads');
    expect(result.stdout).toMatch(/minScale\s+<integer>\s+Fewest replicas of the application server/);
    expect(result.stdout).toMatch(/sidecars\s+<\[\]Object>\s+Containers that run beside the application container/);
    const provider = await explain(`oauthproviders.${group}.spec.clientSecretRef`);
    expect(provider.stdout).toContain('The secret itself is never in this object');
  });

  it('lists every kind under the category berth and prints the columns a user looks for', async () => {
    const namespace = await useNamespace('crd-columns');
    const objects = kc.makeApiClient(CustomObjectsApi);
    await objects.createNamespacedCustomObject({
      group,
      version,
      namespace,
      plural: 'deployments',
      body: {
        apiVersion,
        kind: 'Deployment',
        metadata: { name: 'web' },
        spec: { source: 'external_docker', sourceRevisionConfig: { imageUri: 'nginx:1.27' } },
      },
    });
    await objects.patchNamespacedCustomObjectStatus({
      group,
      version,
      namespace,
      plural: 'deployments',
      name: 'web',
      body: [
        {
          op: 'add',
          path: '/status',
          value: {
            status: 'READY',
            latestRevisionName: 'web-0123456789',
            activeRevisionName: 'web-0123456789',
            url: 'http://10.96.0.20',
            scaling: { replicas: 2, desiredReplicas: 3, reason: 'SucceededRescale' },
            conditions: [{ type: 'Ready', status: 'True', reason: 'Deployed', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z' }],
          },
        },
      ],
    });
    const table = await kubectl(['get', 'bdeploy', '-n', namespace]);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+STATUS\s+LATEST\s+ACTIVE\s+SOURCE\s+URL\s+REPLICAS\s+READY\s+AGE/);
    expect(table.stdout).toMatch(/web\s+READY\s+web-0123456789\s+web-0123456789\s+external_docker\s+http:\/\/10\.96\.0\.20\s+2\s+True\s/);
    const wide = await kubectl(['get', 'bdeploy', '-n', namespace, '-o', 'wide']);
    expect(wide.stdout.split('\n')[0]).toMatch(/\sREPLICAS\s+DESIRED\s/);
    expect(wide.stdout).toMatch(/\s2\s+3\s/);
    await objects.createNamespacedCustomObject({
      group,
      version,
      namespace,
      plural: 'revisions',
      body: {
        apiVersion,
        kind: 'Revision',
        metadata: { name: 'web-0123456789', labels: { [labels.deployment]: 'web', [labels.deploymentGeneration]: '3' } },
        spec: {
          deploymentName: 'web',
          source: 'external_docker',
          sourceRevisionConfig: { imageUri: 'nginx:1.27' },
          digest: '0123456789abcdef',
        },
      },
    });
    const revisions = await kubectl(['get', 'brev', '-n', namespace]);
    expect(revisions.stdout.split('\n')[0]).toMatch(/^NAME\s+DEPLOYMENT\s+STATUS\s+GENERATION\s+AGE/);
    expect(revisions.stdout).toMatch(/web-0123456789\s+web\s+3\s/);
    const all = await kubectl(['get', 'berth', '-n', namespace, '-o', 'name']);
    expect(all.stdout.trim().split('\n').sort()).toEqual([`deployment.${group}/web`, `revision.${group}/web-0123456789`]);
  });
});
