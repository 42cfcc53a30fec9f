// The in-cluster build of a codehost revision: a Job that clones the repository at the revision's ref,
// runs the install and build commands, then builds and pushes `<registry>/<namespace>/<deployment>:<revision>`.
// User input reaches the shell only through environment variables, never by splicing it into a script.
import type { V1EnvVar, V1Job } from '@kubernetes/client-node';
import { buildJobName } from '../names.ts';
import { type OwnerDeployment, childMetadata, revisionLabel } from './common.ts';

export interface BuildImages {
  /** Clones the repository: needs `git` and `sh`. */
  git: string;
  /** Runs installCommand and buildCommand in the checkout: needs `sh` and the project's toolchain. */
  tools: string;
  /** Builds and pushes the image from the checkout's Dockerfile (a Kaniko-compatible executor). */
  builder: string;
}

export interface BuildJobInput {
  owner: OwnerDeployment;
  revisionName: string;
  repoUrl: string;
  repoRef: string;
  installCommand?: string | null;
  buildCommand?: string | null;
  /** The Secret holding the code host's `token` (a CodeHostIntegration's credentials), for private repos. */
  credentialsSecretName?: string;
  images: BuildImages;
  registry: string;
  serviceAccountName?: string;
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
].join('\n');

const commandsScript = [
  'set -eu',
  'cd /workspace',
  'if [ -n "${INSTALL_COMMAND:-}" ]; then sh -c "$INSTALL_COMMAND"; fi',
  'if [ -n "${BUILD_COMMAND:-}" ]; then sh -c "$BUILD_COMMAND"; fi',
].join('\n');

export function renderBuildJob(input: BuildJobInput): V1Job {
  const { owner, revisionName } = input;
  const image = builtImage(input.registry, owner.namespace, owner.name, revisionName);
  const gitEnv: V1EnvVar[] = [
    { name: 'REPO_URL', value: input.repoUrl },
    { name: 'REPO_REF', value: input.repoRef },
    ...(input.credentialsSecretName
      ? [{ name: 'GIT_TOKEN', valueFrom: { secretKeyRef: { name: input.credentialsSecretName, key: 'token', optional: true } } }]
      : []),
  ];
  const workspace = [{ name: 'workspace', mountPath: '/workspace' }];
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: childMetadata(owner, buildJobName(revisionName), 'build', { [revisionLabel]: revisionName }),
    spec: {
      backoffLimit: 1,
      activeDeadlineSeconds: 3600,
      template: {
        metadata: { labels: { [revisionLabel]: revisionName } },
        spec: {
          restartPolicy: 'Never',
          ...(input.serviceAccountName ? { serviceAccountName: input.serviceAccountName } : {}),
          initContainers: [
            { name: 'clone', image: input.images.git, command: ['sh', '-c', cloneScript], env: gitEnv, volumeMounts: workspace },
            {
              name: 'commands',
              image: input.images.tools,
              command: ['sh', '-c', commandsScript],
              env: [
                { name: 'INSTALL_COMMAND', value: input.installCommand ?? '' },
                { name: 'BUILD_COMMAND', value: input.buildCommand ?? '' },
              ],
              volumeMounts: workspace,
            },
          ],
          containers: [
            {
              name: 'image',
              image: input.images.builder,
              args: ['--context=dir:///workspace', `--destination=${image}`],
              volumeMounts: workspace,
            },
          ],
          volumes: [{ name: 'workspace', emptyDir: {} }],
        },
      },
    },
  };
}
