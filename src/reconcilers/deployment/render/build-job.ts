// The in-cluster build of a revision Berth builds: a Job whose pod gets the sources (clones the repository
// at the revision's ref, or fetches the uploaded archive from the registry), runs the install and build
// commands, makes the Dockerfile from the application configuration file when the sources have none
// (the reference's own tooling, `langgraph dockerfile`), then builds the Dockerfile with BuildKit and pushes
// `<registry>/<namespace>/<deployment>:<revision>`. Each step says what it made in its termination message
// (the commit checked out; BuildKit's metadata with the pushed digest), and a failed one leaves the last
// lines of its log there (build-state.ts reads both). User input reaches the shell only through
// environment variables, never by splicing it into a script.
import type { V1Container, V1EnvVar, V1Job } from '@kubernetes/client-node';
import { buildJobName } from '../../../api/child-names.ts';
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
  /** Makes a Dockerfile from the application configuration file: Python with `langgraph` (langgraph-cli)
   * on the PATH, or pip to install the pinned version. */
  agentTools: string;
}

/** The reference tooling's version that makes Dockerfiles where the image has none of its own. */
export const langgraphCliVersion = '0.4.40';

/** The build's steps, by container name, in the order they run (clone or fetch first). */
export const buildSteps = { clone: 'clone', fetch: 'fetch', commands: 'commands', dockerfile: 'dockerfile', image: 'image' } as const;

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
  /** The application configuration file, relative to the sources (default langgraph.json). */
  graphConfigPath?: string | null;
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

/** The token reaches git for the one fetch, on its command line: nothing in the workspace (.git/config)
 * keeps it for the build commands, or for an image that copies the checkout. */
const cloneScript = [
  'set -eu',
  'cd /workspace',
  'git init -q .',
  'git remote add origin "$REPO_URL"',
  'if [ -n "${GIT_TOKEN:-}" ]; then',
  '  git -c "http.extraHeader=Authorization: Basic $(printf "x-access-token:%s" "$GIT_TOKEN" | base64 | tr -d "\\n")" fetch -q --depth 1 origin "$REPO_REF"',
  'else',
  '  git fetch -q --depth 1 origin "$REPO_REF"',
  'fi',
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

/**
 * The check of a configuration file's graphs, run by the dockerfile step on the sources (python3 -
 * CONFIG): each graph's file is there, compiles, and defines its name at top level. The user's code is
 * not run (an import may need the app's secrets): a graph that fails only when imported fails its
 * rollout instead, with its logs. Graphs named by module rather than file are left to the rollout.
 */
export const graphCheck = [
  'import ast, json, os, sys',
  'config = sys.argv[1]',
  'base = os.path.dirname(os.path.abspath(config))',
  'failed = False',
  'for name, spec in json.load(open(config, encoding="utf-8")).get("graphs", {}).items():',
  '    target = spec if isinstance(spec, str) else spec.get("path", "")',
  '    path, _, attr = target.rpartition(":")',
  '    if not path.endswith(".py"):',
  '        continue',
  '    file = os.path.normpath(os.path.join(base, path))',
  '    try:',
  '        tree = ast.parse(open(file, encoding="utf-8").read(), path)',
  '    except (OSError, SyntaxError) as error:',
  '        print(f"graph {name} ({target}): {error}"); failed = True; continue',
  '    names = {t.id for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign)) for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}',
  '    names |= {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}',
  '    names |= {(a.asname or a.name).split(".")[0] for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}',
  '    if attr not in names:',
  '        print(f"graph {name} ({target}): {path} defines no {attr} at top level"); failed = True',
  'sys.exit(1 if failed else 0)',
].join('\n');

/**
 * The sources' own Dockerfile wins. Else the configuration file makes one, as the reference's tooling
 * makes it (`langgraph dockerfile`), into /generated, with the file's directory as the build context
 * (/generated/context), once the file's graphs pass the graph check. The path stays inside the sources.
 */
const dockerfileScript = [
  'set -eu',
  'cd /workspace',
  'if [ -f Dockerfile ]; then echo "building the Dockerfile of the sources"; exit 0; fi',
  'config="${GRAPH_CONFIG_PATH:-langgraph.json}"',
  'case "/$config/" in */../*|//*) echo "graph_config_path must name a file inside the sources: $config"; exit 1;; esac',
  '[ -f "$config" ] || { echo "the sources have no Dockerfile and no configuration file at $config (graph_config_path)"; exit 1; }',
  'command -v langgraph >/dev/null 2>&1 || pip install --quiet --no-cache-dir "langgraph-cli==$LANGGRAPH_CLI_VERSION"',
  'echo "making the Dockerfile from $config with $(langgraph --version 2>/dev/null)"',
  'langgraph dockerfile -c "$config" /generated/Dockerfile >/tmp/dockerfile.log 2>&1 || { tail -n 20 /tmp/dockerfile.log; echo "$config: not a configuration file langgraph-cli accepts"; exit 1; }',
  'printf %s "$GRAPH_CHECK" | python3 - "$config" || { echo "$config names graphs that are not there"; exit 1; }',
  'dirname "$config" >/generated/context',
  'cat /generated/Dockerfile',
].join('\n');

/** `buildctl build` of the Dockerfile (the sources' own, or the one made from the configuration file),
 * pushed by tag. buildctl writes its metadata (with the digest) by renaming a file over it, which a
 * mounted termination-log file refuses: it is copied there. */
const builderScript = [
  'set -eu',
  'context=/workspace dockerfile=/workspace',
  'if [ -f /generated/Dockerfile ]; then context="/workspace/$(cat /generated/context)" dockerfile=/generated; fi',
  'buildctl-daemonless.sh build --progress=plain --frontend=dockerfile.v0 \\',
  '  --local=context="$context" --local=dockerfile="$dockerfile" \\',
  '  --output="type=image,name=$IMAGE,push=true" --metadata-file=/tmp/build-metadata.json',
  'cat /tmp/build-metadata.json >/dev/termination-log',
].join('\n');

const workspace = [{ name: 'workspace', mountPath: '/workspace' }];
const generated = { name: 'generated', mountPath: '/generated' };
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
            {
              name: buildSteps.dockerfile,
              image: input.images.agentTools,
              command: ['sh', '-c', dockerfileScript],
              env: [
                { name: 'GRAPH_CONFIG_PATH', value: input.graphConfigPath ?? '' },
                { name: 'LANGGRAPH_CLI_VERSION', value: langgraphCliVersion },
                { name: 'GRAPH_CHECK', value: graphCheck },
              ],
              volumeMounts: [...workspace, generated],
              ...step,
            },
          ],
          containers: [
            {
              name: buildSteps.image,
              image: input.images.builder,
              command: ['sh', '-c', builderScript],
              env: [{ name: 'IMAGE', value: image }],
              volumeMounts: [...workspace, generated, { name: 'buildkit', mountPath: '/var/lib/buildkit' }],
              ...(input.privileged ? { securityContext: { privileged: true } } : {}),
              ...step,
            },
          ],
          volumes: [
            { name: 'workspace', emptyDir: {} },
            { name: 'generated', emptyDir: {} },
            { name: 'buildkit', emptyDir: {} },
          ],
        },
      },
    },
  };
}
