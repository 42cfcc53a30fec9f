// A facade over a real socket against the test control plane: two organizations (each a labelled
// namespace), API keys minted for them, and a `call` helper that speaks plain HTTP.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll } from 'vitest';
import { labels, type HostPolicy } from '../../src/api/index.ts';
import { ensureApiKey } from '../../src/facade/api-keys.ts';
import type { CodeHostAccess } from '../../src/facade/ports.ts';
import { startFacade, type InformerSource, type RunningFacade } from '../../src/facade/start.ts';
import { testKubeConfig, useNamespace } from './cluster.ts';

export interface Organization {
  id: string;
  namespace: string;
  /** An API key that reaches this organization only. */
  key: string;
}

export interface TestFacade {
  facade: RunningFacade;
  url: string;
  org: Organization;
  otherOrg: Organization;
  /** A key that reaches both organizations (org first). */
  sharedKey: string;
  /** Every line the facade logged. */
  logLines: string[];
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
}

export interface CallOptions {
  /** Sent as JSON unless `raw` is given. */
  body?: unknown;
  /** Sent as it is. */
  raw?: string | Buffer;
  /** Default: the organization's key; null sends none. */
  key?: string | null;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  // Response bodies are checked field by field by the tests.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
  headers: Headers;
}

export async function startTestFacade(
  options: {
    observeTimeoutMs?: number;
    repositories?: CodeHostAccess;
    manager?: InformerSource;
    hostPolicy?: HostPolicy;
    codeHostOrigins?: string[];
  } = {},
): Promise<TestFacade> {
  const kubeConfig = testKubeConfig();
  const operatorNamespace = await useNamespace('berth-op');
  const organization = async (): Promise<Organization> => {
    const id = randomUUID();
    const namespace = await useNamespace('org', { [labels.organizationId]: id });
    const { key } = await ensureApiKey(kubeConfig, operatorNamespace, [id]);
    return { id, namespace, key };
  };
  const org = await organization();
  const otherOrg = await organization();
  const { key: sharedKey } = await ensureApiKey(kubeConfig, operatorNamespace, [org.id, otherOrg.id]);

  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const facade = await startFacade({
    kubeConfig,
    operatorNamespace,
    port: 0,
    host: '127.0.0.1',
    logger: pino({ level: 'debug' }, sink),
    observeTimeoutMs: options.observeTimeoutMs ?? 10_000,
    ...(options.repositories ? { repositories: options.repositories } : {}),
    ...(options.manager ? { manager: options.manager } : {}),
    ...(options.hostPolicy ? { hostPolicy: options.hostPolicy } : {}),
    ...(options.codeHostOrigins ? { codeHostOrigins: options.codeHostOrigins } : {}),
  });
  afterAll(() => facade.close());

  const call = async (method: string, path: string, callOptions: CallOptions = {}): Promise<CallResult> => {
    const headers: Record<string, string> = { ...callOptions.headers };
    const key = callOptions.key === undefined ? org.key : callOptions.key;
    if (key !== null) headers['x-api-key'] = key;
    let body: string | Buffer | undefined;
    if (callOptions.raw !== undefined) body = callOptions.raw;
    else if (callOptions.body !== undefined) body = JSON.stringify(callOptions.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
    const response = await fetch(`${facade.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed, text, headers: response.headers };
  };

  return { facade, url: facade.url, org, otherOrg, sharedKey, logLines, call };
}
