// The example app (examples/app) as an image in a node's registry: one static binary stamped with a
// version, so whoever curls it can tell which image answers. Used by `npm run example:push` and tests.
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildImage, pushImage } from './images.ts';

const appDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../examples/app');
const exampleRepository = 'berth-example';

/** Builds the example app answering `version` and pushes it; returns <registry>/berth-example@sha256:... */
export async function pushExampleApp(crane: string, registry: string, version: string): Promise<string> {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/.test(version)) throw new Error(`version ${JSON.stringify(version)} is not a valid image tag`);
  // Cached by the content of every source file of the app.
  const files = readdirSync(appDir)
    .filter((name) => name.endsWith('.go') || name === 'go.mod')
    .sort()
    .map((name) => join(appDir, name));
  const image = await buildImage('example-app', { files, env: { APP_DIR: appDir, APP_VERSION: version } });
  return pushImage(crane, image, `${registry}/${exampleRepository}:${version}`);
}
