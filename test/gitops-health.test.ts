// GitOps health of Berth objects, computed by the real code of both tools:
//  - Argo CD: docs/gitops/argocd/health.lua, run in Debian's Lua interpreters (5.1 is gopher-lua's dialect,
//    which Argo CD embeds; 5.4 is current Lua), exactly as Argo CD calls it (a chunk with `obj` in scope);
//  - Flux: kstatus from fluxcd/cli-utils (test/tools/kstatus), the library kustomize-controller runs for
//    `wait: true` and healthChecks.
// The same objects go through both, written the way Berth writes status (the condition helpers of
// src/api), and through the real API server (status subresource) for the end-to-end cases.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { markReady, markReconciling, markStalled, markUnknown, type Condition } from '../src/api/conditions.ts';
import { kubectl, testKubeConfig, useNamespace } from './support/cluster.ts';
import { cachedBuild } from '../workbench/cache-dir.ts';

const root = join(import.meta.dirname, '..');
const healthLua = readFileSync(join(root, 'docs/gitops/argocd/health.lua'), 'utf8');
const interpreters = ['lua5.1', 'lua5.4'];
const now = new Date('2026-01-02T03:04:05Z');
let toolsBin = '';

beforeAll(() => {
  execFileSync('bash', [join(root, 'scripts/install-lua.sh')], { stdio: ['ignore', 'inherit', 'inherit'] });
  toolsBin = buildTools();
}, 900_000);

function buildTools(): string {
  return cachedBuild('tools');
}

type ArgoHealth = 'Healthy' | 'Progressing' | 'Degraded';
type FluxHealth = 'Current' | 'InProgress' | 'Failed' | 'Terminating';
interface Verdict<T> {
  status: T;
  message: string;
}

/** A JSON value as a Lua table constructor, the shape Argo CD hands the script (arrays 1-based). */
export function toLua(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `{${value.map(toLua).join(', ')}}`;
  const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => `[${JSON.stringify(k)}] = ${toLua(v)}`);
  return `{${entries.join(', ')}}`;
}

function argoHealth(interpreter: string, objects: unknown[]): Verdict<ArgoHealth>[] {
  const program = [
    'local function health(obj)',
    healthLua,
    'end',
    `local objects = {${objects.map(toLua).join(',\n')}}`,
    'for _, obj in ipairs(objects) do',
    '  local hs = health(obj)',
    '  io.write(hs.status, "\\t", hs.message or "", "\\n")',
    'end',
  ].join('\n');
  const run = spawnSync(interpreter, ['-'], { input: program, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${interpreter} failed: ${run.stderr}`);
  return parseVerdicts<ArgoHealth>(run.stdout);
}

function fluxHealth(objects: unknown[]): Verdict<FluxHealth>[] {
  const run = spawnSync(join(toolsBin, 'kstatus'), [], { input: objects.map((o) => JSON.stringify(o)).join('\n'), encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`kstatus failed: ${run.stderr}`);
  return parseVerdicts<FluxHealth>(run.stdout);
}

function parseVerdicts<T>(output: string): Verdict<T>[] {
  return output
    .trimEnd()
    .split('\n')
    .map((line) => {
      const [status, ...message] = line.split('\t');
      return { status: status as T, message: message.join('\t') };
    });
}

function deployment(generation: number, status?: Record<string, unknown>, metadata: Record<string, unknown> = {}) {
  return {
    apiVersion: 'berth.dev/v1alpha1',
    kind: 'Deployment',
    metadata: { name: 'billing-api', namespace: 'acme', generation, ...metadata },
    spec: { source: 'external_docker' },
    ...(status ? { status } : {}),
  };
}

const observed = (generation: number, conditions: Condition[]) => ({ observedGeneration: generation, conditions });
const at = (generation: number, reason: string, message: string) => ({ reason, message, observedGeneration: generation });

interface HealthCase {
  name: string;
  object: unknown;
  argo: Verdict<ArgoHealth>;
  flux: FluxHealth;
}

const cases: HealthCase[] = [
  {
    name: 'Ready=True for the current generation',
    object: deployment(3, observed(3, markReady(undefined, at(3, 'Deployed', 'revision billing-api-1a2b3c4d5e is serving'), now))),
    argo: { status: 'Healthy', message: 'revision billing-api-1a2b3c4d5e is serving' },
    flux: 'Current',
  },
  {
    name: 'Reconciling: a revision is being built',
    object: deployment(2, observed(2, markReconciling(undefined, at(2, 'Building', 'building revision billing-api-77aa'), now))),
    argo: { status: 'Progressing', message: 'building revision billing-api-77aa' },
    flux: 'InProgress',
  },
  {
    name: 'Stalled: the build failed and needs a new spec',
    object: deployment(4, observed(4, markStalled(undefined, at(4, 'BuildFailed', 'build of billing-api-77aa failed'), now))),
    argo: { status: 'Degraded', message: 'build of billing-api-77aa failed' },
    flux: 'Failed',
  },
  {
    name: 'Stalled after having been ready (Ready flips False)',
    object: deployment(
      5,
      observed(5, markStalled(markReady(undefined, at(4, 'Deployed', 'ok'), now), at(5, 'ImageMissing', 'image not found'), now)),
    ),
    argo: { status: 'Degraded', message: 'image not found' },
    flux: 'Failed',
  },
  {
    name: 'Ready=True, but for an older generation (spec just edited)',
    object: deployment(6, observed(5, markReady(undefined, at(5, 'Deployed', 'ok'), now))),
    argo: { status: 'Progressing', message: 'Waiting for Berth to observe generation 6' },
    flux: 'InProgress',
  },
  {
    name: 'first sight: Ready=Unknown',
    object: deployment(1, observed(1, markUnknown(undefined, at(1, 'Observed', 'waiting for the first reconcile'), now))),
    argo: { status: 'Progressing', message: 'waiting for the first reconcile' },
    flux: 'InProgress',
  },
  {
    name: 'being deleted (finalizer running)',
    object: deployment(2, observed(2, markReady(undefined, at(2, 'Deployed', 'ok'), now)), { deletionTimestamp: '2026-01-02T03:04:05Z' }),
    argo: { status: 'Progressing', message: 'Being deleted' },
    flux: 'Terminating',
  },
  {
    // kstatus calls an object with no conditions at all Current; Argo CD's check is stricter. The API
    // server never shows Berth's objects so: their CRDs default status.observedGeneration to 0 (next case).
    name: 'no status yet',
    object: deployment(1),
    argo: { status: 'Progressing', message: 'Waiting for Berth to report the status' },
    flux: 'Current',
  },
];

cases.push({
  name: 'not reconciled yet, as the API server shows it (status defaulted by the CRD)',
  object: deployment(1, { observedGeneration: 0 }),
  argo: { status: 'Progressing', message: 'Waiting for Berth to report the status' },
  flux: 'InProgress',
});

describe('Argo CD health check (Lua)', () => {
  for (const interpreter of interpreters) {
    it(`gives each case its health in ${interpreter}`, () => {
      const verdicts = argoHealth(
        interpreter,
        cases.map((c) => c.object),
      );
      expect(verdicts).toEqual(cases.map((c) => c.argo));
    });
  }

  it('ignores a Stalled=True written for an older generation', () => {
    const staleStalled = deployment(3, {
      observedGeneration: 3,
      conditions: [
        {
          type: 'Stalled',
          status: 'True',
          reason: 'Old',
          message: 'old failure',
          observedGeneration: 2,
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
        {
          type: 'Ready',
          status: 'True',
          reason: 'Deployed',
          message: 'fine now',
          observedGeneration: 3,
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    });
    for (const interpreter of interpreters) {
      expect(argoHealth(interpreter, [staleStalled])).toEqual([{ status: 'Healthy', message: 'fine now' }]);
    }
  });

  it('is the script installed under every Berth kind in the argocd-cm snippet', () => {
    const configMap = parse(readFileSync(join(root, 'docs/gitops/argocd/argocd-cm.yaml'), 'utf8')) as { data: Record<string, string> };
    const kinds = readdirSync(join(root, 'crds'))
      .filter((file) => file.endsWith('.yaml'))
      .map((file) => (parse(readFileSync(join(root, 'crds', file), 'utf8')) as { spec: { group: string; names: { kind: string } } }).spec)
      .map((spec) => `resource.customizations.health.${spec.group}_${spec.names.kind}`)
      .sort();
    expect(kinds.length).toBeGreaterThan(0);
    expect(Object.keys(configMap.data).sort()).toEqual(kinds);
    for (const key of kinds) expect(configMap.data[key]).toBe(healthLua);
  });
});

describe('Flux health (kstatus)', () => {
  it('reads each case as Flux does', () => {
    expect(fluxHealth(cases.map((c) => c.object)).map((v) => v.status)).toEqual(cases.map((c) => c.flux));
  });

  it('agrees with the Argo CD check wherever Berth has written status', () => {
    const written = cases.filter((c) => (c.object as { status?: unknown }).status !== undefined);
    const flux = fluxHealth(written.map((c) => c.object));
    const argo = argoHealth(
      'lua5.1',
      written.map((c) => c.object),
    );
    const same: Record<FluxHealth, ArgoHealth> = {
      Current: 'Healthy',
      InProgress: 'Progressing',
      Failed: 'Degraded',
      Terminating: 'Progressing',
    };
    written.forEach((c, i) => {
      expect({ case: c.name, argo: argo[i]!.status }).toEqual({ case: c.name, argo: same[flux[i]!.status] });
    });
  });
});

describe('the Flux manifests in docs/gitops/flux', () => {
  it('wait on every applied object, or name Berth Deployments of a kind the CRDs define', () => {
    const documents = parseAllDocuments(readFileSync(join(root, 'docs/gitops/flux/berth-apps.yaml'), 'utf8')).map(
      (doc) => doc.toJSON() as { kind: string; spec: { wait?: boolean; healthChecks?: { apiVersion: string; kind: string }[] } },
    );
    const kustomizations = documents.filter((d) => d.kind === 'Kustomization');
    expect(kustomizations.some((k) => k.spec.wait === true)).toBe(true);
    const checks = kustomizations.flatMap((k) => k.spec.healthChecks ?? []);
    expect(checks.length).toBeGreaterThan(0);
    const served = readdirSync(join(root, 'crds'))
      .filter((file) => file.endsWith('.yaml'))
      .map(
        (file) =>
          parse(readFileSync(join(root, 'crds', file), 'utf8')) as {
            spec: { group: string; names: { kind: string }; versions: { name: string }[] };
          },
      )
      .flatMap((crd) => crd.spec.versions.map((v) => `${crd.spec.group}/${v.name} ${crd.spec.names.kind}`));
    for (const check of checks) expect(served).toContain(`${check.apiVersion} ${check.kind}`);
  });
});

describe('health of objects read back from the API server', () => {
  const kc = testKubeConfig();
  const custom = kc.makeApiClient(CustomObjectsApi);
  const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

  async function exampleDeployment(namespace: string): Promise<{ name: string; generation: number }> {
    const manifests = readdirSync(join(root, 'examples'))
      .filter((file) => file.endsWith('.yaml'))
      .flatMap((file) =>
        parseAllDocuments(readFileSync(join(root, 'examples', file), 'utf8')).map(
          (d) => d.toJSON() as { kind?: string; apiVersion?: string },
        ),
      )
      .filter((o) => o?.kind === 'Deployment' && o.apiVersion === 'berth.dev/v1alpha1');
    expect(manifests.length).toBeGreaterThan(0);
    const applied = await kubectl(
      ['apply', '--server-side', '--field-manager', 'gitops', '-n', namespace, '-o', 'json', '-f', '-'],
      JSON.stringify(manifests[0]),
    );
    expect(applied.stderr).toBe('');
    const object = JSON.parse(applied.stdout) as { metadata: { name: string; generation: number } };
    return { name: object.metadata.name, generation: object.metadata.generation };
  }

  async function writeStatus(namespace: string, name: string, status: Record<string, unknown>): Promise<unknown> {
    return custom.patchNamespacedCustomObjectStatus(
      { group: 'berth.dev', version: 'v1alpha1', namespace, plural: 'deployments', name, body: { status } },
      mergePatch,
    );
  }

  it('moves from Progressing to Healthy to Degraded as Berth writes conditions', async () => {
    const namespace = await useNamespace('gitops-health');
    const { name, generation } = await exampleDeployment(namespace);
    const read = () =>
      custom.getNamespacedCustomObject({ group: 'berth.dev', version: 'v1alpha1', namespace, plural: 'deployments', name });

    // Before Berth's first status write (no controller runs here): the CRD's status default reads as in progress.
    const unobserved = (await read()) as { status?: unknown };
    expect(unobserved.status).toEqual({ observedGeneration: 0 });
    expect(argoHealth('lua5.4', [unobserved])[0]!.status).toBe('Progressing');
    expect(fluxHealth([unobserved])[0]!.status).toBe('InProgress');

    await writeStatus(namespace, name, {
      observedGeneration: generation,
      conditions: markReconciling(undefined, at(generation, 'Deploying', 'rolling out'), now),
    });
    const reconciling = await read();
    expect(argoHealth('lua5.1', [reconciling])[0]!.status).toBe('Progressing');
    expect(fluxHealth([reconciling])[0]!.status).toBe('InProgress');

    await writeStatus(namespace, name, {
      observedGeneration: generation,
      conditions: markReady(undefined, at(generation, 'Deployed', 'serving'), now),
    });
    const ready = await read();
    expect(argoHealth('lua5.4', [ready])[0]).toEqual({ status: 'Healthy', message: 'serving' });
    expect(fluxHealth([ready])[0]!.status).toBe('Current');

    await writeStatus(namespace, name, {
      observedGeneration: generation,
      conditions: markStalled(undefined, at(generation, 'DeployFailed', 'pods crash'), now),
    });
    const stalled = await read();
    expect(argoHealth('lua5.1', [stalled])[0]).toEqual({ status: 'Degraded', message: 'pods crash' });
    expect(fluxHealth([stalled])[0]).toEqual({ status: 'Failed', message: 'pods crash' });
  });
});
