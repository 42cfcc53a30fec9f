import { describe, expect, it } from 'vitest';
import {
  organizationTlsNames,
  parseTlsIssuer,
  renderCustomHostListener,
  renderCustomHostsCertificate,
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

  it('gives custom hosts one certificate naming them all and a listener each, with names only this organization owns', () => {
    const certificate = renderCustomHostsCertificate(config, 'acme', ['b.example.com', 'a.example.com']);
    expect(certificate.metadata.name).toBe('berth-custom-acme');
    expect(certificate.spec.dnsNames).toEqual(['a.example.com', 'b.example.com']);
    const listener = renderCustomHostListener(config, 'acme', 'a.example.com');
    expect(listener).toMatchObject({ hostname: 'a.example.com', port: 18443, protocol: 'HTTPS' });
    expect(listener.tls.certificateRefs[0]!.name).toBe('berth-custom-acme-tls');
    const names = organizationTlsNames('acme');
    expect(listener.name).toBe(names.customListener('a.example.com'));
    expect(names.customListener('a.example.com')).not.toBe(names.customListener('b.example.com'));
    expect(names.ownsListener(listener.name) && names.ownsListener('https-acme')).toBe(true);
    // Another organization whose name begins with this one's owns none of them, nor they its.
    expect(names.ownsListener('https-acme-2') || names.ownsListener(organizationTlsNames('acme-2').customListener('c.example.com'))).toBe(
      false,
    );
  });

  it('listens on 443 when the URL names no port', () => {
    expect(renderOrganizationListener(tls('https://{deployment}.{organization}.apps.example.com/'), 'acme').port).toBe(443);
  });
});
