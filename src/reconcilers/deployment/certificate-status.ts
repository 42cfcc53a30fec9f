// What a Deployment says about the certificate its https:// URL is served with: its organization's
// wildcard Certificate (src/api/app-tls.ts), as cert-manager reports it. A CertificateReady condition:
// True once issued, False with cert-manager's own reason and message until then. Pure.
import { organizationTlsNames, type AppTls, type Condition } from '../../api/index.ts';
import type { DeepReadonly, KubeObject } from '../../runtime/index.ts';

export const certificateReadyCondition = 'CertificateReady';

export type CertificateCondition = Pick<Condition, 'type' | 'status' | 'reason' | 'message'>;

type CertificateObject = DeepReadonly<
  KubeObject & { status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] } }
>;

export function certificateCondition(tls: AppTls, organization: string, certificate: CertificateObject | undefined): CertificateCondition {
  const names = organizationTlsNames(organization);
  const where = `Certificate ${tls.gateway.namespace}/${names.certificate}`;
  const ready = certificate?.status?.conditions?.find((c) => c.type === 'Ready');
  if (!certificate) {
    return {
      type: certificateReadyCondition,
      status: 'False',
      reason: 'CertificateRequested',
      message: `${where} is being made for *.${organization}.${tls.appUrls.domain}.`,
    };
  }
  if (ready?.status === 'True') {
    return {
      type: certificateReadyCondition,
      status: 'True',
      reason: 'Issued',
      message: `${where} is issued; the Gateway serves https:// with it.`,
    };
  }
  return {
    type: certificateReadyCondition,
    status: 'False',
    reason: ready?.reason || 'Issuing',
    message: `${where}: ${ready?.message || `waiting for ${tls.issuer.kind} ${tls.issuer.name} to issue it.`}`,
  };
}
