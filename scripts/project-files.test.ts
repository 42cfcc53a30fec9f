// `npm test`'s tools read only the project's own files: what `berth dev` leaves in the checkout (.berth/,
// whose container snapshots hold JavaScript of their own), a build's dist/ and the dependencies are
// outside lint, the format check, the type check and the test runner alike, so the README's two
// commands work in either order in one checkout.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ESLint } from 'eslint';
import * as prettier from 'prettier';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const probeDir = join(root, '.berth/project-files-probe');
const leftBehind = ['.berth/project-files-probe/snapshot/lib.js', '.berth/project-files-probe/snapshot/mod.ts'];
const own = ['src/main.ts', 'scripts/generate-crds.ts', 'test/support/global-setup.ts'];

describe('the tools of npm test', () => {
  beforeAll(() => {
    mkdirSync(join(probeDir, 'snapshot'), { recursive: true });
    for (const file of leftBehind) writeFileSync(join(root, file), 'var broken = ;\n');
  });
  afterAll(() => rmSync(probeDir, { recursive: true, force: true }));

  it('lint ignores what a run leaves behind, and reads the sources', async () => {
    const eslint = new ESLint({ cwd: root });
    for (const file of [...leftBehind, 'dist/main.js', 'node_modules/zod/index.js']) {
      expect(await eslint.isPathIgnored(join(root, file)), file).toBe(true);
    }
    for (const file of own) expect(await eslint.isPathIgnored(join(root, file)), file).toBe(false);
  });

  it('the format check ignores it as the CLI does (.gitignore, .prettierignore)', async () => {
    const ignorePath = [join(root, '.gitignore'), join(root, '.prettierignore')];
    for (const file of leftBehind) expect((await prettier.getFileInfo(join(root, file), { ignorePath })).ignored, file).toBe(true);
    for (const file of own) expect((await prettier.getFileInfo(join(root, file), { ignorePath })).ignored, file).toBe(false);
  });

  it('the type check does not include it', () => {
    const config = ts.getParsedCommandLineOfConfigFile(
      join(root, 'tsconfig.json'),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
    );
    const files = config?.fileNames.map((file) => resolve(file)) ?? [];
    expect(files).toEqual(expect.arrayContaining(own.map((file) => join(root, file))));
    expect(files.filter((file) => file.startsWith(join(root, '.berth')))).toEqual([]);
  });
});
