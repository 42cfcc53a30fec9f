// The CodeHostIntegration controller against the real API server and a GitHub that speaks the real
// wire format: status, Events and re-verification as a user sees them with kubectl.
import { generateKeyPairSync } from 'node:crypto';
import { Writable } from 'node:stream';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeHostIntegrationKind, group, version, type CodeHostIntegration, type Condition } from '../src/api/index.ts';
import { registerCodeHostIntegrationController } from '../src/reconcilers/codehost-integration/index.ts';
import { createLogger, Manager } from '../src/runtime/index.ts';
import { eventually } from '../workbench/support/poll.ts';
import { kubectl, testKubeConfig, useNamespace } from './support/cluster.ts';
import { FakeGitHub } from './support/fake-github.ts';
import { sharedSecretLabels } from '../workbench/support/shared-secrets.ts';
import { secretNotReadableMessage } from '../src/api/readable-secrets.ts';

const kc = testKubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const custom = kc.makeApiClient(CustomObjectsApi);
const plural = codeHostIntegrationKind.plural;

const logLines: string[] = [];
const logSink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});

let namespace: string;
let github: FakeGitHub;
let manager: Manager;
/** Every credential handed out in this file: none may show up in a status, an Event or a log line. */
const credentials: string[] = [];

beforeAll(async () => {
  namespace = await useNamespace('codehost');
  github = await FakeGitHub.start();
  manager = new Manager({
    kubeConfig: kc,
    healthPort: false,
    logger: createLogger({ level: 'debug', destination: logSink }),
    eventAggregateWindowMs: 0,
  });
  // A short re-verification period stands in for the default 10 minutes: a revoked token must be
  // noticed without any change in the cluster.
  // The installation allows the stand-in's origin (--code-host-origins), and no other.
  registerCodeHostIntegrationController(manager, {
    namespaces: [namespace],
    origins: [github.url],
    verifyIntervalMs: 1000,
    unreachableRetryMs: 500,
  });
  await manager.start();
});

afterAll(async () => {
  await manager?.stop();
  await github?.stop();
});

async function createTokenSecret(name: string, token: string): Promise<void> {
  credentials.push(token);
  await core.createNamespacedSecret({ namespace, body: { metadata: { name, labels: sharedSecretLabels }, stringData: { token } } });
}

async function createIntegration(name: string, secretName: string, baseUrl = github.url): Promise<void> {
  await custom.createNamespacedCustomObject({
    group,
    version,
    namespace,
    plural,
    body: {
      apiVersion: `${group}/${version}`,
      kind: 'CodeHostIntegration',
      metadata: { name },
      spec: { baseUrl, credentialsSecretRef: { name: secretName } },
    },
  });
}

async function readIntegration(name: string): Promise<CodeHostIntegration> {
  return (await custom.getNamespacedCustomObject({ group, version, namespace, plural, name })) as CodeHostIntegration;
}

function ready(integration: CodeHostIntegration): Condition | undefined {
  return integration.status?.conditions?.find((c) => c.type === 'Ready');
}

async function waitForReady(name: string, expected: Partial<Condition>, what: string): Promise<CodeHostIntegration> {
  return eventually(
    async () => {
      const integration = await readIntegration(name);
      const condition = ready(integration);
      return condition && Object.entries(expected).every(([key, value]) => condition[key as keyof Condition] === value)
        ? integration
        : undefined;
    },
    30_000,
    what,
  );
}

async function eventsOf(name: string) {
  const list = await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` });
  return list.items;
}

describe('a CodeHostIntegration with a personal token', () => {
  it('becomes Ready with the account, says so in an Event, and kubectl wait sees it', async () => {
    const alice = github.account('alice');
    github.addRepositories(alice, 5);
    await createTokenSecret('alice-token', github.issuePersonalToken(alice));
    await createIntegration('alice', 'alice-token');

    const integration = await waitForReady('alice', { status: 'True', reason: 'CredentialsVerified' }, 'alice to be Ready');
    expect(integration.status).toMatchObject({ account: 'alice', observedGeneration: 1 });
    expect(ready(integration)?.message).toBe('GitHub accepted the credentials; they act as user alice');
    const waited = await kubectl(['wait', '-n', namespace, '--for=condition=Ready', `${plural}/alice`, '--timeout=10s']);
    expect(waited.code).toBe(0);
    await eventually(
      async () => (await eventsOf('alice')).some((e) => e.reason === 'CredentialsVerified' && e.type === 'Normal'),
      10_000,
      'a Verified Event',
    );
  });

  it('writes nothing while the answer stays the same', async () => {
    const before = await readIntegration('alice');
    const verifications = () => github.requests.filter((r) => r.path === '/user' && r.credential === credentials[0]).length;
    const seen = verifications();
    await eventually(async () => verifications() >= seen + 3, 20_000, 'three more verifications');
    const after = await readIntegration('alice');
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('goes Ready=False with GitHub’s message once the token is revoked, and Ready again after rotation', async () => {
    const bob = github.account('bob');
    const first = github.issuePersonalToken(bob);
    await createTokenSecret('bob-token', first);
    await createIntegration('bob', 'bob-token');
    await waitForReady('bob', { status: 'True' }, 'bob to be Ready');

    github.revokeToken(first);
    const refused = await waitForReady('bob', { status: 'False', reason: 'CredentialsRejected' }, 'bob to be refused');
    expect(ready(refused)?.message).toBe('GitHub rejected the credentials: Bad credentials');
    expect(refused.status?.account).toBeUndefined();
    expect(refused.status?.conditions?.find((c) => c.type === 'Stalled')?.status).toBe('False');
    await eventually(
      async () =>
        (await eventsOf('bob')).find(
          (e) =>
            e.type === 'Warning' && e.reason === 'CredentialsRejected' && e.message === 'GitHub rejected the credentials: Bad credentials',
        ),
      10_000,
      'a Warning Event with GitHub’s message',
    );

    const second = github.issuePersonalToken(bob);
    credentials.push(second);
    await core.replaceNamespacedSecret({
      namespace,
      name: 'bob-token',
      body: { metadata: { name: 'bob-token', labels: sharedSecretLabels }, stringData: { token: second } },
    });
    const recovered = await waitForReady('bob', { status: 'True' }, 'bob to be Ready again');
    expect(recovered.status?.account).toBe('bob');
  });
});

describe('a CodeHostIntegration whose Secret is missing or malformed', () => {
  it('is Stalled naming the Secret, and becomes Ready as soon as the Secret appears', async () => {
    await createIntegration('late', 'late-token');
    const stalled = await waitForReady('late', { status: 'False', reason: 'CredentialsSecretInvalid' }, 'late to be Stalled');
    expect(ready(stalled)?.message).toBe(secretNotReadableMessage('late-token', namespace));
    expect(stalled.status?.conditions?.find((c) => c.type === 'Stalled')?.status).toBe('True');

    // A stalled integration is not re-verified on a timer: only the Secret's creation can wake it.
    const carol = github.account('carol');
    await createTokenSecret('late-token', github.issuePersonalToken(carol));
    const integration = await waitForReady('late', { status: 'True' }, 'late to be Ready once its Secret exists');
    expect(integration.status?.account).toBe('carol');

    await core.deleteNamespacedSecret({ namespace, name: 'late-token' });
    const orphaned = await waitForReady(
      'late',
      { status: 'False', reason: 'CredentialsSecretInvalid' },
      'late to be Stalled once its Secret is gone',
    );
    expect(orphaned.status?.account).toBeUndefined();
  });

  it('names the missing key and never the values it has', async () => {
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    credentials.push(privateKey);
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'half-app', labels: sharedSecretLabels }, stringData: { appId: '777', privateKey } },
    });
    await createIntegration('half', 'half-app');
    const stalled = await waitForReady('half', { reason: 'CredentialsSecretInvalid' }, 'half to be Stalled');
    expect(ready(stalled)?.message).toBe('Secret "half-app" is missing key "installationId" for a GitHub App');
  });
});

describe('a CodeHostIntegration with GitHub App keys', () => {
  it('verifies through an installation token and names the account the App is installed on', async () => {
    const keys = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    credentials.push(keys.privateKey);
    const org = github.account('acme', 'Organization');
    github.registerApp({ id: 9001, slug: 'berth', owner: org, publicKey: keys.publicKey });
    const installationId = github.install(9001, org, github.addRepositories(org, 3));
    await core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: 'acme-app', labels: sharedSecretLabels },
        stringData: { appId: '9001', privateKey: keys.privateKey, installationId: String(installationId) },
      },
    });
    await createIntegration('acme', 'acme-app');

    const integration = await waitForReady('acme', { status: 'True' }, 'acme to be Ready');
    expect(integration.status?.account).toBe('acme');
    expect(ready(integration)?.message).toBe('GitHub accepted the credentials; they act as the App installation on acme');
    const tokens = github.installationTokens(installationId);
    credentials.push(...tokens);
    expect(tokens.length).toBeGreaterThan(0);
    expect(github.requests.some((r) => r.path.startsWith('/installation/repositories') && tokens.includes(r.credential ?? ''))).toBe(true);
  });
});

describe('a rate-limited CodeHostIntegration', () => {
  it('goes Ready=False while limited, keeps its account, and is Ready again after the reset', async () => {
    const dana = github.account('dana');
    await createTokenSecret('dana-token', github.issuePersonalToken(dana));
    await createIntegration('dana', 'dana-token');
    await waitForReady('dana', { status: 'True' }, 'dana to be Ready');

    github.simulateRateLimit({ status: 403, resetAt: new Date(Date.now() + 2000) });
    try {
      const limited = await waitForReady('dana', { status: 'False', reason: 'RateLimited' }, 'dana to be rate-limited');
      expect(limited.status?.account).toBe('dana');
      expect(limited.status?.conditions?.find((c) => c.type === 'Reconciling')?.status).toBe('True');
    } finally {
      github.simulateRateLimit(undefined);
    }
    await waitForReady('dana', { status: 'True' }, 'dana to be Ready after the reset');
  });
});

describe('secrets stay secret', () => {
  it('no credential appears in any status, Event or log line', async () => {
    const statuses = JSON.stringify(await custom.listNamespacedCustomObject({ group, version, namespace, plural }));
    const events = JSON.stringify((await core.listNamespacedEvent({ namespace })).items);
    await manager.recorder.flush();
    const logs = logLines.join('\n');
    expect(logs).toContain('code-host integration changed state');
    // Installation tokens and App JWTs were minted at runtime: they are credentials too.
    credentials.push(...github.requests.map((r) => r.credential ?? '').filter(Boolean));
    const needles = credentials.flatMap((value) => value.split('\n')).filter((line) => line.length >= 16 && !line.startsWith('-----'));
    expect(needles.length).toBeGreaterThan(5);
    for (const needle of needles) {
      expect(statuses).not.toContain(needle);
      expect(events).not.toContain(needle);
      expect(logs).not.toContain(needle);
    }
  });
});

describe('a CodeHostIntegration on a host the installation does not allow', () => {
  it('stalls without a request, its token read by nobody, for cloud metadata, a cluster Service or a trailing #', async () => {
    const mallory = github.account('mallory');
    const token = github.issuePersonalToken(mallory);
    await createTokenSecret('mallory-token', token);
    const before = github.requests.length;
    const cases = {
      metadata: 'http://169.254.169.254/latest/meta-data',
      service: 'http://kubernetes.default.svc/api',
      fragment: `${github.url}/api#`,
    };
    for (const [name, baseUrl] of Object.entries(cases)) await createIntegration(`not-allowed-${name}`, 'mallory-token', baseUrl);
    for (const name of Object.keys(cases)) {
      const stalled = await eventually(
        async () => {
          const integration = await readIntegration(`not-allowed-${name}`);
          return integration.status?.conditions?.find((c) => c.type === 'Stalled' && c.status === 'True') ? integration : undefined;
        },
        30_000,
        `${name} Stalled`,
      );
      expect(stalled.status?.conditions?.find((c) => c.type === 'Stalled')?.reason).toBe('BaseUrlNotAllowed');
      expect(stalled.status?.account).toBeUndefined();
    }
    // Requests are told apart by the token they carry: an earlier test's integrations may still be
    // verified again meanwhile, with tokens of their own.
    expect(github.requests.slice(before).filter((request) => request.credential === token)).toEqual([]);
  });
});
