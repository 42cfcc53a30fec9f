// What the image suites share: whether a Docker engine answers, and the image under test, built once
// from the repository's Dockerfile (or named by BERTH_IMAGE to test a prebuilt one).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { GenericContainer, getContainerRuntimeClient, ImageName } from 'testcontainers';

export const repoRoot = join(import.meta.dirname, '../..');
export const localBaseImage = 'berth-base:node24';

/** Undefined when an engine answers, otherwise why not (printed as the reason the suite skips). */
export async function dockerUnavailable(): Promise<string | undefined> {
  try {
    const client = await getContainerRuntimeClient();
    await client.info;
    return undefined;
  } catch (error) {
    return `no Docker engine can be reached (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); run scripts/start-docker.sh`;
  }
}

export interface BuiltImage {
  tag: string;
  base: string;
  buildSeconds?: number;
  sizeBytes: number;
}

/**
 * The base image: BERTH_BASE_IMAGE, else the local one scripts/build-base-image.sh makes when it exists
 * (no registry needed), else the Dockerfile's default (node:24-bookworm-slim, pulled).
 */
async function chooseBase(): Promise<string> {
  if (process.env.BERTH_BASE_IMAGE) return process.env.BERTH_BASE_IMAGE;
  const client = await getContainerRuntimeClient();
  return (await client.image.exists(ImageName.fromString(localBaseImage))) ? localBaseImage : 'node:24-bookworm-slim';
}

/** Removes the tag, if there is one. */
function untag(tag: string): void {
  try {
    execFileSync('docker', ['image', 'rm', '--force', '--no-prune', tag], { stdio: 'ignore' });
  } catch {
    // None yet.
  }
}

export async function imageUnderTest(): Promise<BuiltImage> {
  const client = await getContainerRuntimeClient();
  const prebuilt = process.env.BERTH_IMAGE;
  if (prebuilt) {
    const info = await client.image.inspect(ImageName.fromString(prebuilt));
    return { tag: prebuilt, base: 'prebuilt', sizeBytes: info.Size };
  }
  const tag = 'berth:image-test';
  const base = await chooseBase();
  const started = Date.now();
  // Production dependencies from the host's npm (the build itself reaches no registry).
  execFileSync('bash', [join(repoRoot, 'scripts/prepare-image-dependencies.sh')], { stdio: ['ignore', 'inherit', 'inherit'] });
  // A step that fails (a dist/ older than src/) can end the build with no error from testcontainers:
  // the tag of an earlier run would then be tested as this one's. Untagged first, it must be made anew.
  untag(tag);
  await GenericContainer.fromDockerfile(repoRoot).withBuildArgs({ BASE_IMAGE: base }).build(tag, { deleteOnExit: false });
  if (!(await client.image.exists(ImageName.fromString(tag))))
    throw new Error(`the build of ${tag} made no image: run docker build --build-arg BASE_IMAGE=${base} . to see the failing step`);
  const buildSeconds = (Date.now() - started) / 1000;
  const info = await client.image.inspect(ImageName.fromString(tag));
  return { tag, base, buildSeconds, sizeBytes: info.Size };
}

/** A container with the root filesystem mounted read-only, as the chart runs it. */
export class ReadOnlyRootContainer extends GenericContainer {
  constructor(image: string) {
    super(image);
    this.hostConfig.ReadonlyRootfs = true;
  }
}
