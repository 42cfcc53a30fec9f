import { describe, expect, it } from 'vitest';
import {
  organizationTlsNames,
  parseTlsIssuer,
  renderGatewayListenerPatch,
  renderOrganizationCertificate,
  renderOrganizationListener,
  type AppTls,
} from './app-tls.ts';
import { parseAppUrlTemplate, type AppUrlTemplate } from './app-urls.ts';

const tls = (template: string): AppTls => ({
  issuer: { kind: 'ClusterIssuer', name: 'local-ca' },
  gateway: { namespace: 'kube-system', name: 'berth' },
  appUrls: parseAppUrlTemplate(template) as AppUrlTemplate,
});

describe('parseTlsIssuer', () => {
  it('takes ClusterIssuer/<name> and Issuer/<name>', () => {
    expect(parseTlsIssuer('ClusterIssuer/letsencrypt')).toEqual({ kind: 'ClusterIssuer', name: 'letsencrypt' });
    expect(parseTlsIssuer('Issuer/local.ca')).toEqual({ kind: 'Issuer', name: 'local.ca' });
  });
  it('refuses anything else, saying what it expects', () => {
    for (const text of ['letsencrypt', 'Certificate/x', 'ClusterIssuer/', 'ClusterIssuer/Upper', 'Issuer/a/b'])
      expect(parseTlsIssuer(text)).toEqual({ error: expect.stringContaining('ClusterIssuer/<name> or Issuer/<name>') });
  });
});

describe("an organization's TLS objects", () => {
  const config = tls('https://{deployment}.{organization}.localhost:18443/');

  it('is one wildcard Certificate in the Gateway namespace, from the issuer', () => {
    const certificate = renderOrganizationCertificate(config, 'acme');
    expect(certificate.metadata).toMatchObject({ name: 'berth-apps-acme', namespace: 'kube-system' });
    expect(certificate.spec).toMatchObject({
      secretName: 'berth-apps-acme-tls',
      dnsNames: ['*.acme.localhost'],
      issuerRef: { group: 'cert-manager.io', kind: 'ClusterIssuer', name: 'local-ca' },
    });
  });

  it("is an HTTPS listener of that host on the URL's port, admitting the organization's routes only", () => {
    const listener = renderOrganizationListener(config, 'acme');
    expect(listener).toMatchObject({ name: 'https-acme', hostname: '*.acme.localhost', port: 18443, protocol: 'HTTPS' });
    expect(listener.tls.certificateRefs).toEqual([{ group: '', kind: 'Secret', name: organizationTlsNames('acme').secret }]);
    expect(listener.allowedRoutes.namespaces).toEqual({
      from: 'Selector',
      selector: { matchLabels: { 'kubernetes.io/metadata.name': 'acme' } },
    });
  });

  it('listens on 443 when the URL names no port', () => {
    expect(renderOrganizationListener(tls('https://{deployment}.{organization}.apps.example.com/'), 'acme').port).toBe(443);
  });

  it('is applied to the Gateway as that listener alone, or none to remove it', () => {
    const listener = renderOrganizationListener(config, 'acme');
    expect(renderGatewayListenerPatch(config, listener).spec.listeners).toEqual([listener]);
    expect(renderGatewayListenerPatch(config, undefined)).toMatchObject({
      kind: 'Gateway',
      metadata: { name: 'berth', namespace: 'kube-system' },
      spec: { listeners: [] },
    });
  });
});
