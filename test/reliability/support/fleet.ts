// A fleet of Berth Deployments in one namespace, and the checks every fault test ends with: each
// Deployment converged on its latest spec, one Revision per distinct revision config, no child object
// without a living owner. The test stands in for the kubelet: it marks the application workloads
// available, since no Pod ever runs on this control plane.
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig, type V1OwnerReference } from '@kubernetes/client-node';
import type { Deployment, Revision } from '../../../src/api/index.ts';
import { canonicalJson } from '../../../src/reconcilers/deployment/revisions/digest.ts';
import { kubeRequest } from '../../../src/runtime/index.ts';

const group = 'berth.dev';
const version = 'v1alpha1';
/** The field manager of every write the test makes, so managedFields tell the test's writes from Berth's. */
export const testFieldManager = 'reliability-test';

export type RevisionConfig = { imageUri: string };

/** What the test wrote to each Deployment: every revision config it ever had, and the current one. */
export interface WrittenHistory {
  configs: Map<string, Set<string>>;
  current: Map<string, RevisionConfig>;
  deleted: Set<string>;
}

export function newHistory(): WrittenHistory {
  return { configs: new Map(), current: new Map(), deleted: new Set() };
}

export function recordConfig(history: WrittenHistory, name: string, config: RevisionConfig): void {
  const seen = history.configs.get(name) ?? new Set<string>();
  seen.add(canonicalJson(config));
  history.configs.set(name, seen);
  history.current.set(name, config);
}

export function deploymentManifest(name: string, config: RevisionConfig, maxScale = 2): Record<string, unknown> {
  return {
    apiVersion: `${group}/${version}`,
    kind: 'Deployment',
    metadata: { name },
    spec: { source: 'external_docker', sourceConfig: { resourceSpec: { minScale: 1, maxScale } }, sourceRevisionConfig: config },
  };
}

export class Fleet {
  readonly kc: KubeConfig;
  readonly namespace: string;
  readonly custom: CustomObjectsApi;
  readonly apps: AppsV1Api;
  readonly core: CoreV1Api;

  constructor(kc: KubeConfig, namespace: string) {
    this.kc = kc;
    this.namespace = namespace;
    this.custom = kc.makeApiClient(CustomObjectsApi);
    this.apps = kc.makeApiClient(AppsV1Api);
    this.core = kc.makeApiClient(CoreV1Api);
  }

  async create(name: string, config: RevisionConfig): Promise<void> {
    await this.custom.createNamespacedCustomObject({
      group,
      version,
      namespace: this.namespace,
      plural: 'deployments',
      body: deploymentManifest(name, config),
      fieldManager: testFieldManager,
    });
  }

  /** A merge patch of the spec, as `kubectl patch --type merge` sends it. */
  async patchSpec(name: string, spec: Record<string, unknown>): Promise<void> {
    await kubeRequest(this.kc, {
      method: 'PATCH',
      path: `/apis/${group}/${version}/namespaces/${this.namespace}/deployments/${name}`,
      contentType: 'application/merge-patch+json',
      query: { fieldManager: testFieldManager },
      body: { spec },
    });
  }

  async delete(name: string): Promise<void> {
    await this.custom.deleteNamespacedCustomObject({ group, version, namespace: this.namespace, plural: 'deployments', name });
  }

  async deployments(): Promise<Deployment[]> {
    return (
      (await this.custom.listNamespacedCustomObject({ group, version, namespace: this.namespace, plural: 'deployments' })) as {
        items: Deployment[];
      }
    ).items;
  }

  async revisions(): Promise<Revision[]> {
    return (
      (await this.custom.listNamespacedCustomObject({ group, version, namespace: this.namespace, plural: 'revisions' })) as {
        items: Revision[];
      }
    ).items;
  }

  /**
   * The kubelet's part: every application workload and database StatefulSet whose status does not yet
   * describe its current generation as fully available gets that status. Returns how many it marked.
   */
  async markWorkloadsAvailable(): Promise<number> {
    type Workload = {
      metadata?: { name?: string; generation?: number };
      spec?: { replicas?: number };
      status?: { observedGeneration?: number; availableReplicas?: number };
    };
    const stale = (items: Workload[]) =>
      items.filter(
        (w) => w.status?.observedGeneration !== w.metadata?.generation || w.status?.availableReplicas !== (w.spec?.replicas ?? 1),
      );
    const marks = [
      ...stale((await this.apps.listNamespacedDeployment({ namespace: this.namespace })).items as Workload[]).map((w) => ({
        plural: 'deployments',
        w,
      })),
      ...stale((await this.apps.listNamespacedStatefulSet({ namespace: this.namespace })).items as Workload[]).map((w) => ({
        plural: 'statefulsets',
        w,
      })),
    ];
    for (let i = 0; i < marks.length; i += 20) {
      await Promise.all(
        marks.slice(i, i + 20).map(({ plural, w }) => {
          const replicas = w.spec?.replicas ?? 1;
          const counts = {
            replicas,
            updatedReplicas: replicas,
            readyReplicas: replicas,
            availableReplicas: replicas,
            ...(plural === 'statefulsets' ? { currentReplicas: replicas } : {}),
          };
          return kubeRequest(this.kc, {
            method: 'PATCH',
            path: `/apis/apps/v1/namespaces/${this.namespace}/${plural}/${w.metadata!.name}/status`,
            contentType: 'application/merge-patch+json',
            query: { fieldManager: testFieldManager },
            body: { status: { observedGeneration: w.metadata!.generation, ...counts } },
          }).catch(() => undefined); // deleted or changed meanwhile: the next round sees it again
        }),
      );
    }
    return marks.length;
  }

  /** Names of the Deployments that have not converged on their current spec, with the reason. */
  async unconverged(history: WrittenHistory): Promise<string[]> {
    const deployments = await this.deployments();
    const revisions = new Map((await this.revisions()).map((r) => [r.metadata.name ?? '', r]));
    const problems: string[] = [];
    const present = new Set<string>();
    for (const d of deployments) {
      const name = d.metadata.name ?? '';
      present.add(name);
      if (history.deleted.has(name)) {
        problems.push(`${name}: deleted but still present`);
        continue;
      }
      const verdict = convergence(d, revisions, history.current.get(name));
      if (verdict) problems.push(`${name}: ${verdict}`);
    }
    for (const name of history.current.keys()) {
      if (!history.deleted.has(name) && !present.has(name)) problems.push(`${name}: missing`);
    }
    return problems;
  }

  /** Revisions that repeat a revision config of their Deployment, or carry one the test never wrote. */
  async duplicateRevisions(history: WrittenHistory): Promise<{ duplicates: string[]; unexpected: string[]; total: number }> {
    const revisions = await this.revisions();
    const byConfig = new Map<string, string[]>();
    const unexpected: string[] = [];
    for (const revision of revisions) {
      const deployment = revision.spec.deploymentName;
      const config = canonicalJson(revisionConfigOf(revision));
      const key = `${deployment} ${config}`;
      byConfig.set(key, [...(byConfig.get(key) ?? []), revision.metadata.name ?? '']);
      if (!history.configs.get(deployment)?.has(config)) unexpected.push(`${revision.metadata.name}: ${config}`);
    }
    const duplicates = [...byConfig.values()].filter((names) => names.length > 1).map((names) => names.join(' = '));
    return { duplicates, unexpected, total: revisions.length };
  }

  /**
   * Objects Berth made (ownerReference to a Berth Deployment, or its managed-by label) whose owner no
   * longer exists, and how many child objects were checked.
   */
  async orphans(): Promise<{ orphans: string[]; checked: number }> {
    const liveOwners = new Set((await this.deployments()).map((d) => d.metadata.uid));
    const ns = this.namespace;
    type Child = {
      kind: string;
      metadata?: { name?: string; ownerReferences?: V1OwnerReference[]; labels?: Record<string, string>; deletionTimestamp?: unknown };
    };
    const tag = (kind: string, items: Array<{ metadata?: Child['metadata'] }>) =>
      items.map((item) => ({ kind, metadata: item.metadata }) as Child);
    const children: Child[] = [
      ...tag('Revision', await this.revisions()),
      ...tag('apps/Deployment', (await this.apps.listNamespacedDeployment({ namespace: ns })).items),
      ...tag('StatefulSet', (await this.apps.listNamespacedStatefulSet({ namespace: ns })).items),
      ...tag('Service', (await this.core.listNamespacedService({ namespace: ns })).items),
      ...tag('Secret', (await this.core.listNamespacedSecret({ namespace: ns })).items),
      ...tag(
        'HorizontalPodAutoscaler',
        (
          (await kubeRequest(this.kc, { method: 'GET', path: `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers` })) as {
            items: Child[];
          }
        ).items,
      ),
    ];
    const berthChildren = children.filter(
      (c) =>
        c.metadata?.labels?.['app.kubernetes.io/managed-by'] === 'berth' ||
        c.metadata?.ownerReferences?.some((o) => o.apiVersion.startsWith(`${group}/`)),
    );
    const orphans = berthChildren
      .filter((c) => {
        const owners = (c.metadata?.ownerReferences ?? []).filter((o) => o.apiVersion.startsWith(`${group}/`) && o.kind === 'Deployment');
        return owners.length === 0 || owners.some((o) => !liveOwners.has(o.uid));
      })
      .map((c) => `${c.kind}/${c.metadata?.name}`);
    return { orphans, checked: berthChildren.length };
  }
}

function revisionConfigOf(revision: Revision): Record<string, unknown> {
  const { repoCommitSha: _ignored, ...config } = (revision.spec.sourceRevisionConfig ?? {}) as Record<string, unknown>;
  return config;
}

/** Why a Deployment has not converged on `expected`, or undefined when it has. */
function convergence(d: Deployment, revisions: Map<string, Revision>, expected: RevisionConfig | undefined): string | undefined {
  const status = d.status;
  if (!status) return 'no status';
  if (status.observedGeneration !== d.metadata.generation)
    return `observedGeneration ${status.observedGeneration} != generation ${d.metadata.generation}`;
  if (expected && canonicalJson(d.spec.sourceRevisionConfig) !== canonicalJson(expected))
    return `spec holds ${canonicalJson(d.spec.sourceRevisionConfig)}, the test wrote ${canonicalJson(expected)}`;
  const latest = status.latestRevisionName ? revisions.get(status.latestRevisionName) : undefined;
  if (!latest) return `latest revision ${status.latestRevisionName ?? '(none)'} not found`;
  if (canonicalJson(revisionConfigOf(latest)) !== canonicalJson(d.spec.sourceRevisionConfig))
    return `latest revision ${latest.metadata.name} holds an older config`;
  if (status.latestRevisionId !== latest.metadata.uid) return 'latestRevisionId is not the latest revision uid';
  if (status.activeRevisionName !== latest.metadata.name)
    return `active revision ${status.activeRevisionName ?? '(none)'} is not the latest`;
  if (status.status !== 'READY') return `status ${status.status}`;
  const ready = status.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') return `Ready=${ready?.status ?? 'absent'} (${ready?.reason ?? ''})`;
  return undefined;
}

/** Runs the kubelet stand-in and the convergence check until every Deployment converged or time runs out. */
export async function converge(fleet: Fleet, history: WrittenHistory, timeoutMs: number): Promise<{ ms: number; rounds: number }> {
  const started = Date.now();
  let rounds = 0;
  let problems: string[] = [];
  while (Date.now() - started < timeoutMs) {
    rounds += 1;
    await fleet.markWorkloadsAvailable();
    problems = await fleet.unconverged(history);
    if (problems.length === 0) return { ms: Date.now() - started, rounds };
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`${problems.length} Deployments did not converge within ${timeoutMs} ms, e.g.:\n${problems.slice(0, 10).join('\n')}`);
}

/** A small seeded generator, so a failing run can be replayed with the seed it printed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
