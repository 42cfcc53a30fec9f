// Step 3 of a pass: the target revision's image, named by its config, or built by a Job for a built
// source (started once, then observed); and the revision the workloads run meanwhile.
import { isBuiltSource, sourceKind, type Deployment } from '../../api/index.ts';
import type { DeepReadonly } from '../../runtime/index.ts';
import { sourceArchiveUrls, uploadIdOf } from '../../registry/source-archives.ts';
import { buildState, builtImageReference } from './build-state.ts';
import { withAppliedHash } from './compare.ts';
import type { ChosenRevisions } from './choose-revisions.ts';
import { buildJobName } from '../../api/child-names.ts';
import { optional, type Pass } from './pass.ts';
import { podsOfRevision } from '../../workloads/revision-pods.ts';
import type { ServingRevision } from './render/application.ts';
import { builtImage, renderBuildJob, type BuildSources } from './render/build-job.ts';
import type { OwnerDeployment } from './render/common.ts';
import { imageOf, type RevisionRecord } from './revision-records.ts';

export interface TargetImage {
  /** The image the target's config names or its finished build recorded. */
  knownImage: string | undefined;
  /** Where the target's build pushes. */
  buildImage: string;
  build: ReturnType<typeof buildState>;
  /** What the workloads run: the target once its image exists, else the revision serving now (if any). */
  serving: ServingRevision | undefined;
}

export async function targetImage(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
  owner: OwnerDeployment,
  chosen: ChosenRevisions,
  previousActive: RevisionRecord | undefined,
): Promise<TargetImage> {
  const { target } = chosen;
  const knownImage = imageOf(target.object);
  const buildImage = builtImage(pass.options.registry, owner.namespace, owner.name, target.name);
  const build = await ensureBuild(pass, deployment, owner, chosen, knownImage);
  const image = knownImage ?? (build.state === 'succeeded' ? builtImageReference(buildImage, build) : undefined);
  return { knownImage, buildImage, build, serving: servingRevision(target, image, previousActive) };
}

/** A revision of a built source without an image is built by a Job: started once, then observed. */
async function ensureBuild(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
  owner: OwnerDeployment,
  chosen: ChosenRevisions,
  knownImage: string | undefined,
) {
  const { informers, options } = pass;
  const { target } = chosen;
  const building = isBuiltSource(target.object.spec.source) && !knownImage;
  const existing = building ? informers.jobs.get(owner.namespace, buildJobName(target.name)) : undefined;
  const pods = existing ? podsOfRevision(informers.pods, owner.namespace, target.name, 'build') : [];
  const build = buildState(existing, pods, redactToken(chosen.token));
  if (!building || build.state !== 'absent') return build;
  const spec = deployment.spec;
  const job = renderBuildJob({
    owner,
    revisionName: target.name,
    sources: buildSources(pass, deployment, owner, chosen),
    installCommand: spec.sourceConfig?.installCommand,
    buildCommand: spec.sourceConfig?.buildCommand,
    graphConfigPath: target.object.spec.sourceRevisionConfig.graphConfigPath,
    images: {
      git: options.images.git,
      tools: options.images.buildTools,
      builder: options.images.builder,
      agentTools: options.images.agentTools,
    },
    registry: options.registry,
    ...optional('serviceAccountName', options.buildServiceAccountName || undefined),
    privileged: options.buildPrivileged,
    resources: options.buildResources,
    requestScale: options.requestScale,
    ...optional('registryCredentials', options.registryCredentials),
  });
  await pass.writer.apply(withAppliedHash(job));
  pass.context.recorder.event(deployment, 'Normal', 'BuildStarted', `Building Revision ${target.name}.`);
  return build;
}

/** Where a revision's build gets its sources: the Deployment's repository, or the revision's uploaded archive. */
function buildSources(pass: Pass, deployment: DeepReadonly<Deployment>, owner: OwnerDeployment, chosen: ChosenRevisions): BuildSources {
  const { target, credentialsSecretName } = chosen;
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
  if (targetImage) return { name: target.name, image: targetImage };
  const activeImage = previousActive ? imageOf(previousActive.object) : undefined;
  return previousActive && activeImage ? { name: previousActive.name, image: activeImage } : undefined;
}

/** Hides the code host token in what a build said (its failed step's last log lines). */
function redactToken(token: string | undefined): (text: string) => string {
  return token && token.length >= 4 ? (text) => text.replaceAll(token, '********') : (text) => text;
}
