// Steps 1 and 2 of a pass: what the spec refers to (Secrets, the integration, a tracked branch's head),
// then the Revision it describes (made once, named by its digest) and the one to serve (it, or the
// pinned one). A problem halts the pass here: what it returns is the status the loop writes (reconcile.ts),
// the one place a halted pass's status is written.
import { codeHostCredentialKeys, codeHostEventAnnotation } from '../../../api/codehost-integration.ts';
import {
  nameStemIndex,
  nameClaimants,
  nameRefusal,
  quotaExcess,
  replicaCapExcess,
  nodeVolumeRefusal,
  berthOwnSecretMessage,
  berthOwnSecretReference,
  repositoryHostRefusal,
  type Deployment,
  awaitedInputOf,
  timestampText,
} from '../../../api/index.ts';
import { secretValues } from '../../../codehost/credentials.ts';
import { baseUrlRefusal } from '../../../codehost/outbound.ts';
import { notificationUrlRefusal } from '../../../notifications/origins.ts';
import { baseUrlOf } from '../../../codehost/registry.ts';
import type { DeepReadonly } from '../../../runtime/index.ts';
import { revisionDigest } from './digest.ts';
import { hostClaimProblem } from './host-claim.ts';
import {
  awaitedProblem,
  facadeSecretGraceMs,
  fingerprintSecrets,
  secretValuesOf,
  resolveIntegration,
  secretReferences,
  sourceConfigSecretReferences,
} from './inputs.ts';
import { type Pass } from '../pass.ts';
import type { Problem } from '../problem.ts';
import type { OwnerDeployment } from '../render/common.ts';
import { renderRevision } from '../render/revision.ts';
import { writeRevisionSecrets } from './revision-secrets.ts';
import { summarize, type RevisionHistory, type RevisionRecord } from './revision-records.ts';
import { chooseTarget, findByDigest } from './revisions.ts';
import { trackedBranch } from './source-head.ts';
import { optional } from '../../../runtime/index.ts';

/** The revisions a pass works with once its spec could be followed. */
export interface ChosenRevisions {
  latest: RevisionRecord;
  all: RevisionRecord[];
  target: RevisionRecord;
  pinned: boolean;
  credentialsSecretName: string | undefined;
  token: string | undefined;
}

/** A pass that cannot go on: the problem its status shows, the revisions it keeps showing, and when
 * to look again (undefined: when something it watches changes). */
export interface Halt {
  problem: Problem;
  known: { latest?: RevisionRecord; active?: RevisionRecord };
  requeueAfterMs?: number;
}

type Integration = ReturnType<typeof resolveIntegration>;

/** How often a Deployment whose host is refused looks again (the claim before it may have gone). */
const hostRecheckMs = 60_000;

export async function chooseRevisions(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
  owner: OwnerDeployment,
  history: RevisionHistory,
): Promise<ChosenRevisions | Halt> {
  const { informers, options } = pass;
  const spec = deployment.spec;
  const { revisions, previousActive, previousLatest } = history;
  // What the status said before: kept while a problem stops this pass before the revision is known.
  const known = { ...optional('latest', previousLatest), ...optional('active', previousActive) };
  // More replicas than the installation allows one deployment (kubectl's way in: the API refuses it).
  const excess = replicaCapExcess(spec.sourceConfig?.resourceSpec, options.maxReplicas);
  if (excess) {
    const message = `spec.sourceConfig.resourceSpec.${excess.field} ${excess.value} ${excess.message}`;
    return { problem: { reason: 'ReplicaCapExceeded', message }, known };
  }
  // More than the organization's quota allows in all (kubectl's way in: the API refuses it).
  const overQuota = quotaExcess(spec.sourceConfig, options.organizationQuota);
  if (overQuota) return { problem: { reason: 'QuotaExceeded', message: `The deployment ${overQuota.message}.` }, known };
  // A volume the kubelet would mount from the node that the installation does not list (kubectl's way in).
  const nodeVolume = nodeVolumeRefusal(spec.sourceConfig?.resourceSpec, options.nodeVolumes);
  if (nodeVolume) {
    const message = `spec.sourceConfig.resourceSpec.volumes[${nodeVolume.path[0]}] ${nodeVolume.message}.`;
    return { problem: { reason: 'VolumeNotAllowed', message }, known };
  }
  // A pod part that names Berth's own Secrets (kubectl's way in: the API refuses it).
  const ownSecret = berthOwnSecretReference(spec.sourceConfig);
  if (ownSecret)
    return { problem: { reason: 'SecretReserved', message: `spec.sourceConfig.${ownSecret.join('.')} ${berthOwnSecretMessage}.` }, known };
  // Notifications to an origin the installation does not list: Berth sends nothing there.
  const notifications = spec.sourceConfig?.notifications;
  const refusedUrl = notifications && notificationUrlRefusal(notifications.url, options.notificationOrigins);
  if (refusedUrl) return { problem: { reason: 'NotificationOriginNotAllowed', message: `${refusedUrl}.` }, known };
  // Child names another Deployment of the namespace took first: nothing is written under them. A host
  // reserved, outside the allowed domains, not proved the organization's, or claimed by an earlier
  // Deployment (kubectl's way in: the HTTP API refuses them before writing). Looked at again each
  // minute: the record may be published, the claim released.
  const refused =
    nameRefusal(
      deployment,
      nameClaimants(owner.namespace, owner.name, (key) => informers.deployments.byIndex(nameStemIndex, key)),
    ) ?? (await hostClaimProblem(pass, deployment));
  if (refused) return { problem: refused, known, requeueAfterMs: hostRecheckMs };
  const secretLookup = (ns: string, name: string) => informers.secrets.get(ns, name);
  const references = secretReferences(owner.name, spec.secrets);
  const secrets = fingerprintSecrets(owner.namespace, references, secretLookup);
  if ('problem' in secrets) {
    const problem = awaitedProblem(secrets, owner.name, createdAtOf(deployment), options.now());
    // The Secret's arrival enqueues the Deployment; this re-check turns the wait into Stalled if it never comes.
    return { problem, known, ...(problem.awaited ? { requeueAfterMs: facadeSecretGraceMs } : {}) };
  }
  // Read in the same turn as the fingerprints: what a new revision keeps is what its digest was made of.
  const values = secretValuesOf(owner.namespace, references, secretLookup);
  // Read by the pods as they start (a database's URI) or by Berth as it sends (the signing key): a change makes no revision.
  const external = fingerprintSecrets(owner.namespace, sourceConfigSecretReferences(spec.sourceConfig), secretLookup);
  if ('problem' in external) return { problem: external.problem, known };
  const integration = resolveIntegration(spec.source, spec.sourceConfig?.integrationId, informers.integrations.list(owner.namespace));
  if ('problem' in integration) return { problem: integration.problem, known };
  const foreignHost =
    integration.integration &&
    repositoryHostRefusal(spec.sourceConfig?.repoUrl ?? '', integration.integration.spec, 'spec.sourceConfig.repoUrl');
  if (foreignHost) return { problem: { reason: 'RepositoryHostMismatch', message: foreignHost }, known };
  // An integration on a host the installation does not allow: its token goes nowhere, not even to read a branch.
  const notAllowed = integration.integration && baseUrlRefusal(baseUrlOf(integration.integration.spec), options.codeHostOrigins);
  if (notAllowed) return { problem: { reason: 'CodeHostNotAllowed', message: notAllowed }, known };
  // A deployment created before its first image or source archive has no revision yet: it waits,
  // Reconciling, until a change brings one.
  const awaiting = awaitedInput(spec, createdAtOf(deployment), options.now(), options.firstInputDeadlineMs);
  if (awaiting) return { problem: awaiting.problem, known, ...optional('requeueAfterMs', awaiting.recheckAfterMs) };
  const token = integrationToken(pass, owner.namespace, integration);
  const tracked = await trackedCommit(pass, deployment, token, previousLatest);
  const revisionConfig = tracked ? { ...spec.sourceRevisionConfig, repoCommitSha: tracked } : spec.sourceRevisionConfig;
  const digest = revisionDigest(revisionConfig, secrets.fingerprints);
  const latest = await latestRevision(pass, deployment, owner, { digest, values }, revisions, tracked);
  if (!('uid' in latest)) return { problem: latest, known };
  const all = revisions.some((r) => r.name === latest.name) ? revisions : [...revisions, latest];
  const choice = chooseTarget(all, latest, spec.revisionName);
  if ('problem' in choice) return { problem: choice.problem, known: { latest, ...optional('active', previousActive) } };
  return { latest, all, target: choice.revision, pinned: choice.pinned, credentialsSecretName: credentialsSecretOf(integration), token };
}

function createdAtOf(deployment: DeepReadonly<Deployment>): string | undefined {
  return timestampText(deployment.metadata.creationTimestamp);
}

/**
 * What a spec that cannot make a revision yet waits for: its first image, or its first source archive.
 * Awaited (Reconciling) until `deadlineMs` after the Deployment's creation, then Stalled: a deploy that
 * died between creating the deployment and sending its input shows that, not an endless wait. A later
 * PATCH with the input still makes the revision. Pure.
 */
export function awaitedInput(
  spec: DeepReadonly<Deployment['spec']>,
  createdAt: string | undefined,
  now: Date,
  deadlineMs: number,
): { problem: Problem; recheckAfterMs?: number } | undefined {
  const awaited = awaitedInputOf(spec);
  if (!awaited) return undefined;
  const age = createdAt === undefined ? 0 : now.getTime() - Date.parse(createdAt);
  if (age < deadlineMs)
    return { problem: { reason: awaited.reason, message: awaited.message, awaited: true }, recheckAfterMs: deadlineMs - age };
  const within = deadlineMs < 120_000 ? `${Math.round(deadlineMs / 1000)} s` : `${Math.round(deadlineMs / 60_000)} min`;
  return {
    problem: {
      reason: awaited.lateReason,
      message: `No ${awaited.what} came within ${within} of the deployment's creation: the deploy that created it stopped before sending one. ${awaited.message}`,
    },
  };
}

/** The Secret a build clones with: the integration's credentials, when the source has an integration. */
function credentialsSecretOf(integration: Integration): string | undefined {
  return 'integration' in integration && integration.integration ? integration.integration.spec.credentialsSecretRef.name : undefined;
}

/** The code host token a build clones with and a branch head is read with: the integration's Secret's `token`. */
function integrationToken(pass: Pass, namespace: string, integration: Integration): string | undefined {
  const secretName = credentialsSecretOf(integration);
  const secret = secretName ? pass.informers.secrets.get(namespace, secretName) : undefined;
  return (secret ? secretValues(secret)[codeHostCredentialKeys.token]?.trim() : undefined) || undefined;
}

/** The branch head a build-on-push Deployment builds; when the repository does not answer, the commit
 * of its latest revision (no new revision until it answers again). */
async function trackedCommit(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
  token: string | undefined,
  latestKnown: RevisionRecord | undefined,
): Promise<string | undefined> {
  const branch = trackedBranch(deployment.spec);
  if (!branch) return undefined;
  try {
    const fresh = deployment.metadata.annotations?.[codeHostEventAnnotation];
    return await pass.heads.head({ ...branch, ...optional('token', token), ...optional('fresh', fresh) });
  } catch (error) {
    const message = `Cannot read branch ${branch.ref} of ${branch.repoUrl}: ${(error as Error).message}. A push is seen once it answers.`;
    pass.context.recorder.event(deployment, 'Warning', 'SourceHeadUnknown', message);
    return latestKnown?.object.spec.sourceRevisionConfig.repoCommitSha;
  }
}

/** What the Deployment's spec and Secrets make a revision of now: its digest and its secrets' values. */
interface RevisionMaking {
  digest: string;
  /** Each secret environment variable's value (base64), read from the cache with the digest's fingerprints. */
  values: Record<string, string>;
}

/**
 * The Revision for this digest: from the cache, or created (AlreadyExists means someone made it first),
 * after the Secret with its values that it names, so that no Revision names a Secret that is not there.
 */
async function latestRevision(
  pass: Pass,
  deployment: DeepReadonly<Deployment>,
  owner: OwnerDeployment,
  { digest, values }: RevisionMaking,
  revisions: RevisionRecord[],
  repoCommitSha: string | undefined,
): Promise<RevisionRecord | Problem> {
  const cached = findByDigest(revisions, digest);
  if (cached) return cached;
  const snapshot = await writeRevisionSecrets(pass, owner, digest, values);
  if (!('name' in snapshot)) return snapshot;
  const manifest = renderRevision({
    owner,
    generation: deployment.metadata.generation ?? 0,
    source: deployment.spec.source,
    sourceRevisionConfig: deployment.spec.sourceRevisionConfig ?? {},
    digest,
    ...optional('repoCommitSha', repoCommitSha),
    ...optional('trackedPackages', deployment.spec.trackedPackages),
    secretNames: (deployment.spec.secrets ?? []).map((secret) => secret.name),
    secretSnapshot: snapshot.name,
  });
  const { object, created } = await pass.writer.createOrGet(manifest);
  if (object.spec?.digest !== digest) {
    return { reason: 'RevisionNameConflict', message: `Revision ${manifest.metadata.name} exists with another digest.` };
  }
  if (created) pass.context.recorder.event(deployment, 'Normal', 'RevisionCreated', `Created Revision ${manifest.metadata.name}.`);
  return summarize(object);
}
