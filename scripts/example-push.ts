// npm run example:push [-- --version V] [--registry HOST:PORT]: builds the example app (examples/app)
// answering V on GET /, pushes it to the dev node's registry (.berth/dev/registry, written by
// `npm start`), and prints the pinned reference on its last line.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pushExampleApp } from '../workbench/node/example-app.ts';
import { nodeBinaries } from '../workbench/node/node.ts';

const { values } = parseArgs({
  options: {
    version: { type: 'string', default: 'v1' },
    registry: { type: 'string' },
    'data-dir': { type: 'string', default: '.berth/dev' },
  },
});
const registryFile = join(values['data-dir'], 'registry');
const registry = values.registry ?? (existsSync(registryFile) ? readFileSync(registryFile, 'utf8').trim() : undefined);
if (!registry) {
  process.stderr.write(`no registry: start Berth with \`npm start\` (it writes ${registryFile}) or pass --registry HOST:PORT\n`);
  process.exit(2);
}
try {
  const reference = await pushExampleApp(join(nodeBinaries(), 'crane'), registry, values.version);
  process.stderr.write(`pushed the example app answering ${values.version} to ${registry}\n`);
  process.stdout.write(`${reference}\n`);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
}
