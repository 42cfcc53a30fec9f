// The in-cluster build of a revision Berth builds: a Job whose pod gets the sources (clones the repository
// at the revision's ref, or fetches the uploaded archive from the registry), runs the install and build commands, then builds the checkout's Dockerfile with BuildKit and pushes
// `<registry>/<namespace>/<deployment>:<revision>`. Each step says what it made in its termination message
// (the commit checked out; BuildKit's metadata with the pushed digest), and a failed one leaves the last
// lines of its log there (build-state.ts reads both). User input reaches the shell only through
// environment variables, never by splicing it into a script.
import type { V1Container, V1EnvVar, V1Job } from '@kubernetes/client-node';
import { buildJobName } from '../names.ts';
import { type OwnerDeployment, childMetadata, revisionLabel } from './common.ts';

export interface BuildImages {
  /** Clones the repository: needs `git` and `sh`. */
  git: string;
  /** Runs installCommand and buildCommand in the checkout (needs `sh` and the project's toolchain) and
   * fetches an uploaded archive (needs `wget`, `sed` and `tar`, as busybox has them). */
  tools: string;
  /** Builds and pushes the image from the checkout's Dockerfile: BuildKit's image layout
   * (`buildctl-daemonless.sh` and `buildkitd` on the PATH, as in moby/buildkit's images). */
  builder: string;
}

/** The build's steps, by container name, in the order they run (clone or fetch first). */
export const buildSteps = { clone: 'clone', fetch: 'fetch', commands: 'commands', image: 'image' } as const;

/** Where a build's sources come from: a repository (codehost) or an uploaded archive (internal_source). */
export type BuildSources =
  | {
      kind: 'repository';
      repoUrl: string;
      repoRef: string;
      /** The Secret holding the code host's `token` (a CodeHostIntegration's credentials), for private repos. */
      credentialsSecretName?: string;
    }
  | {
      kind: 'archive';
      /** The archive's OCI manifest, and the blobs of its repository (src/registry/source-archives.ts). */
      manifestUrl: string;
      blobsUrl: string;
    };

export interface BuildJobInput {
  owner: OwnerDeployment;
  revisionName: string;
  sources: BuildSources;
  installCommand?: string | null;
  buildCommand?: string | null;
  images: BuildImages;
  registry: string;
  serviceAccountName?: string;
  /** BuildKit runs a Dockerfile's RUN steps in containers of its own: without user namespaces that
   * takes a privileged container. */
  privileged: boolean;
}

export function builtImage(registry: string, namespace: string, deployment: string, revision: string): string {
  return `${registry.replace(/\/+$/, '')}/${namespace}/${deployment}:${revision}`;
}

const cloneScript = [
  'set -eu',
  'cd /workspace',
  'git init -q .',
  'git remote add origin "$REPO_URL"',
  'if [ -n "${GIT_TOKEN:-}" ]; then',
  '  git config http.extraHeader "Authorization: Basic $(printf "x-access-token:%s" "$GIT_TOKEN" | base64 | tr -d "\\n")"',
  'fi',
  'git fetch -q --depth 1 origin "$REPO_REF"',
  'git checkout -q FETCH_HEAD',
  'git rev-parse HEAD >/dev/termination-log',
].join('\n');

/** The sed program that prints the layer digest of an archive's manifest, as archiveManifest writes it. */
export const archiveLayerSed = 's/.*"layers":\\[{[^]]*"digest":"\\(sha256:[0-9a-f]\\{64\\}\\)".*/\\1/p';

/** The archive's one layer, named in its manifest (as Berth writes it), is the gzipped tar of the sources. */
const fetchScript = [
  'set -eu',
  'cd /workspace',
  'wget -q -O /tmp/manifest.json --header "Accept: application/vnd.oci.image.manifest.v1+json" "$MANIFEST_URL" ||',
  '  { echo "no source archive at $MANIFEST_URL"; exit 1; }',
  `layer=$(sed -n '${archiveLayerSed}' /tmp/manifest.json)`,
  '[ -n "$layer" ] || { echo "the manifest at $MANIFEST_URL names no archive layer"; exit 1; }',
  'wget -q -O /tmp/sources.tar.gz "$BLOBS_URL/$layer"',
  'tar -xzf /tmp/sources.tar.gz',
  'echo "$layer" >/dev/termination-log',
].join('\n');

const commandsScript = [
  'set -eu',
  'cd /workspace',
  'if [ -n "${INSTALL_COMMAND:-}" ]; then sh -c "$INSTALL_COMMAND"; fi',
  'if [ -n "${BUILD_COMMAND:-}" ]; then sh -c "$BUILD_COMMAND"; fi',
].join('\n');

/** `buildctl build` of the checkout's Dockerfile, pushed by tag. buildctl writes its metadata (with the
 * digest) by renaming a file over it, which a mounted termination-log file refuses: it is copied there. */
const builderScript = [
  'set -eu',
  'buildctl-daemonless.sh build --progress=plain --frontend=dockerfile.v0 \\',
  '  --local=context=/workspace --local=dockerfile=/workspace \\',
  '  --output="type=image,name=$IMAGE,push=true" --metadata-file=/tmp/build-metadata.json',
  'cat /tmp/build-metadata.json >/dev/termination-log',
].join('\n');

const workspace = [{ name: 'workspace', mountPath: '/workspace' }];
const step = { terminationMessagePolicy: 'FallbackToLogsOnError' } as const;

/** The first step: the sources into /workspace, and what they are (the commit, or the archive's digest). */
function sourcesStep(sources: BuildSources, images: BuildImages): V1Container {
  if (sources.kind === 'archive') {
    const env = [
      { name: 'MANIFEST_URL', value: sources.manifestUrl },
      { name: 'BLOBS_URL', value: sources.blobsUrl },
    ];
    return { name: buildSteps.fetch, image: images.tools, command: ['sh', '-c', fetchScript], env, volumeMounts: workspace, ...step };
  }
  const env: V1EnvVar[] = [
    { name: 'REPO_URL', value: sources.repoUrl },
    { name: 'REPO_REF', value: sources.repoRef },
    // The workspace volume belongs to root, the clone step need not: git must trust it (command scope).
    { name: 'GIT_CONFIG_COUNT', value: '1' },
    { name: 'GIT_CONFIG_KEY_0', value: 'safe.directory' },
    { name: 'GIT_CONFIG_VALUE_0', value: '/workspace' },
    ...(sources.credentialsSecretName
      ? [{ name: 'GIT_TOKEN', valueFrom: { secretKeyRef: { name: sources.credentialsSecretName, key: 'token', optional: true } } }]
      : []),
  ];
  return { name: buildSteps.clone, image: images.git, command: ['sh', '-c', cloneScript], env, volumeMounts: workspace, ...step };
}

export function renderBuildJob(input: BuildJobInput): V1Job {
  const { owner, revisionName } = input;
  const image = builtImage(input.registry, owner.namespace, owner.name, revisionName);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: childMetadata(owner, buildJobName(revisionName), 'build', { [revisionLabel]: revisionName }),
    spec: {
      // A build that failed fails again from the same commit: its reason is shown at once.
      backoffLimit: 0,
      activeDeadlineSeconds: 3600,
      template: {
        metadata: { labels: { [revisionLabel]: revisionName } },
        spec: {
          restartPolicy: 'Never',
          ...(input.serviceAccountName ? { serviceAccountName: input.serviceAccountName } : {}),
          initContainers: [
            sourcesStep(input.sources, input.images),
            {
              name: buildSteps.commands,
              image: input.images.tools,
              command: ['sh', '-c', commandsScript],
              env: [
                { name: 'INSTALL_COMMAND', value: input.installCommand ?? '' },
                { name: 'BUILD_COMMAND', value: input.buildCommand ?? '' },
              ],
              volumeMounts: workspace,
              ...step,
            },
          ],
          containers: [
            {
              name: buildSteps.image,
              image: input.images.builder,
              command: ['sh', '-c', builderScript],
              env: [{ name: 'IMAGE', value: image }],
              volumeMounts: [...workspace, { name: 'buildkit', mountPath: '/var/lib/buildkit' }],
              ...(input.privileged ? { securityContext: { privileged: true } } : {}),
              ...step,
            },
          ],
          volumes: [
            { name: 'workspace', emptyDir: {} },
            { name: 'buildkit', emptyDir: {} },
          ],
        },
      },
    },
  };
}
