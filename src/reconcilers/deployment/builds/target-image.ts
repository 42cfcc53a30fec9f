// Step 3 of a pass: the target revision's image, named by its config, or built by a Job for a built
// source (started once, then observed); and the revision the workloads run meanwhile.
import { interruptionOf, isBuiltSource, labels, sourceKind, type Deployment } from '../../../api/index.ts';
import { childKinds } from '../informers.ts';
import type { DeepReadonly } from '../../../runtime/index.ts';
import { sourceArchiveUrls, uploadIdOf } from '../../../registry/source-archives.ts';
import { buildEnded, buildState, builtImageReference, type BuildState } from './build-state.ts';
import { withAppliedHash } from '../../../runtime/applied-hash.ts';
import type { ChosenRevisions } from '../revisions/choose-revisions.ts';
import { buildJobLocation, podsOfBuild, revisionNamespaceOf, type BuildJobLocation } from '../../../workloads/build-jobs.ts';
import { deploymentLabelValue, preDeployJobName } from '../../../api/child-names.ts';
import { renderPreDeployJob } from '../render/pre-deploy.ts';
import { workloadInput } from '../render/workloads.ts';
import { type Pass } from '../pass.ts';
import type { ServingRevision } from '../render/application.ts';
import { builtImage, renderBuildJob, renderBuildSecret, type BuildImages, type BuildSources } from '../render/build-job.ts';
import { buildKey, buildKeyAnnotation, reusableBuild } from './build-reuse.ts';
import type { OwnerDeployment } from '../render/common.ts';
import { imageOf, servingOf, type RevisionRecord } from '../revisions/revision-records.ts';
import { optional } from '../../../runtime/index.ts';
import { backingUpReason, backupGatePasses, type BackupGate } from './backup-gate.ts';
import { backupBeforeRevision } from './backup-before-revision.ts';

export interface TargetImage {
  /** The image the target's config names or its finished build recorded. */
  knownImage: string | undefined;
  /** Where the target's build pushes. */
  buildImage: string;
  build: ReturnType<typeof buildState>;
  /** The backup the target waits for before it rolls out, when it migrates its database (backup-gate.ts). */
  backup?: BackupGate;
  /** Where the target's pre-deploy command stands, when it has one to run (its Job's state). */
  preDeploy?: BuildState;
  /** What the workloads run: the target once its image exists (and its pre-deploy command succeeded),
   * else the revision serving now (if any). */
  serving: ServingRevision | undefined;
  /** The build key of the image the target takes from an earlier revision instead of building. */
  reusedBuildKey?: string;
}

export async function targetImage(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
  owner: OwnerDeployment,
  chosen: ChosenRevisions,
  previousActive: RevisionRecord | undefined,
): Promise<TargetImage> {
  const { target } = chosen;
  const recorded = imageOf(target.object);
  const buildImage = builtImage(pass.options.registry, owner.namespace, owner.name, target.name);
  if (interruptionOf(target.object)) {
    // Stopped on its way: its build goes, and what served before serves on.
    await stopBuild(pass, owner, target);
    return { knownImage: recorded, buildImage, build: { state: 'absent' }, serving: servingRevision(target, undefined, previousActive) };
  }
  const key = targetBuildKey(pass, deployment, owner, chosen);
  const reused = !recorded && key ? reuseBuild(pass, deployment, chosen, key) : undefined;
  const knownImage = recorded ?? reused;
  const reuse = reused ? { reusedBuildKey: key! } : {};
  const build = await ensureBuild(pass, deployment, owner, chosen, knownImage, key);
  const image = knownImage ?? (build.state === 'succeeded' ? builtImageReference(buildImage, build) : undefined);
  // A revision that migrates waits for a backup of its database first, then for its pre-deploy command.
  const serving = previousActive && { name: previousActive.name, image: imageOf(previousActive.object) };
  const gate = image ? await backupBeforeRevision(pass, deployment, owner, target, image, serving) : undefined;
  const done = { knownImage, buildImage, build, ...reuse, ...(gate ? { backup: gate } : {}) };
  if (gate && !backupGatePasses(gate)) return { ...done, serving: servingRevision(target, undefined, previousActive) };
  if (gate?.phase === 'Failed') announceSkippedBackup(pass, deployment, target, gate);
  // A revision that serves already needs no pre-deploy command (one added later runs for the next).
  const command = target.name === previousActive?.name ? undefined : deployment.spec.sourceConfig?.preDeployCommand;
  if (!image || !command) return { ...done, serving: servingRevision(target, image, previousActive) };
  const preDeploy = await ensurePreDeploy(pass, deployment, owner, target, servingOf(target, image), command);
  const ready = preDeploy.state === 'succeeded' ? image : undefined;
  return { ...done, preDeploy, serving: servingRevision(target, ready, previousActive) };
}

/** A backup before the revision failed and its policy is best_effort: said once, as the rollout leaves the gate. */
function announceSkippedBackup(pass: Pass, deployment: DeepReadonly<Deployment>, target: RevisionRecord, gate: BackupGate): void {
  if (target.object.status?.reason !== backingUpReason) return;
  pass.context.recorder.event(
    deployment,
    'Warning',
    'BackupSkipped',
    `Revision ${target.name} rolls out without its backup (sourceConfig.backups.beforeRevision best_effort): DatabaseBackup ${gate.name} failed: ${gate.message ?? 'no reason given'}.`,
  );
}

/** What the target's build would be made from, as a key (build-reuse.ts); undefined for an image source or
 * sources that can move. */
function targetBuildKey(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
  owner: OwnerDeployment,
  chosen: ChosenRevisions,
): string | undefined {
  const { spec } = chosen.target.object;
  if (!isBuiltSource(spec.source)) return undefined;
  const config = spec.sourceRevisionConfig;
  return buildKey({
    sources: buildSources(pass, deployment, owner, chosen, undefined),
    pinned: Boolean(config.repoCommitSha) || /^[0-9a-f]{40}$/.test(config.repoRef ?? ''),
    installCommand: deployment.spec.sourceConfig?.installCommand,
    buildCommand: deployment.spec.sourceConfig?.buildCommand,
    graphConfigPath: config.graphConfigPath,
    images: buildImagesOf(pass.options),
  });
}

/** The image of an earlier revision built from the same key, said in an Event when the target takes it. */
function reuseBuild(pass: Pass, deployment: DeepReadonly<Deployment>, chosen: ChosenRevisions, key: string): string | undefined {
  const found = reusableBuild(chosen.all, key, chosen.target.name);
  if (!found) return undefined;
  pass.context.recorder.event(
    deployment,
    'Normal',
    'BuildReused',
    `Revision ${chosen.target.name} runs the image of Revision ${found.revision}, built from the same sources, commands and build images: no build.`,
  );
  return found.image;
}

/** The images a build Job runs its steps in. */
function buildImagesOf(options: Pass['options']): BuildImages {
  return {
    git: options.images.git,
    tools: options.images.buildTools,
    builder: options.images.builder,
    agentTools: options.images.agentTools,
    ...optional('agentServer', options.images.agentServer),
  };
}

/** The target's pre-deploy Job: started once (in its image, as its pods would run), then observed. */
async function ensurePreDeploy(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
  owner: OwnerDeployment,
  target: RevisionRecord,
  serving: ServingRevision,
  command: string,
): Promise<BuildState> {
  const name = preDeployJobName(target.name);
  const job = pass.informers.jobs.get(owner.namespace, name);
  if (job) return buildState(job, podsOfBuild(pass.informers.pods, target.name, { namespace: owner.namespace, name }));
  const input = workloadInput({ owner, spec: deployment.spec, settings: pass.options }, serving);
  const { created } = await pass.writer.createOrGet(renderPreDeployJob(input, command, target.object.metadata.uid ?? ''));
  if (created)
    pass.context.recorder.event(deployment, 'Normal', 'PreDeployStarted', `Running the pre-deploy command of Revision ${target.name}.`);
  return { state: 'queued' };
}

/** Deletes an interrupted revision's build Job, if it has one (its pods and Secret go with it). */
async function stopBuild(pass: Pass, owner: OwnerDeployment, target: RevisionRecord): Promise<void> {
  const location = buildJobLocation(pass.options.buildNamespace, { ...owner, name: target.name, uid: target.object.metadata.uid ?? '' });
  const job = pass.informers.jobs.get(location.namespace, location.name);
  if (job && !job.metadata?.deletionTimestamp) await pass.writer.delete(childKinds.job, location.namespace, location.name);
}

/** A revision of a built source without an image is built by a Job: started once, then observed. */
async function ensureBuild(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
  owner: OwnerDeployment,
  chosen: ChosenRevisions,
  knownImage: string | undefined,
  key: string | undefined,
) {
  const { informers, options } = pass;
  const { target } = chosen;
  const building = isBuiltSource(target.object.spec.source) && !knownImage;
  const location = buildJobLocation(options.buildNamespace, { ...owner, name: target.name, uid: target.object.metadata.uid ?? '' });
  const existing = building ? informers.jobs.get(location.namespace, location.name) : undefined;
  const pods = existing ? podsOfBuild(informers.pods, target.name, location) : [];
  const build = buildState(existing, pods, redactToken(chosen.token));
  if (existing && location.apart && (build.state === 'queued' || build.state === 'running'))
    await ensureBuildSecret(pass, owner, chosen, existing);
  if (!building || build.state !== 'absent') return build;
  // The builder is not there yet (berth dev while it builds BuildKit): no Job, whose image could not be
  // pulled; the pass that follows its arrival starts it.
  if (options.awaitedBuilder) return { state: 'awaiting' as const, message: options.awaitedBuilder, reason: 'AwaitingBuilder' as const };
  const previewOf = previewOfValue(deployment.spec);
  const queued = buildQueue(pass, owner.namespace, location, previewOf !== undefined);
  if (queued) return queued;
  const spec = deployment.spec;
  // Apart, the steps read the copies in the build's own Secret (named like the Job).
  const apartCredentials = location.apart ? location.name : undefined;
  const job = renderBuildJob({
    owner,
    revisionName: target.name,
    location,
    sources: buildSources(pass, deployment, owner, chosen, apartCredentials),
    installCommand: spec.sourceConfig?.installCommand,
    buildCommand: spec.sourceConfig?.buildCommand,
    graphConfigPath: target.object.spec.sourceRevisionConfig.graphConfigPath,
    images: buildImagesOf(options),
    ...optional('networkWaitImage', options.images.networkWait),
    registry: options.registry,
    ...optional('serviceAccountName', options.buildServiceAccountName || undefined),
    privileged: options.buildPrivileged,
    resources: options.buildResources,
    ...optional('placement', options.buildPlacement),
    requestScale: options.requestScale,
    ...optional('registryCredentials', options.registryCredentials && (apartCredentials ?? options.registryCredentials)),
    ...optional('previewOf', previewOf),
  });
  if (key) job.metadata = { ...job.metadata, annotations: { ...job.metadata?.annotations, [buildKeyAnnotation]: key } };
  const started = await pass.writer.apply(withAppliedHash(job));
  if (location.apart) await ensureBuildSecret(pass, owner, chosen, started);
  pass.context.recorder.event(deployment, 'Normal', 'BuildStarted', `Building Revision ${target.name}${whereApart(location)}.`);
  return build;
}

/** The label value of the Deployment a preview's build is for (labels.previewOf); undefined for any other. */
function previewOfValue(spec: DeepReadonly<Deployment>['spec']): string | undefined {
  return spec.previewOf ? deploymentLabelValue(spec.previewOf.deploymentName) : undefined;
}

/**
 * The organization's builds under way in the slots this one takes (its previews' or its deployments'),
 * when they are as many as it may run at once: the build waits. Read from the cache, so two passes at the
 * same moment may each start one (the limit is a bound on what an organization keeps running, not a lock).
 */
function buildQueue(pass: Pass, organization: string, location: BuildJobLocation, preview: boolean): BuildState | undefined {
  const limit = preview ? pass.options.previewBuildsPerOrganization : pass.options.buildsPerOrganization;
  if (limit === undefined) return undefined;
  const running = pass.informers.jobs
    .list(location.namespace)
    .filter((job) => revisionNamespaceOf(job) === organization && isPreviewBuild(job) === preview && !buildEnded(job)).length;
  if (running < limit) return undefined;
  const whose = preview ? "organization's previews run" : 'organization runs';
  return {
    state: 'awaiting',
    reason: 'BuildQueued',
    message: `The ${whose} ${running} build${running === 1 ? '' : 's'} already, as many as ${preview ? 'they' : 'it'} may run at once: this one starts when one of them ends.`,
  };
}

function isPreviewBuild(job: DeepReadonly<{ metadata?: { labels?: Record<string, string> } }>): boolean {
  return job.metadata?.labels?.[labels.previewOf] !== undefined;
}

/** How soon a pass looks again at a build that waits for one of its organization's to end. */
export const buildQueueRecheckMs = 10_000;

function whereApart(location: BuildJobLocation): string {
  return location.apart ? ` (Job ${location.namespace}/${location.name})` : '';
}

/**
 * A build apart gets copies of its organization's registry credential and of the code host token, in
 * a Secret owned by its Job. The Job's pod waits for it; a pass that finds the Job without it (Berth
 * stopped in between) writes it then.
 */
async function ensureBuildSecret(
  pass: Pass,
  owner: OwnerDeployment,
  chosen: ChosenRevisions,
  job: { metadata?: { name?: string; namespace?: string; uid?: string } },
): Promise<void> {
  const { name = '', namespace = '', uid = '' } = job.metadata ?? {};
  if (pass.informers.secrets.get(namespace, name)) return;
  const organizationSecret = pass.options.registryCredentials
    ? pass.informers.secrets.get(owner.namespace, pass.options.registryCredentials)
    : undefined;
  const dockerConfigJson = organizationSecret?.data?.['.dockerconfigjson'];
  if (pass.options.registryCredentials && !dockerConfigJson)
    throw new Error(`the organization's registry credential (Secret ${pass.options.registryCredentials}) is not in ${owner.namespace} yet`);
  const secret = renderBuildSecret(
    { name, namespace, uid },
    { ...optional('dockerConfigJson', dockerConfigJson), ...optional('token', chosen.token) },
  );
  await pass.writer.createOrGet(secret);
}

/** Where a revision's build gets its sources: the Deployment's repository, or the revision's uploaded archive. */
function buildSources(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
  owner: OwnerDeployment,
  chosen: ChosenRevisions,
  apartCredentials: string | undefined,
): BuildSources {
  const { target } = chosen;
  const credentialsSecretName = chosen.credentialsSecretName && (apartCredentials ?? chosen.credentialsSecretName);
  const config = target.object.spec.sourceRevisionConfig;
  if (sourceKind(target.object.spec.source)?.image === 'built-from-archive') {
    return {
      kind: 'archive',
      ...sourceArchiveUrls(pass.options.registry, owner.namespace, owner.name, uploadIdOf(config.sourceTarballPath ?? '') ?? ''),
    };
  }
  return {
    kind: 'repository',
    repoUrl: deployment.spec.sourceConfig?.repoUrl ?? '',
    // The commit the revision records (a build-on-push head, a ref that is a commit), else the branch.
    repoRef: config.repoCommitSha ?? config.repoRef ?? '',
    ...optional('credentialsSecretName', credentialsSecretName),
  };
}

function servingRevision(
  target: RevisionRecord,
  targetImage: string | undefined,
  previousActive: RevisionRecord | undefined,
): ServingRevision | undefined {
  if (targetImage) return servingOf(target, targetImage);
  const activeImage = previousActive ? imageOf(previousActive.object) : undefined;
  return previousActive && activeImage ? servingOf(previousActive, activeImage) : undefined;
}

/** Hides the code host token in what a build said (its failed step's last log lines). */
function redactToken(token: string | undefined): (text: string) => string {
  return token && token.length >= 4 ? (text) => text.replaceAll(token, '********') : (text) => text;
}
