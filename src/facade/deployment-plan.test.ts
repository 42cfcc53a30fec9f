// The PATCH and create planner: table tests, no API server.
import { describe, expect, it } from 'vitest';
import type { Deployment } from '../api/index.ts';
import { HttpError } from './errors.ts';
import { planDeploymentCreate, planDeploymentPatch, revisionSourceMismatch } from './deployment-plan.ts';
import type { DeploymentCreate, DeploymentPatch } from './wire-schemas.ts';

const codehost: Deployment = {
  apiVersion: 'berth.dev/v1alpha1',
  kind: 'Deployment',
  metadata: { name: 'app', namespace: 'org', uid: 'u' },
  spec: {
    source: 'codehost',
    sourceConfig: {
      integrationId: '8d2fd73c-8889-4291-9e85-f89284bf3c8f',
      repoUrl: 'https://github.com/a/b',
      resourceSpec: { minScale: 1, maxScale: 3, labels: { team: 'x' } },
      listenerConfig: { k8sNamespace: 'apps' },
    },
    sourceRevisionConfig: { repoRef: 'main', graphConfigPath: 'app.json' },
    secrets: [{ name: 'KEPT' }, { name: 'REF', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } }],
  },
};

function problems(run: () => unknown): unknown[] {
  try {
    run();
  } catch (error) {
    if (error instanceof HttpError && Array.isArray(error.detail)) return error.detail.map((p) => p.loc.join('.'));
    throw error;
  }
  return [];
}

describe('planDeploymentPatch', () => {
  it('merges nested groups member by member and leaves nulls alone', () => {
    const plan = planDeploymentPatch(
      codehost,
      { source_config: { resource_spec: { min_scale: 2, max_scale: null }, build_on_push: true, custom_url: null } } as DeploymentPatch,
      {},
    );
    expect(plan.spec.sourceConfig).toEqual({
      ...codehost.spec.sourceConfig,
      buildOnPush: true,
      resourceSpec: { minScale: 2, maxScale: 3, labels: { team: 'x' } },
    });
    expect(plan.spec.sourceRevisionConfig).toEqual(codehost.spec.sourceRevisionConfig);
    expect(plan.secretValues).toBeUndefined();
  });

  it('keeps free-form maps as they are spelled', () => {
    const plan = planDeploymentPatch(
      codehost,
      { source_config: { resource_spec: { labels: { 'app.kubernetes.io/part_of': 'y' } } } } as DeploymentPatch,
      {},
    );
    expect(plan.spec.sourceConfig.resourceSpec?.labels).toEqual({ 'app.kubernetes.io/part_of': 'y' });
  });

  it.each<[string, DeploymentPatch, string[]]>([
    ['a new name', { name: 'other' }, ['body.name']],
    ['a new source', { source: 'external_docker' }, ['body.source']],
    // The spec's own rules (CEL: immutable members, sources, bounds) are the API server's: test/facade-deployments.test.ts.
    [
      'duplicate secret names',
      {
        secrets: [
          { name: 'A', value: '1' },
          { name: 'A', value: '2' },
        ],
      },
      ['body.secrets.1.name'],
    ],
  ])('refuses %s', (_what, patch, locs) => {
    expect(problems(() => planDeploymentPatch(codehost, patch, {}))).toEqual(locs);
  });

  it("takes langgraph_config_path, the reference tooling's name, as graph_config_path", () => {
    const plan = planDeploymentPatch(
      codehost,
      { source_revision_config: { langgraph_config_path: 'agent/langgraph.json' } } as DeploymentPatch,
      {},
    );
    expect(plan.spec.sourceRevisionConfig).toEqual({ repoRef: 'main', graphConfigPath: 'agent/langgraph.json' });
    const both = planDeploymentPatch(
      codehost,
      { source_revision_config: { langgraph_config_path: 'x.json', graph_config_path: 'x.json' } } as DeploymentPatch,
      {},
    );
    expect(both.spec.sourceRevisionConfig.graphConfigPath).toBe('x.json');
    expect(
      problems(() =>
        planDeploymentPatch(
          codehost,
          { source_revision_config: { langgraph_config_path: 'x.json', graph_config_path: 'y.json' } } as DeploymentPatch,
          {},
        ),
      ),
    ).toEqual(['body.source_revision_config.langgraph_config_path']);
    const created = planDeploymentCreate({
      name: 'a',
      source: 'internal_source',
      source_revision_config: { langgraph_config_path: 'langgraph.json' },
    });
    expect(created.spec.sourceRevisionConfig).toEqual({ graphConfigPath: 'langgraph.json' });
  });

  it('accepts the current name and source, and immutable members at their current value', () => {
    const plan = planDeploymentPatch(
      codehost,
      { name: 'app', source: 'codehost', source_config: { repo_url: 'https://github.com/a/b' } } as DeploymentPatch,
      {},
    );
    expect(plan.spec).toEqual(codehost.spec);
  });

  it('replaces the secrets: masked values keep what is stored (and a valueFrom), new values are written', () => {
    const plan = planDeploymentPatch(
      codehost,
      {
        secrets: [
          { name: 'KEPT', value: '********' },
          { name: 'REF', value: '********' },
          { name: 'NEW', value: 'v' },
        ],
      },
      { KEPT: 'stored', DROPPED: 'old' },
    );
    expect(plan.spec.secrets).toEqual([
      { name: 'KEPT' },
      { name: 'REF', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } },
      { name: 'NEW' },
    ]);
    expect(plan.secretValues).toEqual({ KEPT: 'stored', NEW: 'v' });
  });

  it("an empty secrets list removes every secret with a value; references are secret_references' to change", () => {
    const plan = planDeploymentPatch(codehost, { secrets: [] }, {});
    expect(plan.spec.secrets).toEqual([{ name: 'REF', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } }]);
    expect(plan.secretValues).toEqual({});
    const none = planDeploymentPatch(codehost, { secrets: [], secret_references: [] }, {});
    expect(none.spec.secrets).toBeUndefined();
  });

  it('keeps a source_config member a PATCH sends as null, and takes an empty pre-deploy command as none', () => {
    const set = planDeploymentPatch(codehost, { source_config: { pre_deploy_command: 'migrate' } } as DeploymentPatch, {});
    expect(set.spec.sourceConfig?.preDeployCommand).toBe('migrate');
    const kept = planDeploymentPatch(
      { ...codehost, spec: set.spec },
      { source_config: { pre_deploy_command: null } } as DeploymentPatch,
      {},
    );
    expect(kept.spec.sourceConfig?.preDeployCommand).toBe('migrate');
    const removed = planDeploymentPatch(
      { ...codehost, spec: set.spec },
      { source_config: { pre_deploy_command: '' } } as DeploymentPatch,
      {},
    );
    expect(removed.spec.sourceConfig?.preDeployCommand).toBe('');
  });

  it('replaces the secret references with secret_references, and keeps the secrets with values', () => {
    const plan = planDeploymentPatch(
      codehost,
      { secret_references: [{ name: 'TOKEN', secret_name: 'shared', secret_key: 'token' }] } as DeploymentPatch,
      { KEPT: 'stored' },
    );
    expect(plan.spec.secrets).toEqual([{ name: 'KEPT' }, { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'shared', key: 'token' } } }]);
    expect(plan.secretValues).toBeUndefined();
    expect(() =>
      planDeploymentPatch(codehost, { secret_references: [{ name: 'KEPT', secret_name: 's', secret_key: 'k' }] } as DeploymentPatch, {}),
    ).toThrow(/Duplicate secret name KEPT/);
  });

  it('creates secrets with values and references side by side, each name once', () => {
    const body = {
      name: 'app',
      source: 'external_docker',
      source_revision_config: { image_uri: 'nginx:1' },
      secrets: [{ name: 'A', value: 'a' }],
      secret_references: [{ name: 'B', secret_name: 'shared', secret_key: 'b' }],
    } as DeploymentCreate;
    const plan = planDeploymentCreate(body);
    expect(plan.spec.secrets).toEqual([{ name: 'A' }, { name: 'B', valueFrom: { secretKeyRef: { name: 'shared', key: 'b' } } }]);
    expect(plan.secretValues).toEqual({ A: 'a' });
    expect(() =>
      planDeploymentCreate({ ...body, secret_references: [{ name: 'A', secret_name: 's', secret_key: 'k' }] } as DeploymentCreate),
    ).toThrow(/Duplicate secret name A/);
  });
});

describe('revisionSourceMismatch', () => {
  it("accepts the deployment's own source or none, and says why anything else cannot make its revision", () => {
    for (const source of ['external_docker', 'internal_docker', 'codehost']) {
      expect(revisionSourceMismatch(source, source)).toBeUndefined();
      expect(revisionSourceMismatch(source, undefined)).toBeUndefined();
      expect(revisionSourceMismatch(source, null)).toBeUndefined();
    }
    expect(revisionSourceMismatch('external_docker', 'internal_docker')).toBe(
      'an external_docker deployment makes its revisions from external_docker images, not from internal_docker',
    );
    expect(revisionSourceMismatch('codehost', 'external_docker')).toBe(
      'a codehost deployment makes its revisions from its repository, not from external_docker',
    );
    expect(revisionSourceMismatch('internal_docker', 'internal_source')).toMatch(
      /^an internal_docker deployment makes its revisions from internal_docker images, not from internal_source$/,
    );
    expect(revisionSourceMismatch('internal_source', 'internal_source')).toBeUndefined();
    expect(revisionSourceMismatch('internal_source', 'internal_docker')).toMatch(/from uploaded source archives/);
  });

  it('refuses a PATCH whose revision_source the deployment cannot use, with the member at fault', () => {
    const refused = (() => {
      try {
        planDeploymentPatch(codehost, { revision_source: 'internal_docker' } as DeploymentPatch, {});
      } catch (error) {
        return error;
      }
    })() as HttpError;
    expect(refused).toBeInstanceOf(HttpError);
    expect(JSON.stringify(refused.detail)).toContain('"loc":["body","revision_source"]');
    expect(() => planDeploymentPatch(codehost, { revision_source: 'codehost' } as unknown as DeploymentPatch, {})).not.toThrow();
  });
});

describe('planDeploymentCreate', () => {
  it('converts the wire form and keeps values out of the spec', () => {
    const plan = planDeploymentCreate({
      name: 'web',
      source: 'external_docker',
      source_config: {
        resource_spec: { min_scale: 1, sidecars: [{ name: 's', image: 'i', volumeMounts: [{ name: 'v', mountPath: '/m' }] }] },
      },
      source_revision_config: { image_uri: 'nginx' },
      secrets: [{ name: 'A', value: 'secret-a' }],
    } as never);
    expect(plan.spec).toEqual({
      source: 'external_docker',
      sourceConfig: {
        resourceSpec: { minScale: 1, sidecars: [{ name: 's', image: 'i', volumeMounts: [{ name: 'v', mountPath: '/m' }] }] },
      },
      sourceRevisionConfig: { imageUri: 'nginx' },
      secrets: [{ name: 'A' }],
    });
    expect(plan.secretValues).toEqual({ A: 'secret-a' });
  });
});
