// A real browser opens a deployment's URL: Debian's Chromium, headless, driven by puppeteer-core, loads
// http://<deployment>.<organization>.localhost:18080/ through the node's Gateway (the browser resolves
// *.localhost to loopback itself) and reads the page the app serves. Every other name resolves nowhere,
// so the browser reaches nothing beyond this machine.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureApiKey, ensureOrganizationNamespace } from '../../src/facade/api-keys.ts';
import { nodeAppUrlTemplate, nodeGateway } from '../../src/dev/node/gateway.ts';
import { eventually, testKubeConfig, useNamespace } from '../support/cluster.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { httpApi, revisionReaches, type Api } from '../support/http-api.ts';
import { exampleImage, httpGet } from './support.ts';

let berth: BerthProcess;
let api: Api;
let browser: Browser | undefined;
let namespace: string;

beforeAll(async () => {
  const kc = testKubeConfig();
  const operatorNamespace = await useNamespace('berth-browser-op');
  namespace = await useNamespace('browser');
  const org = randomUUID();
  await ensureOrganizationNamespace(kc, namespace, org);
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [namespace, operatorNamespace] }),
    '--app-url-template',
    nodeAppUrlTemplate,
    '--gateway',
    `${nodeGateway.namespace}/${nodeGateway.name}`,
  ]);
  await waitReady(berth);
  api = httpApi(`http://127.0.0.1:${await berth.facadePort()}`, { 'x-api-key': (await ensureApiKey(kc, operatorNamespace, [org])).key });
  const executablePath = execFileSync('bash', [join(import.meta.dirname, '../../scripts/install-browser.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  browser = await puppeteer.launch({
    executablePath,
    headless: true,
    args: [
      // Root in a container-less test machine: Chromium's sandbox needs an unprivileged user.
      '--no-sandbox',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE *.localhost',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  await berth?.stop();
});

describe("a browser at a deployment's URL", () => {
  it('loads the page the app serves', async () => {
    const created = await api.ok('POST', '/v2/deployments', {
      name: 'site',
      source: 'external_docker',
      source_config: { resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.1, memory_mb: 64 } },
      source_revision_config: { image_uri: await exampleImage('browser') },
    });
    await revisionReaches(api, created.id, created.latest_revision_id, ['DEPLOYED'], { timeoutMs: 120_000 });
    const url: string = (await api.ok('GET', `/v2/deployments/${created.id}`)).url;
    expect(url).toBe(`http://site.${namespace}.localhost:18080`);
    await eventually(async () => (await httpGet(`${url}/`).catch(() => undefined))?.status === 200, 30_000, `${url} answering`);

    const page = await browser!.newPage();
    const response = await page.goto(`${url}/`, { waitUntil: 'load', timeout: 30_000 });
    expect(response?.status()).toBe(200);
    expect(new URL(page.url()).hostname).toBe(`site.${namespace}.localhost`);
    expect(String(await page.evaluate('document.body.innerText')).trim()).toBe('berth-example browser');
    await page.close();
  });
});
