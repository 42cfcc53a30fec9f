import { describe, expect, it } from 'vitest';
import { parseAppUrlTemplate, type AppTls, type AppUrlTemplate } from '../../api/index.ts';
import { certificateCondition } from './certificate-status.ts';

const tls: AppTls = {
  issuer: { kind: 'ClusterIssuer', name: 'local-ca' },
  gateway: { namespace: 'kube-system', name: 'berth' },
  appUrls: parseAppUrlTemplate('https://{deployment}.{organization}.localhost:18443/') as AppUrlTemplate,
};
const certificate = (conditions: object[]) => ({
  apiVersion: 'cert-manager.io/v1',
  kind: 'Certificate',
  metadata: {},
  status: { conditions },
});

describe('CertificateReady', () => {
  it('is False, CertificateRequested, before the Certificate exists', () => {
    expect(certificateCondition(tls, 'acme', undefined)).toMatchObject({ status: 'False', reason: 'CertificateRequested' });
  });

  it("is False with cert-manager's reason and message while it is not ready", () => {
    const condition = certificateCondition(
      tls,
      'acme',
      certificate([
        { type: 'Ready', status: 'False', reason: 'DoesNotExist', message: 'Issuing certificate as Secret does not exist' },
      ]) as never,
    );
    expect(condition).toMatchObject({ status: 'False', reason: 'DoesNotExist' });
    expect(condition.message).toContain('kube-system/berth-apps-acme');
    expect(condition.message).toContain('Secret does not exist');
  });

  it('is False, Issuing, while cert-manager has said nothing yet', () => {
    expect(certificateCondition(tls, 'acme', certificate([]) as never)).toMatchObject({ status: 'False', reason: 'Issuing' });
  });

  it('is True, Issued, once ready', () => {
    expect(certificateCondition(tls, 'acme', certificate([{ type: 'Ready', status: 'True', reason: 'Ready' }]) as never)).toMatchObject({
      type: 'CertificateReady',
      status: 'True',
      reason: 'Issued',
    });
  });
});
