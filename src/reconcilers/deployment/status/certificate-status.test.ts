import { describe, expect, it } from 'vitest';
import { parseAppUrlTemplate, type AppTls, type AppUrlTemplate } from '../../../api/index.ts';
import { certificateCondition, type ServingCertificate } from './certificate-status.ts';

const tls: AppTls = {
  issuer: { kind: 'Issuer', name: 'local-ca' },
  gateway: { namespace: 'kube-system', name: 'berth' },
  appUrls: parseAppUrlTemplate('https://{deployment}.{organization}.localhost:18443/') as AppUrlTemplate,
};
const certificate = (conditions: object[]) =>
  ({ apiVersion: 'cert-manager.io/v1', kind: 'Certificate', metadata: {}, status: { conditions } }) as ServingCertificate['object'];
const ready = certificate([{ type: 'Ready', status: 'True', reason: 'Ready' }]);
const wildcard = (object: ServingCertificate['object']): ServingCertificate => ({
  name: 'berth-apps-acme',
  for: '*.acme.localhost',
  object,
});
const custom = (object: ServingCertificate['object']): ServingCertificate => ({
  name: 'berth-custom-acme',
  for: 'shop.example.com',
  object,
});

describe('CertificateReady', () => {
  it('is False, CertificateRequested, before the Certificate exists, naming what it is for', () => {
    const condition = certificateCondition(tls, [wildcard(undefined)]);
    expect(condition).toMatchObject({ status: 'False', reason: 'CertificateRequested' });
    expect(condition.message).toContain('*.acme.localhost');
  });

  it("is False with cert-manager's reason and message while it is not ready", () => {
    const condition = certificateCondition(tls, [
      wildcard(
        certificate([{ type: 'Ready', status: 'False', reason: 'DoesNotExist', message: 'Issuing certificate as Secret does not exist' }]),
      ),
    ]);
    expect(condition).toMatchObject({ status: 'False', reason: 'DoesNotExist' });
    expect(condition.message).toContain('kube-system/berth-apps-acme');
    expect(condition.message).toContain('Secret does not exist');
  });

  it('is False, Issuing, while cert-manager has said nothing yet', () => {
    expect(certificateCondition(tls, [wildcard(certificate([]))])).toMatchObject({ status: 'False', reason: 'Issuing' });
  });

  it('is True, Issued, once every certificate is ready', () => {
    expect(certificateCondition(tls, [wildcard(ready), custom(ready)])).toMatchObject({
      type: 'CertificateReady',
      status: 'True',
      reason: 'Issued',
    });
  });

  it("waits for the custom host's certificate too", () => {
    const condition = certificateCondition(tls, [wildcard(ready), custom(undefined)]);
    expect(condition).toMatchObject({ status: 'False', reason: 'CertificateRequested' });
    expect(condition.message).toContain('shop.example.com');
  });
});
