// Writes crds/berth.dev_<plural>.yaml from the zod schemas in src/api. The files are never edited by
// hand: change the schema, run `npm run generate`, commit both.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { crdFileName, crdSources, renderCrd } from '../src/api/crd.ts';
import { renderCrdYaml } from '../src/api/crd-yaml.ts';

const dir = resolve(import.meta.dirname, '../crds');
mkdirSync(dir, { recursive: true });
const written = new Set<string>();
for (const source of crdSources) {
  const file = crdFileName(source.descriptor);
  writeFileSync(join(dir, file), renderCrdYaml(renderCrd(source)));
  written.add(file);
}
// A kind that was removed must not leave its CRD behind.
for (const file of readdirSync(dir)) if (file.endsWith('.yaml') && !written.has(file)) rmSync(join(dir, file));
console.error(`wrote ${[...written].map((f) => `crds/${f}`).join(', ')}`);
