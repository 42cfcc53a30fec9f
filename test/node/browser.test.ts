// A real browser opens a deployment's URL over TLS, as `berth dev` gives it: Debian's Chromium, headless,
// driven by puppeteer-core, loads https://<deployment>.<organization>.localhost:18443/ through the node's
// Gateway (the browser resolves *.localhost to loopback itself) and reads the page the app serves. The
// browser trusts the local apps CA the way a user's would (its NSS store, made here with certutil), and
// nothing is told to ignore certificate errors. Every other name resolves nowhere, so the browser
// reaches nothing beyond this machine. Then the web console (built here, about 1 s) in the same browser:
// sign in with a key, the list live, a deployment's conditions, revisions, requests charted from the
// node's metrics store, log and events, a refused setting, a canary and a secret set, delete after typing its
// name, and no CSP violation; axe-core finds no serious or critical accessibility violation on the
// sign-in form, the list or a deployment's page; signing in and opening a deployment work from the
// keyboard alone. With BERTH_CONSOLE_SCREENSHOTS=<dir> it saves the list and a deployment's page there.
// Cost: about 13 s beyond the deployment's own rollout.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import axe from 'axe-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureApiKey, ensureOrganizationNamespace } from '../../src/facade/api-keys.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from '../support/cluster.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { httpApi, revisionReaches, type Api } from '../support/http-api.ts';
import { appsCaCertificate, exampleImage, gatewayFlags, httpsGet } from './support.ts';
import { metricsStoreUrl } from '../../workbench/node/metrics-store.ts';

let berth: BerthProcess;
let api: Api;
let apiKey: string;
let facadeUrl: string;
/** The web console, built here for this Berth (a parallel `npm run build` may be rewriting dist/). */
const consoleDir = mkdtempSync(join(tmpdir(), 'berth-console-'));
let browser: Browser | undefined;
let namespace: string;
let ca: string;
/** The browser's home: its NSS store, holding the apps CA. */
const home = mkdtempSync(join(tmpdir(), 'berth-browser-'));

beforeAll(async () => {
  const kc = testKubeConfig();
  const operatorNamespace = await useNamespace('berth-browser-op');
  namespace = await useNamespace('browser');
  const org = randomUUID();
  await ensureOrganizationNamespace(kc, namespace, org);
  const root = join(import.meta.dirname, '../..');
  execFileSync(join(root, 'node_modules/.bin/vite'), ['build', '--config', join(root, 'vite.console.config.ts'), '--outDir', consoleDir], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [namespace, operatorNamespace] }),
    ...gatewayFlags({ tls: true }),
    '--concurrency-metrics',
    metricsStoreUrl,
    '--console-dir',
    consoleDir,
  ]);
  await waitReady(berth);
  facadeUrl = `http://127.0.0.1:${await berth.facadePort()}`;
  apiKey = (await ensureApiKey(kc, operatorNamespace, [org])).key;
  api = httpApi(facadeUrl, { 'x-api-key': apiKey });
  const executablePath = execFileSync('bash', [join(import.meta.dirname, '../../scripts/install-browser.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  ca = await appsCaCertificate();
  trustInBrowserStore(ca);
  browser = await puppeteer.launch({
    executablePath,
    headless: true,
    env: { ...process.env, HOME: home },
    args: [
      // Root in a container-less test machine: Chromium's sandbox needs an unprivileged user.
      '--no-sandbox',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE *.localhost, EXCLUDE 127.0.0.1',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  await berth?.stop();
  rmSync(home, { recursive: true, force: true });
  rmSync(consoleDir, { recursive: true, force: true });
});

/** Loads `url`, again when Chromium saw the host's interfaces change (the node adds a pod's veth) and
 * dropped the load, as a user would reload; any other failure fails. */
async function openAsAUserWould(page: Page, url: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
    } catch (error) {
      if (attempt >= 5 || !String(error).includes('ERR_NETWORK_CHANGED')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/** What a user does to trust `berth dev`'s apps CA in Chromium on Linux: add it to the NSS store. */
function trustInBrowserStore(pem: string): void {
  const store = join(home, '.pki/nssdb');
  mkdirSync(store, { recursive: true });
  writeFileSync(join(home, 'apps-ca.crt'), pem);
  execFileSync('certutil', ['-d', `sql:${store}`, '-N', '--empty-password']);
  execFileSync('certutil', ['-d', `sql:${store}`, '-A', '-t', 'C,,', '-n', 'berth-local-apps-ca', '-i', join(home, 'apps-ca.crt')]);
}

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
    expect(url).toBe(`https://site.${namespace}.localhost:18443`);
    await eventually(async () => (await httpsGet(`${url}/`, ca).catch(() => undefined))?.status === 200, 120_000, `${url} answering`);

    const page = await browser!.newPage();
    const response = await openAsAUserWould(page, `${url}/`);
    expect(response?.status()).toBe(200);
    expect(response?.securityDetails()?.issuer()).toBe('berth-local-apps-ca');
    expect(new URL(page.url()).hostname).toBe(`site.${namespace}.localhost`);
    expect(String(await page.evaluate('document.body.innerText')).trim()).toBe('berth-example browser');
    await page.close();
  });
});

/** What axe-core finds serious or critical on the page as it stands: each rule, its impact and where. */
async function accessibilityViolations(page: Page): Promise<string[]> {
  // Evaluated through the browser's debugging protocol, not by the page: the console's CSP stays as it is.
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(axe.source);
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) })))`,
  )) as { id: string; impact: string | null; nodes: string[] }[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.join(', ')}`);
}

describe('the web console in a browser', () => {
  /** With BERTH_CONSOLE_SCREENSHOTS=<dir>, the page as this check sees it, whole, at a laptop's width:
   * the docs' pictures (docs/console/) are made so. */
  const screenshot = async (page: Page, name: string) => {
    const dir = process.env.BERTH_CONSOLE_SCREENSHOTS;
    if (!dir) return;
    await page.setViewport({ width: 1280, height: 800 });
    await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
  };

  it('signs in with a key, lists the deployment live, shows its conditions and revisions, and deletes after its name is typed', async () => {
    const page = await browser!.newPage();
    /** What the page shows in an element (the browser's words: no DOM types in this program). */
    const shown = async (selector: string) => String(await page.evaluate(`document.querySelector(${JSON.stringify(selector)}).innerText`));
    // What the strict CSP refuses (an inline script, an eval, a sink for markup) the page reports here.
    await page.evaluateOnNewDocument(
      `window.cspViolations = []; document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));`,
    );
    const response = await page.goto(`${facadeUrl}/console/`, { waitUntil: 'load' });
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");

    await page.waitForSelector('input[name="api-key"]');
    expect(await accessibilityViolations(page), 'the sign-in form').toEqual([]);

    // A key the API refuses: the form again, with the API's words.
    await page.type('input[name="api-key"]', 'bsk_not-a-key');
    await page.click('button[type="submit"]');
    await page.waitForSelector('.login .error');
    await page.evaluate(`document.querySelector('input[name="api-key"]').value = ''`);
    await page.type('input[name="api-key"]', apiKey);
    await page.click('button[type="submit"]');

    // The deployment of the test above, READY, with its URL.
    await page.waitForSelector('tr[data-deployment="site"] .badge.good');
    expect(await shown('tr[data-deployment="site"]')).toContain(`https://site.${namespace}.localhost:18443`);
    // The key is kept for the tab only: never in a cookie or the address.
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(page.url()).not.toContain(apiKey);
    expect(await page.evaluate(`sessionStorage.getItem('berth.apiKey')`)).toBe(apiKey);

    // Made through the API, it appears without a reload (the watch stream).
    const other = await api.ok('POST', '/v2/deployments', {
      name: 'other',
      source: 'external_docker',
      source_config: { resource_spec: { max_scale: 0 } },
      source_revision_config: { image_uri: await exampleImage('browser') },
    });
    await page.waitForSelector('tr[data-deployment="other"]', { timeout: 30_000 });
    expect(await accessibilityViolations(page), 'the deployments').toEqual([]);
    await screenshot(page, 'deployments');

    // A deployment's page: its conditions and the revision it serves.
    await page.click('tr[data-deployment="site"] a');
    await page.waitForSelector('tr[data-condition="Ready"]');
    expect(await shown('tr[data-condition="Ready"]')).toContain('True');
    expect(await shown('.timeline')).toContain('serving');
    // Its requests over the last hour, charted from the node's metrics store, and no empty state.
    await page.waitForSelector('div.chart[data-chart="per second"] canvas', { timeout: 30_000 });
    expect(await shown('.charts')).toContain('requests');
    // Its serving revision's log (the app's own line) and what Kubernetes and Berth said about it.
    await page.waitForFunction(`document.querySelector('.log')?.innerText.includes('listening on')`, { timeout: 30_000 });
    await page.waitForSelector('tr[data-event]', { timeout: 30_000 });
    expect(await accessibilityViolations(page), "a deployment's page").toEqual([]);
    await screenshot(page, 'deployment');

    // Deleted from its page after typing its name: gone from the API, and from the list.
    await page.goto(`${facadeUrl}/console/deployments/${other.id}`, { waitUntil: 'load' });
    // Its settings: a scale the API refuses shows the API's words; a secret is written, never shown.
    await page.waitForSelector('form[data-setting="scale"]');
    await page.evaluate(`document.querySelector('input[name="min-scale"]').value = ''`);
    await page.type('input[name="min-scale"]', '20000');
    await page.click('form[data-setting="scale"] button[type="submit"]');
    // Either outcome ends the wait, so a failure says which came and what the form sent (it once timed out).
    await page.waitForFunction(
      `(form => form.querySelector('.error') || form.innerText.includes('Saved.'))(document.querySelector('form[data-setting="scale"]'))`,
      { timeout: 30_000 },
    );
    const sent = String(await page.evaluate(`document.querySelector('input[name="min-scale"]').value`));
    expect(await shown('form[data-setting="scale"]'), `the scale form, its fewest replicas ${sent}`).toContain('resource_spec.min_scale');
    expect(await shown('form[data-setting="scale"] .error')).toContain('resource_spec.min_scale');
    // Its canary's steps, saved in place; an image's deployment has no previews to set.
    await page.type('input[name="canary-steps"]', '20, 50');
    await page.type('input[name="canary-pause"]', '30');
    await page.click('form[data-setting="canary"] button[type="submit"]');
    await page.waitForFunction(`document.querySelector('form[data-setting="canary"]')?.innerText.includes('Saved.')`, { timeout: 30_000 });
    expect((await api.ok('GET', `/v2/deployments/${other.id}`)).source_config.canary).toMatchObject({ steps: [20, 50], pause_seconds: 30 });
    expect(await page.$('form[data-setting="previews"]')).toBeNull();
    const token = `value-${randomUUID()}`;
    await page.type('input[name="secret-name"]', 'API_TOKEN');
    await page.type('input[name="secret-value"]', token);
    await page.click('form[data-setting="secret"] button[type="submit"]');
    await page.waitForSelector('li[data-secret="API_TOKEN"]', { timeout: 30_000 });
    const stored = await api.ok('GET', `/v2/deployments/${other.id}`);
    expect(stored.secrets).toEqual([{ name: 'API_TOKEN', value: '********' }]);
    expect(await page.evaluate('document.body.innerText')).not.toContain(token);
    // The secret made a revision: the timeline names the secret added, never its value.
    await page.waitForFunction(`document.querySelector('.timeline')?.innerText.includes('secrets added: API_TOKEN')`, { timeout: 30_000 });
    // From the keyboard: the events above it move the button as they stream in, and a click at where it
    // was can miss it (a load of 10 to 13 once left the page as it was).
    await page.waitForSelector('button[data-action="delete"]');
    await page.focus('button[data-action="delete"]');
    await page.keyboard.press('Enter');
    // The confirmation comes in the page's next render after the click, as a person sees it.
    await page.waitForSelector('input[name="confirm-name"]');
    await page.type('input[name="confirm-name"]', 'other');
    // The button is enabled once the page has read the name typed, as a person sees it.
    await page.waitForSelector('form.confirm button[type="submit"]:not([disabled])');
    // Enter in the field submits the form, as its enabled button does.
    await page.focus('input[name="confirm-name"]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('tr[data-deployment="site"]').catch(async (failure: Error) => {
      throw new Error(`${failure.message}; the page says: ${await shown('body').catch(() => '(nothing)')}`);
    });
    await eventually(async () => (await api.call('GET', `/v2/deployments/${other.id}`)).status === 404, 30_000, 'the deployment gone');
    await page.waitForFunction(`!document.querySelector('tr[data-deployment="other"]')`, { timeout: 30_000 });

    expect(await page.evaluate('window.cspViolations')).toEqual([]);
    await page.close();
  });

  it('is used with the keyboard alone: sign in, open a deployment, read its conditions', async () => {
    const page = await browser!.newPage();
    /** Tabs until the focused element matches `selector` (at most `presses` times). */
    const tabTo = async (selector: string, presses = 40) => {
      for (let i = 0; i < presses; i++) {
        await page.keyboard.press('Tab');
        if (await page.evaluate(`document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`)) return;
      }
      throw new Error(`${presses} presses of Tab never reached ${selector}`);
    };
    await page.goto(`${facadeUrl}/console/`, { waitUntil: 'load' });
    await page.waitForSelector('input[name="api-key"]');
    await tabTo('input[name="api-key"]');
    await page.keyboard.type(apiKey);
    await page.keyboard.press('Enter');
    await page.waitForSelector('tr[data-deployment="site"] a');
    await tabTo('tr[data-deployment="site"] a');
    await page.keyboard.press('Enter');
    await page.waitForSelector('tr[data-condition="Ready"]');
    expect(page.url()).toContain('/console/deployments/');
    await page.close();
  });
});
