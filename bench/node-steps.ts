// Steps the node benchmarks share: waiting on the API server, reading a build pod's steps, a build run
// without Berth, and the image change and serving check of a baseline apps/v1 Deployment.
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import type { V1Deployment } from '@kubernetes/client-node';
import { fieldManager } from '../src/api/group.ts';
import { defaultBuildResources } from '../src/api/build-resources.ts';
import type { BuildImages } from '../workbench/node/node.ts';
import { renderBuildJob, type BuildSources } from '../src/reconcilers/deployment/render/build-job.ts';
import { buildJobLocation, defaultBuildNamespace } from '../src/workloads/build-jobs.ts';
import { applyObject } from '../src/runtime/apply.ts';
import { kubeRequest } from '../src/runtime/kube-request.ts';
import { eventually } from '../workbench/support/poll.ts';

/** The check's first defined answer, polled every 25 ms; a failed check counts as no answer yet. */
export const until = <T>(check: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> =>
  eventually(check, timeoutMs, 'a node step', 25);

export type Pod = {
  metadata?: { creationTimestamp?: string };
  spec?: { nodeName?: string };
  status?: { phase?: string; conditions?: { type: string; status: string }[] };
};

export type PodList = {
  items: (Pod & {
    metadata: { deletionTimestamp?: string; labels?: Record<string, string> };
    spec: { containers: { image: string }[] };
    status: { containerStatuses?: { state?: { waiting?: { reason?: string } } }[] };
  })[];
};

/**
 * True once only `image` can get traffic: every pod of the selector not on its way out runs it and is
 * Ready (a pod being deleted is out of the Service's endpoints already; when the kubelet removes its
 * object afterwards depends on its housekeeping period, the same for both).
 */
export async function onlyImageServes(kc: KubeConfig, namespace: string, selector: string, image: string): Promise<true | undefined> {
  const list = await kubeRequest<PodList>(kc, {
    method: 'GET',
    path: `/api/v1/namespaces/${namespace}/pods`,
    query: { labelSelector: selector },
  });
  const live = list.items.filter((pod) => !pod.metadata.deletionTimestamp);
  if (live.length === 0) return undefined;
  const serving = live.every(
    (pod) => pod.spec.containers[0]?.image === image && pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
  );
  return serving ? true : undefined;
}

/**
 * The image change of a baseline apps/v1 Deployment, as `kubectl set image` makes it: a strategic merge
 * patch, which merges the container by name. A JSON merge patch would replace the containers list and
 * drop the probe, ports, environment and requests the baseline was given to match Berth's pod.
 */
export async function setImage(kc: KubeConfig, namespace: string, deployment: string, image: string): Promise<void> {
  const patched = await kubeRequest<V1Deployment>(kc, {
    method: 'PATCH',
    path: `/apis/apps/v1/namespaces/${namespace}/deployments/${deployment}`,
    body: { spec: { template: { spec: { containers: [{ name: 'app', image }] } } } },
    contentType: 'application/strategic-merge-patch+json',
  });
  if (!patched.spec?.template.spec?.containers[0]?.readinessProbe) throw new Error(`the baseline ${deployment} lost its readiness probe`);
}

export type BuildPod = {
  metadata: { creationTimestamp: string };
  status?: { initContainerStatuses?: StepStatus[]; containerStatuses?: StepStatus[] };
};
type StepStatus = { name: string; state?: { terminated?: { startedAt?: string; finishedAt?: string; message?: string } } };

/** Each step's duration in the build pod, from the kubelet's start and finish times. */
export function stepDurations(pod: BuildPod): Record<string, number> {
  const steps: Record<string, number> = {};
  for (const step of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) {
    const { startedAt, finishedAt } = step.state?.terminated ?? {};
    if (startedAt && finishedAt) steps[step.name] = Date.parse(finishedAt) - Date.parse(startedAt);
  }
  return steps;
}

/** The pod of a build Job. */
export async function buildPodOf(kc: KubeConfig, namespace: string, job: string): Promise<BuildPod> {
  const list = await kubeRequest<{ items: BuildPod[] }>(kc, {
    method: 'GET',
    path: `/api/v1/namespaces/${namespace}/pods`,
    query: { labelSelector: `batch.kubernetes.io/job-name=${job}` },
  });
  return list.items[0]!;
}

/** The build Job Berth ran for a revision (in its build namespace, the default a bench Berth runs with) and its pod. */
export async function berthBuildOf<Job>(kc: KubeConfig, namespace: string, revisionName: string): Promise<{ job: Job; pod: BuildPod }> {
  const revision = await kubeRequest<{ metadata: { uid: string } }>(kc, {
    method: 'GET',
    path: `/apis/berth.dev/v1alpha1/namespaces/${namespace}/revisions/${revisionName}`,
  });
  const location = buildJobLocation(defaultBuildNamespace, { namespace, name: revisionName, uid: revision.metadata.uid });
  const job = await kubeRequest<Job>(kc, { method: 'GET', path: `/apis/batch/v1/namespaces/${location.namespace}/jobs/${location.name}` });
  return { job, pod: await buildPodOf(kc, location.namespace, location.name) };
}

/**
 * The builder without Berth: the build Job Berth renders for `sources`, created at once with no owner,
 * until it succeeds. What it took, its pod (for its steps), and the image it pushed, pinned by digest.
 */
export async function baselineBuild(
  kc: KubeConfig,
  input: {
    namespace: string;
    round: number;
    sources: BuildSources;
    graphConfigPath?: string;
    images: BuildImages;
    registry: string;
    registryCredentials?: string;
  },
): Promise<{ jobMs: number; pod: BuildPod; image: string }> {
  const { namespace, round, images, registry } = input;
  const began = performance.now();
  const job = renderBuildJob({
    owner: { name: 'baseline', namespace, uid: '00000000-0000-4000-8000-000000000000' },
    revisionName: `baseline-${round}`,
    location: buildJobLocation(undefined, { namespace, name: `baseline-${round}`, uid: '' }),
    sources: input.sources,
    ...(input.graphConfigPath ? { graphConfigPath: input.graphConfigPath } : {}),
    images: {
      git: images.git,
      tools: images.buildTools,
      builder: images.builder,
      agentTools: images.agentTools,
      agentServer: images.agentServer,
    },
    registry,
    privileged: true,
    // As Berth sizes its builds (bench Berths run with --request-scale 1).
    resources: defaultBuildResources,
    requestScale: 1,
    ...(input.registryCredentials ? { registryCredentials: input.registryCredentials } : {}),
  });
  delete (job.metadata as { ownerReferences?: unknown }).ownerReferences;
  await applyObject(kc, job as never, fieldManager);
  const jobName = job.metadata!.name!;
  await until(async () => {
    const current = await kubeRequest<{ status?: { succeeded?: number; failed?: number } }>(kc, {
      method: 'GET',
      path: `/apis/batch/v1/namespaces/${namespace}/jobs/${jobName}`,
    });
    if (current.status?.failed) throw new Error(`baseline build ${jobName} failed`);
    return current.status?.succeeded ? true : undefined;
  }, 300_000);
  const jobMs = performance.now() - began;
  const pod = await buildPodOf(kc, namespace, jobName);
  const metadata = JSON.parse(pod.status!.containerStatuses![0]!.state!.terminated!.message!) as Record<string, string>;
  return { jobMs, pod, image: `${registry}/${namespace}/baseline:baseline-${round}@${metadata['containerimage.digest']}` };
}
