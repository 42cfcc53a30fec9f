// The in-cluster build of a revision Berth builds: a Job whose pod gets the sources (clones the repository
// at the revision's ref, or fetches the uploaded archive from the registry), runs the install and build
// commands, makes the Dockerfile from the application configuration file when the sources have none
// (the reference's own tooling, `langgraph dockerfile`), then builds the Dockerfile with BuildKit and pushes
// `<registry>/<namespace>/<deployment>:<revision>`. Each step says what it made in its termination message
// (the commit checked out; BuildKit's metadata with the pushed digest), and a failed one leaves the last
// lines of its log there (build-state.ts reads both). User input reaches the shell only through
// environment variables, never by splicing it into a script.
import type { V1Container, V1EnvVar, V1Job, V1ObjectMeta, V1Secret, V1Volume } from '@kubernetes/client-node';
import type { BuildPlacement } from '../../../api/build-placement.ts';
import type { BuildResources } from '../../../api/build-resources.ts';
import { networkReady } from './network-ready.ts';
import { labels } from '../../../api/group.ts';
import { managedSecretLabels } from '../../../api/readable-secrets.ts';
import { agentConfigCheckEnv } from './agent-config-check.ts';
import { buildForDeploymentLabel, buildForNamespaceLabel, type BuildJobLocation } from '../../../workloads/build-jobs.ts';
import {
  type OwnerDeployment,
  childMetadata,
  cpuQuantity,
  memoryQuantity,
  revisionLabel,
  scaledRequests,
  selectorLabels,
} from './common.ts';

export interface BuildImages {
  /** Clones the repository: needs `git` and `sh`. */
  git: string;
  /** Runs installCommand and buildCommand in the checkout (needs `sh` and the project's toolchain). */
  tools: string;
  /** Builds and pushes the image from the checkout's Dockerfile: BuildKit's image layout
   * (`buildctl-daemonless.sh` and `buildkitd` on the PATH, as in moby/buildkit's images). */
  builder: string;
  /** Makes a Dockerfile from the application configuration file: Python with `langgraph` (langgraph-cli)
   * on the PATH, or pip to install the pinned version. Also fetches an uploaded archive (Python). */
  agentTools: string;
  /** The base image of an agent image made from its configuration file, in place of the reference's
   * `FROM` (unless the file names its own `base_image`); absent, the reference's image. */
  agentServer?: string;
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
  /** Where the Job runs (src/workloads/build-jobs.ts): beside its Deployment, or in the build namespace. */
  location: BuildJobLocation;
  sources: BuildSources;
  installCommand?: string | null;
  buildCommand?: string | null;
  /** The application configuration file, relative to the sources (default langgraph.json). */
  graphConfigPath?: string | null;
  images: BuildImages;
  /** The image of the wait for the network (render/network-ready.ts); absent, none. */
  networkWaitImage?: string;
  registry: string;
  serviceAccountName?: string;
  /** BuildKit runs a Dockerfile's RUN steps in containers of its own: without user namespaces that
   * takes a privileged container. */
  privileged: boolean;
  /** What each step asks for and may use: its requests scaled by `requestScale`. */
  resources: BuildResources;
  /** The nodes builds run on: a node selector and tolerations (--build-placement). */
  placement?: BuildPlacement;
  requestScale: number;
  /** The organization's credential for the registry (a dockerconfigjson Secret): the fetch step reads
   * the sources with it and BuildKit pushes with it. Only those two steps mount it. */
  registryCredentials?: string;
  /** The Deployment whose preview this build is (its labels.previewOf value): it takes a preview slot. */
  previewOf?: string;
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

/** Where the registry credential is mounted, as a Docker config (`config.json`). */
const registryConfigDir = '/registry-auth';

/** Where the fetch step leaves the archive for the commands step, which unpacks it as its own user. */
const archiveFile = '/sources/sources.tar.gz';

/**
 * The fetch step (python3 - , with MANIFEST_URL and BLOBS_URL): the archive's one layer, named in its
 * manifest, is the gzipped tar of the sources, kept once its digest checks out. With a registry
 * credential it first asks the realm of the registry's challenge for a bearer token (Basic
 * credentials from the Docker config), as any registry client does.
 */
export const fetchProgram = [
  'import hashlib, json, os, re, sys, urllib.error, urllib.parse, urllib.request',
  'manifest_url, blobs_url = os.environ["MANIFEST_URL"], os.environ["BLOBS_URL"]',
  'accept = {"Accept": "application/vnd.oci.image.manifest.v1+json"}',
  'headers = {}',
  'def get(url, extra={}):',
  '    return urllib.request.urlopen(urllib.request.Request(url, headers={**headers, **extra}), timeout=60)',
  'def fail(message):',
  '    print(message); sys.exit(1)',
  `config = "${registryConfigDir}/config.json"`,
  'if os.path.exists(config):',
  '    host = urllib.parse.urlsplit(manifest_url).netloc',
  '    basic = json.load(open(config))["auths"].get(host, {}).get("auth", "")',
  '    try:',
  '        get(manifest_url, accept).close(); challenge = ""',
  '    except urllib.error.HTTPError as error:',
  '        challenge = error.headers.get("WWW-Authenticate", "")',
  '    params = dict(re.findall(r\'(\\w+)="([^"]*)"\', challenge))',
  '    if "realm" in params:',
  '        query = urllib.parse.urlencode({k: v for k, v in params.items() if k in ("service", "scope")})',
  '        try:',
  '            token = json.load(get(params["realm"] + "?" + query, {"Authorization": "Basic " + basic}))["token"]',
  '        except (urllib.error.URLError, KeyError, ValueError) as error:',
  '            fail(f"the registry\'s realm refused the organization\'s credential: {error}")',
  '        headers["Authorization"] = "Bearer " + token',
  'try:',
  '    layer = json.load(get(manifest_url, accept))["layers"][0]["digest"]',
  'except (urllib.error.URLError, KeyError, IndexError, ValueError) as error:',
  '    fail(f"no source archive at {manifest_url}: {error}")',
  'digest = hashlib.sha256()',
  `with get(f"{blobs_url}/{layer}") as blob, open("${archiveFile}", "wb") as out:`,
  '    for chunk in iter(lambda: blob.read(1 << 20), b""):',
  '        digest.update(chunk); out.write(chunk)',
  'if f"sha256:{digest.hexdigest()}" != layer:',
  '    fail(f"the archive read from the registry is not {layer}")',
  'open("/dev/termination-log", "w").write(layer)',
].join('\n');

const commandsScript = [
  'set -eu',
  'cd /workspace',
  `if [ -f ${archiveFile} ]; then tar -xzf ${archiveFile}; fi`,
  'if [ -n "${INSTALL_COMMAND:-}" ]; then sh -c "$INSTALL_COMMAND"; fi',
  'if [ -n "${BUILD_COMMAND:-}" ]; then sh -c "$BUILD_COMMAND"; fi',
].join('\n');

/** How the dockerfile step runs the graph check: in Python's isolated mode, so that the sources are data
 * to it (with the program on stdin, the working directory would come first on its import path, and a
 * tenant's `ast.py` or `json.py` would run in place of the standard library's). */
export const graphCheckInterpreter = ['python3', '-I', '-'] as const;

/**
 * The check of a configuration file's graphs, run by the dockerfile step on the sources
 * (graphCheckInterpreter CONFIG): each graph's file is there, compiles, and defines its name at top level. The user's code is
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

/** Exits 0 when the configuration file (its one argument) names no `base_image` of its own. */
const namesNoBaseImage = 'import json, sys\nsys.exit(1 if json.load(open(sys.argv[1], encoding="utf-8")).get("base_image") else 0)';

/** With AGENT_SERVER_IMAGE, the generated Dockerfile's first FROM (the reference's server) becomes that
 * image, unless the configuration file ($config) names its own `base_image`; then the file's keys are
 * checked against what that server honours (agent-config-check.ts). */
export const agentServerBase = [
  `if [ -n "\${AGENT_SERVER_IMAGE:-}" ] && printf %s "$NO_BASE_IMAGE_CHECK" | ${graphCheckInterpreter.join(' ')} "$config"; then`,
  '  sed -i "0,/^FROM /s|^FROM .*|FROM $AGENT_SERVER_IMAGE|" /generated/Dockerfile',
  '  echo "the agent server: $AGENT_SERVER_IMAGE (threads, runs and the store in the deployment\'s Postgres)"',
  `  printf %s "$AGENT_CONFIG_CHECK" | ${graphCheckInterpreter.join(' ')} "$config" /generated/Dockerfile ||`,
  '    { echo "$config asks for what this agent server does not do"; exit 1; }',
  'fi',
].join('\n');

/** The dockerfile step's settings for agentServerBase. */
export function agentServerBaseEnv(image: string | undefined): V1EnvVar[] {
  return image
    ? [{ name: 'AGENT_SERVER_IMAGE', value: image }, { name: 'NO_BASE_IMAGE_CHECK', value: namesNoBaseImage }, ...agentConfigCheckEnv]
    : [];
}

/**
 * A shell function, `build_context WORKSPACE FILE`: the directory FILE names inside WORKSPACE, resolved
 * (symbolic links followed) and printed only when it is still inside WORKSPACE. The sources and the
 * commands the tenant gives write the workspace, so a directory there may be a link to the builder's
 * own root: the privileged image step resolves the context itself rather than trust a path.
 */
export const buildContextFunction = [
  'build_context() {',
  '  resolved=$(cd "$1/$(cat "$2")" 2>/dev/null && pwd -P) || { echo "the build context $(cat "$2") is not a directory of the sources" >&2; return 1; }',
  '  case "$resolved/" in "$1"/*) echo "$resolved" ;; *) echo "the build context $(cat "$2") leads out of the sources" >&2; return 1 ;; esac',
  '}',
].join('\n');

/**
 * The sources' own Dockerfile wins. Else the configuration file makes one, as the reference's tooling
 * makes it (`langgraph dockerfile`), into /generated, with the file's directory as the build context
 * (/generated/context), once the file's graphs pass the graph check. The path stays inside the sources.
 */
const dockerfileScript = [
  'set -eu',
  buildContextFunction,
  'cd /workspace',
  'if [ -f Dockerfile ]; then echo "building the Dockerfile of the sources"; exit 0; fi',
  'config="${GRAPH_CONFIG_PATH:-langgraph.json}"',
  'case "/$config/" in */../*|//*) echo "graph_config_path must name a file inside the sources: $config"; exit 1;; esac',
  '[ -f "$config" ] || { echo "the sources have no Dockerfile and no configuration file at $config (graph_config_path)"; exit 1; }',
  'command -v langgraph >/dev/null 2>&1 || pip install --quiet --no-cache-dir "langgraph-cli==$LANGGRAPH_CLI_VERSION"',
  'echo "making the Dockerfile from $config with $(langgraph --version 2>/dev/null)"',
  'langgraph dockerfile -c "$config" /generated/Dockerfile >/tmp/dockerfile.log 2>&1 || { tail -n 20 /tmp/dockerfile.log; echo "$config: not a configuration file langgraph-cli accepts"; exit 1; }',
  `printf %s "$GRAPH_CHECK" | ${graphCheckInterpreter.join(' ')} "$config" || { echo "$config names graphs that are not there"; exit 1; }`,
  agentServerBase,
  'dirname "$config" >/generated/context',
  'build_context /workspace /generated/context >/dev/null',
  'cat /generated/Dockerfile',
].join('\n');

/** `buildctl build` of the Dockerfile (the sources' own, or the one made from the configuration file),
 * pushed by tag. buildctl writes its metadata (with the digest) by renaming a file over it, which a
 * mounted termination-log file refuses: it is copied there. */
const builderScript = [
  'set -eu',
  buildContextFunction,
  'context=/workspace dockerfile=/workspace',
  'if [ -f /generated/Dockerfile ]; then context=$(build_context /workspace /generated/context) dockerfile=/generated; fi',
  'buildctl-daemonless.sh build --progress=plain --frontend=dockerfile.v0 \\',
  '  --local=context="$context" --local=dockerfile="$dockerfile" \\',
  '  --output="type=image,name=$IMAGE,push=true" --metadata-file=/tmp/build-metadata.json',
  'cat /tmp/build-metadata.json >/dev/termination-log',
].join('\n');

/** Each step's requests (scaled) and limits; the disk limit bounds what the step writes to the node
 * (its layer, the pod's emptyDirs), so the kubelet evicts a build that would fill the disk. */
export function buildStepResources(sizing: BuildResources, requestScale: number) {
  return {
    requests: scaledRequests(sizing.cpu, sizing.memoryMb, requestScale),
    limits: {
      cpu: cpuQuantity(sizing.cpuLimit),
      memory: memoryQuantity(sizing.memoryLimitMb),
      'ephemeral-storage': `${sizing.diskLimitGi}Gi`,
    },
  };
}

const workspace = [{ name: 'workspace', mountPath: '/workspace' }];
const sourcesVolume = { name: 'sources', mountPath: '/sources' };
const generated = { name: 'generated', mountPath: '/generated' };
const step = { terminationMessagePolicy: 'FallbackToLogsOnError' } as const;

/** The registry credential as a Docker config, for the steps that talk to the registry. */
const registryAuth = { name: 'registry-auth', mountPath: registryConfigDir, readOnly: true };

/** The first step: the sources into /workspace, and what they are (the commit, or the archive's digest). */
function sourcesStep(sources: BuildSources, images: BuildImages, credentials: boolean): V1Container {
  if (sources.kind === 'archive') {
    const env = [
      { name: 'MANIFEST_URL', value: sources.manifestUrl },
      { name: 'BLOBS_URL', value: sources.blobsUrl },
      { name: 'FETCH', value: fetchProgram },
    ];
    const volumeMounts = [sourcesVolume, ...(credentials ? [registryAuth] : [])];
    return {
      name: buildSteps.fetch,
      image: images.agentTools,
      command: ['sh', '-c', 'printf %s "$FETCH" | python3 -'],
      env,
      volumeMounts,
      ...step,
    };
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

function commandsStep(input: BuildJobInput): V1Container {
  const archive = input.sources.kind === 'archive';
  return {
    name: buildSteps.commands,
    image: input.images.tools,
    command: ['sh', '-c', commandsScript],
    env: [
      { name: 'INSTALL_COMMAND', value: input.installCommand ?? '' },
      { name: 'BUILD_COMMAND', value: input.buildCommand ?? '' },
    ],
    volumeMounts: archive ? [...workspace, { ...sourcesVolume, readOnly: true }] : workspace,
    ...step,
  };
}

function dockerfileStep(input: BuildJobInput): V1Container {
  return {
    name: buildSteps.dockerfile,
    image: input.images.agentTools,
    command: ['sh', '-c', dockerfileScript],
    env: [
      { name: 'GRAPH_CONFIG_PATH', value: input.graphConfigPath ?? '' },
      { name: 'LANGGRAPH_CLI_VERSION', value: langgraphCliVersion },
      // The tool reports each use to a third party unless told not to: a tenant's build tells no one.
      { name: 'LANGGRAPH_CLI_NO_ANALYTICS', value: '1' },
      { name: 'GRAPH_CHECK', value: graphCheck },
      ...agentServerBaseEnv(input.images.agentServer),
    ],
    volumeMounts: [...workspace, generated],
    ...step,
  };
}

function imageStep(input: BuildJobInput, image: string): V1Container {
  const credentials = Boolean(input.registryCredentials);
  return {
    name: buildSteps.image,
    image: input.images.builder,
    command: ['sh', '-c', builderScript],
    env: [{ name: 'IMAGE', value: image }, ...(credentials ? [{ name: 'DOCKER_CONFIG', value: registryConfigDir }] : [])],
    volumeMounts: [...workspace, generated, { name: 'buildkit', mountPath: '/var/lib/buildkit' }, ...(credentials ? [registryAuth] : [])],
    ...(input.privileged ? { securityContext: { privileged: true } } : {}),
    ...step,
  };
}

function buildVolumes(input: BuildJobInput): V1Volume[] {
  return [
    { name: 'workspace', emptyDir: {} },
    { name: 'generated', emptyDir: {} },
    ...(input.sources.kind === 'archive' ? [{ name: sourcesVolume.name, emptyDir: {} }] : []),
    { name: 'buildkit', emptyDir: {} },
    ...(input.registryCredentials
      ? [
          {
            name: registryAuth.name,
            secret: { secretName: input.registryCredentials, items: [{ key: '.dockerconfigjson', path: 'config.json' }] },
          },
        ]
      : []),
  ];
}

/**
 * Beside its Deployment a Job is owned by it. Apart (in the build namespace) no ownerReference can
 * cross namespaces: labels say whose build it is, and the Deployment's finalizer removes it.
 */
function buildJobMetadata(input: BuildJobInput): V1ObjectMeta {
  const { owner, revisionName, location } = input;
  const preview: Record<string, string> = input.previewOf ? { [labels.previewOf]: input.previewOf } : {};
  if (!location.apart) return childMetadata(owner, location.name, 'build', { [revisionLabel]: revisionName, ...preview });
  return {
    name: location.name,
    namespace: location.namespace,
    labels: {
      ...selectorLabels(owner, 'build'),
      'app.kubernetes.io/managed-by': 'berth',
      [revisionLabel]: revisionName,
      [buildForNamespaceLabel]: owner.namespace,
      [buildForDeploymentLabel]: owner.uid,
      ...preview,
    },
  };
}

/** Apart, a build cannot mount its organization's Secrets: it gets copies of what it needs, in one
 * Secret of its own named like its Job (and owned by it, so it goes with the Job). */
export interface BuildCredentials {
  /** The organization's registry credential (a Docker config). */
  dockerConfigJson?: string;
  /** The code host's token. */
  token?: string;
}

export function renderBuildSecret(job: { name: string; namespace: string; uid: string }, credentials: BuildCredentials): V1Secret {
  const data: Record<string, string> = {};
  if (credentials.dockerConfigJson) data['.dockerconfigjson'] = credentials.dockerConfigJson;
  if (credentials.token) data.token = Buffer.from(credentials.token).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: job.name,
      namespace: job.namespace,
      labels: { ...managedSecretLabels, 'app.kubernetes.io/component': 'build' },
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: job.name, uid: job.uid, controller: true, blockOwnerDeletion: true }],
    },
    data,
  };
}

export function renderBuildJob(input: BuildJobInput): V1Job {
  const { owner, revisionName, location } = input;
  const image = builtImage(input.registry, owner.namespace, owner.name, revisionName);
  const resources = buildStepResources(input.resources, input.requestScale);
  const sized = (container: V1Container): V1Container => ({ ...container, resources });
  const podLabels = { [revisionLabel]: revisionName, ...(location.apart ? { [buildForNamespaceLabel]: owner.namespace } : {}) };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: buildJobMetadata(input),
    spec: {
      // A build that failed fails again from the same commit: its reason is shown at once.
      backoffLimit: 0,
      activeDeadlineSeconds: 3600,
      template: {
        metadata: { labels: podLabels },
        spec: {
          restartPolicy: 'Never',
          ...(input.placement?.nodeSelector ? { nodeSelector: { ...input.placement.nodeSelector } } : {}),
          ...(input.placement?.tolerations ? { tolerations: input.placement.tolerations.map((toleration) => ({ ...toleration })) } : {}),
          ...(input.serviceAccountName ? { serviceAccountName: input.serviceAccountName } : {}),
          // Nothing in a build talks to the API server; in the build namespace its account may do nothing.
          ...(location.apart ? { automountServiceAccountToken: false } : {}),
          initContainers: [
            ...networkReady(input.networkWaitImage),
            ...[
              sourcesStep(input.sources, input.images, Boolean(input.registryCredentials)),
              commandsStep(input),
              dockerfileStep(input),
            ].map(sized),
          ],
          containers: [imageStep(input, image)].map(sized),
          volumes: buildVolumes(input),
        },
      },
    },
  };
}
