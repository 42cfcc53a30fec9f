// `npm run bench:agents [-- --rounds N --step-seconds S]`: an agent server from its sources to serving, by the reference's
// own client (`langgraph deploy --remote`: upload, PATCH, remote build from langgraph.json, rollout),
// against the same image built and run directly on the node: the build Job Berth renders, created at once
// from the same uploaded archive, then the same image change on a plain apps/v1 Deployment of Berth's own
// pod template. Each round changes the graph's answer; the ratio is Berth's median and p90 over the
// baseline's. Berth's time is broken down (upload and PATCH, Job queued, each build step, built to
// DEPLOYED, DEPLOYED to the client's return) so the note can say where it goes. Then the cost of
// durability (agent-durability.ts): a run on a thread on the durable server against the in-memory one;
// and what a run in flight pays when its pod goes (agent-resume.ts): a kill's delay, a drain's rollout.
// Needs root and the cached binaries and images (the node suite or `npm start` builds them).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { installCrds } from '../workbench/install-crds.ts';
import { startLocalCluster, type LocalCluster } from '../workbench/local-cluster.ts';
import { nodeBinaries, pushBuildImages, pushServiceImages } from '../workbench/node/node.ts';
import { nodeIp, pushRegistryAddress } from '../workbench/node/network.ts';
import { startPushRegistry } from '../workbench/node/push-registry.ts';
import { freePort } from '../workbench/controlplane.ts';
import { ensureApiKey, ensureOrganizationNamespace } from '../src/facade/api-keys.ts';
import { buildSteps } from '../src/reconcilers/deployment/render/build-job.ts';
import { applyObject } from '../src/runtime/apply.ts';
import { kubeRequest } from '../src/runtime/kube-request.ts';
import { fieldManager } from '../src/api/group.ts';
import { organizationPolicyObjectName } from '../src/api/organization-policy.ts';
import { copyAgentProject, runLanggraph, type ClientUser } from '../workbench/support/langgraph-cli.ts';
import { startBerthProcess } from './berth-process.ts';
import { baselineBuild, berthBuildOf, onlyImageServes, setImage, stepDurations, until } from './node-steps.ts';
import { percentile } from './stats.ts';
import { durabilityCost, inMemoryProject } from './agent-durability.ts';
import { resumeCost } from './agent-resume.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    // The steps graph's step: a drain shows in a rollout once what is left of a run outlasts a new pod's start.
    'step-seconds': { type: 'string', default: '8' },
    out: { type: 'string', default: 'bench/results/agent-server.json' },
  },
});
const rounds = Number(values.rounds);
const log = (message: string) => process.stderr.write(`[bench:agents ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const median = (xs: number[]) => percentile(xs, 50);
const p90 = (xs: number[]) => percentile(xs, 90);

interface Round {
  berthMs: number;
  baselineMs: number;
  /** Berth's time: the client's upload and PATCH (to the Revision), the Job's wait for its pod, each
   * build step, the built image to DEPLOYED, and DEPLOYED to the client's return (its poll). The
   * kubelet's and the API server's timestamps have whole seconds: the parts are read to a second. */
  berth: { uploadMs: number; queuedMs: number; steps: Record<string, number>; rolloutMs: number; clientPollMs: number };
  baseline: { jobMs: number; steps: Record<string, number>; rolloutMs: number };
}

type Job = {
  metadata: { creationTimestamp: string };
  spec: { template: { spec: { initContainers?: { name: string; env?: { name: string; value?: string }[] }[] } } };
  status?: { completionTime?: string };
};
type Revision = {
  metadata: { name: string; creationTimestamp: string };
  status?: { conditions?: { type: string; status: string; lastTransitionTime?: string }[] };
};

/** The graph answers with `suffix` after the upper-cased input: each round's sources differ. */
function writeGraph(project: string, suffix: string): void {
  const file = join(project, 'agent.py');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/\.upper\(\) \+ "[^"]*"/, `.upper() + "${suffix}"`));
}

/** True once the server at `url` runs the graph of this round. */
async function answers(url: string, suffix: string): Promise<true | undefined> {
  const response = await fetch(`${url}/runs/wait`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ assistant_id: 'agent', input: { text: 'x' } }),
    signal: AbortSignal.timeout(5_000),
  });
  return ((await response.json()) as { text?: string }).text === `X${suffix}` ? true : undefined;
}

let cluster: LocalCluster | undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'berth-bench-agents-'));
// Ctrl-C stops the node too: no pod, mount or process is left behind.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the cluster`);
    void (cluster?.stop() ?? Promise.resolve()).finally(() => {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(130);
    });
  });
}
try {
  cluster = await startLocalCluster({ dataDir, ephemeral: true, node: 'required', forwardDns: false });
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.controlPlane.kubeconfigPath);
  await installCrds(kc, join(import.meta.dirname, '../crds'));
  const operatorNamespace = `bench-agents-op-${Date.now()}`;
  const namespace = `bench-agents-${Date.now()}`;
  await kubeRequest(kc, { method: 'POST', path: '/api/v1/namespaces', body: { metadata: { name: operatorNamespace } } });
  const organization = randomUUID();
  await ensureOrganizationNamespace(kc, namespace, organization);
  const { key } = await ensureApiKey(kc, operatorNamespace, [organization]);
  const [images, services] = await Promise.all([pushBuildImages(nodeBinaries()), pushServiceImages(nodeBinaries())]);
  // The HTTP API on the node's address too: the registry's realm, for the kubelet and build pods.
  const nodeFacade = `${nodeIp}:${await freePort()}`;
  const berth = await startBerthProcess({
    kubeconfigPath: cluster.controlPlane.kubeconfigPath,
    operatorNamespace,
    watchNamespaces: [operatorNamespace, namespace],
    components: ['controller', 'facade'],
    logFile: join(dataDir, 'berth.log'),
    env: {
      BERTH_PUSH_REGISTRY: pushRegistryAddress,
      BERTH_FACADE_NODE_ADDRESS: nodeFacade,
      BERTH_BUILDER_IMAGE: images.builder,
      BERTH_GIT_IMAGE: images.git,
      BERTH_BUILD_TOOLS_IMAGE: images.buildTools,
      BERTH_AGENT_TOOLS_IMAGE: images.agentTools,
      BERTH_AGENT_SERVER_IMAGE: images.agentServer,
      BERTH_POSTGRES_IMAGE: services.postgres,
      // The StatefulSet, as the baselines were measured on (the node serves CloudNativePG: auto would take it).
      BERTH_DATABASE_ENGINE: 'statefulset',
      BERTH_REDIS_IMAGE: services.redis,
    },
  });
  const organizationRegistry = await startPushRegistry({
    dir: join(dataDir, 'push-registry'),
    kubeConfig: kc,
    operatorNamespace,
    berthUrl: `http://${nodeFacade}`,
  });
  try {
    const api = `${berth.facadeUrl!}/api-host`;
    const user: ClientUser = { api, key, organization, home: dataDir };
    const project = copyAgentProject(dataDir);
    const headers = { 'x-api-key': key, 'x-tenant-id': organization, 'content-type': 'application/json' };
    const createDeployment = async (name: string) =>
      (await (
        await fetch(`${api}/v2/deployments`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            name,
            source: 'internal_source',
            source_config: {
              resource_spec: {
                min_scale: 1,
                max_scale: 1,
                cpu: 0.1,
                memory_mb: 256,
                memory_limit_mb: 1024,
                db_cpu: 0.1,
                db_memory_mb: 128,
              },
            },
            source_revision_config: {},
          }),
        })
      ).json()) as { id: string };
    const urlOf = async (id: string) => ((await (await fetch(`${api}/v2/deployments/${id}`, { headers })).json()) as { url: string }).url;
    const created = await createDeployment('agent');
    const deploymentUrl = () => urlOf(created.id);
    const deploy = () => runLanggraph(user, project, ['deploy', '--remote', '--name', 'agent', '--no-input', '-c', 'langgraph.json']);
    const latestRevision = async () => {
      const object = await kubeRequest<{ status?: { latestRevisionName?: string } }>(kc, {
        method: 'GET',
        path: `/apis/berth.dev/v1alpha1/namespaces/${namespace}/deployments/agent`,
      });
      return kubeRequest<Revision>(kc, {
        method: 'GET',
        path: `/apis/berth.dev/v1alpha1/namespaces/${namespace}/revisions/${object.status!.latestRevisionName!}`,
      });
    };

    // Round 0, untimed: the first build (the node caches the base image) and the baseline's Deployment,
    // Berth's own pod template under its own labels.
    writeGraph(project, '!0');
    await deploy();
    const url = await deploymentUrl();
    await until(() => answers(url, '!0'), 120_000);
    const rendered = await kubeRequest<{ spec: { strategy: object; template: { spec: object } } }>(kc, {
      method: 'GET',
      path: `/apis/apps/v1/namespaces/${namespace}/deployments/agent`,
    });
    await applyObject(
      kc,
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'agent-plain', namespace },
        spec: {
          replicas: 1,
          strategy: rendered.spec.strategy,
          selector: { matchLabels: { app: 'agent-plain' } },
          template: { metadata: { labels: { app: 'agent-plain' } }, spec: rendered.spec.template.spec },
        },
      } as never,
      fieldManager,
    );
    await until(
      () =>
        onlyImageServes(
          kc,
          namespace,
          'app=agent-plain',
          (rendered.spec.template.spec as { containers: { image: string }[] }).containers[0]!.image,
        ),
      180_000,
    );

    const results: Round[] = [];
    for (let i = 1; i <= rounds; i++) {
      const suffix = `!${i}`;
      writeGraph(project, suffix);
      // Berth: the client from its start until it returns; serving once the new graph answers.
      const began = performance.now();
      // The Revision's creationTimestamp has whole seconds: its arrival is watched for instead.
      const previous = (await latestRevision()).metadata.name;
      let revisionSeenMs = Number.NaN;
      const watching = until(
        async () => ((await latestRevision()).metadata.name !== previous ? (revisionSeenMs = performance.now() - began) : undefined),
        300_000,
      );
      await deploy();
      await watching;
      const clientDone = Date.now();
      await until(() => answers(url, suffix), 120_000);
      const berthMs = performance.now() - began;
      const revision = await latestRevision();
      const { job, pod } = await berthBuildOf<Job>(kc, namespace, revision.metadata.name!);
      const steps = stepDurations(pod);
      const deployedAt = Date.parse(revision.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime ?? '');
      const jobDone = Date.parse(job.status?.completionTime ?? '');
      const firstStep = pod.status?.initContainerStatuses?.[0]?.state?.terminated?.startedAt;
      const berthRound = {
        uploadMs: revisionSeenMs,
        queuedMs: firstStep ? Date.parse(firstStep) - Date.parse(job.metadata.creationTimestamp) : 0,
        steps,
        rolloutMs: deployedAt - jobDone,
        clientPollMs: clientDone - deployedAt,
      };

      // Baseline: the same build Job from the same archive, created at once; then the plain Deployment.
      const fetchEnv = job.spec.template.spec.initContainers?.find((c) => c.name === buildSteps.fetch)?.env ?? [];
      const envOf = (name: string) => fetchEnv.find((e) => e.name === name)?.value ?? '';
      const {
        jobMs,
        pod: baselinePod,
        image,
      } = await baselineBuild(kc, {
        namespace,
        round: i,
        sources: { kind: 'archive', manifestUrl: envOf('MANIFEST_URL'), blobsUrl: envOf('BLOBS_URL') },
        graphConfigPath: 'langgraph.json',
        images,
        // Where Berth's build reads the archive and pushes: the organization's registry, with its credential.
        registry: pushRegistryAddress,
        registryCredentials: organizationPolicyObjectName,
      });
      const switched = performance.now();
      await setImage(kc, namespace, 'agent-plain', image);
      await until(() => onlyImageServes(kc, namespace, 'app=agent-plain', image), 180_000);
      const baselineRollout = performance.now() - switched;
      const baselineSteps = stepDurations(baselinePod);
      results.push({
        berthMs,
        baselineMs: jobMs + baselineRollout,
        berth: berthRound,
        baseline: { jobMs, steps: baselineSteps, rolloutMs: baselineRollout },
      });
      const stepText = (s: Record<string, number>) =>
        Object.entries(s)
          .map(([name, ms]) => `${name} ${seconds(ms)}`)
          .join(', ');
      log(
        `round ${i}/${rounds}: Berth ${seconds(berthMs)} (upload+PATCH ${seconds(berthRound.uploadMs)}, queued ${seconds(berthRound.queuedMs)}, ${stepText(steps)}, built to DEPLOYED ${seconds(berthRound.rolloutMs)}, client poll ${seconds(berthRound.clientPollMs)}); ` +
          `built directly + apps/v1 ${seconds(jobMs + baselineRollout)} (Job ${seconds(jobMs)}: ${stepText(baselineSteps)}; rollout ${seconds(baselineRollout)})`,
      );
    }
    // The cost of durability: the same project on the in-memory runtime, beside the durable server.
    const inMemory = await createDeployment('agent-inmem');
    const inMemoryDir = inMemoryProject(project, join(dataDir, 'agent-inmem'));
    await runLanggraph(user, inMemoryDir, ['deploy', '--remote', '--name', 'agent-inmem', '--no-input', '-c', 'langgraph.json']);
    const inMemoryUrl = await urlOf(inMemory.id);
    await until(() => answers(inMemoryUrl, `!${rounds}`), 120_000);
    const durability = await durabilityCost(url, inMemoryUrl);
    log(
      `a run on a thread, durable server vs in-memory: median ratio ${durability.ratioMedian.toFixed(2)}, p90 ratio ${durability.ratioP90.toFixed(2)} ` +
        `(durable median ${durability.durableMs.median.toFixed(1)} ms, in-memory median ${durability.inMemoryMs.median.toFixed(1)} ms, ${durability.runs} runs each)`,
    );

    // A run in flight when its pod goes: killed with no grace, or drained by a rollout.
    const resume = await resumeCost(
      {
        kc,
        namespace,
        deployment: 'agent',
        url,
        rollOut: async (mark) => {
          const response = await fetch(`${api}/v2/deployments/${created.id}`, {
            method: 'PATCH',
            headers,
            body: JSON.stringify({ secrets: [{ name: 'ROLLOUT_MARK', value: mark }] }),
          });
          if (!response.ok) throw new Error(`PATCH: ${response.status} ${await response.text()}`);
        },
      },
      Number(values['step-seconds']),
    );
    log(
      `a run of four ${resume.stepSeconds} s steps: ${seconds(resume.undisturbedMs)} undisturbed, ${seconds(resume.killedMs)} when its pod is killed after the first ` +
        `(ratio ${resume.ratio.toFixed(2)}, ${seconds(resume.delayMs)} to resume); a rollout ${seconds(resume.rolloutMs)} with no run in flight, ` +
        `${seconds(resume.drainedRolloutMs)} draining one (${seconds(resume.drainAddedMs)} added)`,
    );

    const berthTimes = results.map((r) => r.berthMs);
    const baselineTimes = results.map((r) => r.baselineMs);
    const summary = {
      machine: { cpus: (await import('node:os')).cpus().length },
      rounds: results,
      ratioMedian: median(berthTimes) / median(baselineTimes),
      ratioP90: p90(berthTimes) / p90(baselineTimes),
      durability,
      resume,
    };
    mkdirSync(dirname(values.out), { recursive: true });
    writeFileSync(values.out, `${JSON.stringify(summary, null, 2)}\n`);
    log(
      `sources to serving, the client's remote build vs the same build Job + apps/v1: median ratio ${summary.ratioMedian.toFixed(2)}, p90 ratio ${summary.ratioP90.toFixed(2)} (Berth median ${seconds(median(berthTimes))}, baseline median ${seconds(median(baselineTimes))})`,
    );
  } finally {
    await organizationRegistry.stop();
    await berth.stop();
  }
} finally {
  await cluster?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
