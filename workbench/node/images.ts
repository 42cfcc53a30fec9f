// The node's images, built here from packages and never pulled: each root filesystem comes from
// scripts/node-images/build-rootfs.sh, is cached by the content that makes it, and is pushed to the
// node's registry with crane (go-containerregistry), which adds the image config. Pods then pull
// them by digest, as they would from any registry.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runBuildProcess } from '../build-process.ts';
import { berthCacheDir } from '../cache-dir.ts';
import { processAlive } from './host.ts';
import { mountTable } from './mount-propagation.ts';

const run = promisify(execFile);
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const buildScript = join(repoRoot, 'scripts/node-images/build-rootfs.sh');

/** The images a node needs, and the example app. */
export type ImageName =
  | 'pause'
  | 'coredns'
  | 'postgres'
  | 'redis'
  | 'example-app'
  | 'git'
  | 'build-tools'
  | 'builder'
  | 'source-controller'
  | 'kustomize-controller'
  | 'keda-http-add-on'
  | 'agent-server'
  | 'durable-agent-server'
  | 'cnpg-postgres'
  | 'cnpg-operator'
  | 'volume-helper'
  | 'barman-cloud-sidecar';

/** The Debian packages an image is made of: a new package version makes a new image. */
const packagesOf: Record<ImageName, string[]> = {
  pause: ['gcc', 'libc6-dev'],
  coredns: [],
  postgres: ['postgresql-15', 'postgresql-client-15', 'gosu', 'busybox-static', 'libc6'],
  redis: ['redis-server', 'redis-tools', 'busybox-static', 'libc6'],
  'example-app': [],
  git: ['git', 'libcurl3-gnutls', 'ca-certificates', 'busybox-static'],
  'build-tools': ['busybox-static'],
  builder: ['runc', 'libseccomp2', 'busybox-static'],
  'source-controller': ['ca-certificates'],
  'kustomize-controller': ['ca-certificates'],
  'keda-http-add-on': [],
  'agent-server': [],
  'durable-agent-server': [],
  'cnpg-postgres': ['postgresql-15', 'postgresql-client-15', 'busybox-static', 'libc6'],
  'cnpg-operator': [],
  'volume-helper': ['busybox-static'],
  'barman-cloud-sidecar': ['python3.11', 'libpython3.11-stdlib'],
};

/** The agent server images' recipe folders: the reference's in-memory stand-in, and the durable server
 * Berth builds agents on (product code: its adapter and its patches to aegra). */
const agentServerRecipes: Partial<Record<ImageName, string>> = {
  'agent-server': 'scripts/agent-server/inmem',
  'durable-agent-server': 'src/agent-server',
};

/** Every file under a folder, in a stable order; not Python's byte-code caches, which a test that
 * imports the recipe's modules leaves in a checkout and a clone lacks (the key would differ). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.parentPath.split(sep).includes('__pycache__'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/**
 * How an image's root filesystem is made: the script and its arguments, given the output folder, and the
 * files whose content makes the image. The agent servers' base images are Debian roots with PyPI's wheels
 * (scripts/agent-server), not copies of host packages.
 */
function recipeOf(name: ImageName): { command: (outdir: string) => string[]; files: string[] } {
  const recipe = agentServerRecipes[name];
  if (recipe) {
    const tools = join(repoRoot, 'scripts/agent-server');
    const script = join(tools, 'build-rootfs.sh');
    const folder = join(repoRoot, recipe);
    return {
      command: (outdir) => [script, folder, outdir],
      files: [script, join(tools, 'uv-from-wheel.py'), ...filesUnder(folder).filter((file) => !file.endsWith('.test.ts'))],
    };
  }
  return { command: (outdir) => [buildScript, name, outdir], files: [buildScript, join(repoRoot, 'scripts/node-images/pause.c')] };
}

interface ImageConfig {
  entrypoint?: string[];
  cmd?: string[];
  user?: string;
  env?: string[];
  exposedPorts?: string[];
  workingDir?: string;
}

export interface BuiltImage {
  name: ImageName;
  rootfsTar: string;
  config: ImageConfig;
  /** The content key: equal keys make equal images. */
  key: string;
}

interface BuildInputs {
  /** Files whose content goes into the image besides the build script (binaries, sources). */
  files?: string[];
  /** Environment for the build script (COREDNS_BIN, APP_VERSION, ...): part of the key. */
  env?: Record<string, string>;
}

function imageCacheDir(): string {
  return join(berthCacheDir(), 'images');
}

async function packageVersions(packages: string[]): Promise<string> {
  if (packages.length === 0) return '';
  const { stdout } = await run('dpkg-query', ['-W', '-f', '${Package}=${Version}\\n', ...packages], { encoding: 'utf8' });
  return stdout;
}

/** The cache key of an image: its name, the content of its files, its build environment, its packages. */
export async function contentKey(name: ImageName, inputs: BuildInputs): Promise<string> {
  const hash = createHash('sha256').update(name);
  for (const file of [...recipeOf(name).files, ...(inputs.files ?? [])]) {
    // Its name, not its path: a clone elsewhere, or another cache directory, makes the same key.
    hash.update(basename(file)).update(existsSync(file) ? readFileSync(file) : '');
  }
  hash.update(JSON.stringify(inputs.env ?? {})).update(await packageVersions(packagesOf[name]));
  return hash.digest('hex').slice(0, 16);
}

/** Removes the unfinished builds of Berth processes that died (a build ends with its Berth:
 * ../build-process.ts), once nothing is mounted under them any more. */
function removeAbandonedBuilds(imageDir: string): void {
  if (!existsSync(imageDir)) return;
  const mounts = mountTable().map((mount) => mount.mountPoint);
  for (const entry of readdirSync(imageDir)) {
    const pid = /\.partial\.(\d+)$/.exec(entry)?.[1];
    const path = join(imageDir, entry);
    if (!pid || processAlive(Number(pid)) || mounts.some((mount) => mount.startsWith(`${path}/`))) continue;
    rmSync(path, { recursive: true, force: true });
  }
}

/** Builds an image's root filesystem, or finds it in the cache. */
export async function buildImage(name: ImageName, inputs: BuildInputs = {}, log: (m: string) => void = () => {}): Promise<BuiltImage> {
  const key = await contentKey(name, inputs);
  const dir = join(imageCacheDir(), name, key);
  if (!existsSync(join(dir, '.complete'))) {
    log(`building the ${name} image from packages`);
    removeAbandonedBuilds(dirname(dir));
    const partial = `${dir}.partial.${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    try {
      await runBuildProcess(['bash', ...recipeOf(name).command(partial)], { env: { ...process.env, ...inputs.env } });
      writeFileSync(join(partial, '.complete'), '');
      rmSync(dir, { recursive: true, force: true });
      renameSync(partial, dir);
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      throw error;
    }
  }
  const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as ImageConfig;
  return { name, rootfsTar: join(dir, 'rootfs.tar'), config, key };
}

function mutateFlags(config: ImageConfig): string[] {
  // Every image is built on this machine for it; a builder needs the platform of a base image.
  const flags: string[] = [`--set-platform=linux/${process.arch === 'x64' ? 'amd64' : process.arch}`];
  if (config.entrypoint) flags.push(`--entrypoint=${config.entrypoint.join(',')}`);
  if (config.cmd) flags.push(`--cmd=${config.cmd.join(',')}`);
  if (config.user) flags.push(`--user=${config.user}`);
  if (config.workingDir) flags.push(`--workdir=${config.workingDir}`);
  for (const env of config.env ?? []) flags.push(`--env=${env}`);
  for (const port of config.exposedPorts ?? []) flags.push(`--exposed-ports=${port}`);
  return flags;
}

/** Pushes a built image as <registry>/<repository>:<tag> and returns its pinned reference
 * (<registry>/<repository>@sha256:...). A tag that already holds this content is not pushed again. */
export async function pushImage(crane: string, image: BuiltImage, reference: string): Promise<string> {
  const repository = reference.replace(/:[^:/]+$/, '');
  const pushedFile = join(dirname(image.rootfsTar), 'pushed.json');
  const pushed = existsSync(pushedFile) ? (JSON.parse(readFileSync(pushedFile, 'utf8')) as Record<string, string>) : {};
  const flags = mutateFlags(image.config);
  // What was pushed depends on the image config too: a change to it pushes again.
  const pushKey = `${reference} ${flags.join(' ')}`;
  const known = pushed[pushKey];
  if (known) {
    const current = await run(crane, ['digest', '--insecure', reference], { encoding: 'utf8' }).then(
      (r) => r.stdout.trim(),
      () => '',
    );
    if (current === known) return `${repository}@${known}`;
  }
  const staging = `${reference}-layer`;
  await run(crane, ['append', '--insecure', '--oci-empty-base', '-f', image.rootfsTar, '-t', staging]);
  const { stdout } = await run(crane, ['mutate', '--insecure', staging, ...flags, '-t', reference], { encoding: 'utf8' });
  const digest =
    /sha256:[0-9a-f]{64}/.exec(stdout)?.[0] ?? (await run(crane, ['digest', '--insecure', reference], { encoding: 'utf8' })).stdout.trim();
  writeFileSync(pushedFile, JSON.stringify({ ...pushed, [pushKey]: digest }));
  return `${repository}@${digest}`;
}
