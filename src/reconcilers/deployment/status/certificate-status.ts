// What a Deployment says about the certificates its https:// URLs are served with: its organization's
// wildcard Certificate and, with a custom_url, the organization's custom hosts' Certificate
// (src/api/app-tls.ts), as cert-manager reports them. A CertificateReady condition: True once all are
// issued, False with cert-manager's own reason and message for the first that is not. Pure.
import type { AppTls, ConditionDecision } from '../../../api/index.ts';
import type { DeepReadonly, KubeObject } from '../../../runtime/index.ts';

export const certificateReadyCondition = 'CertificateReady';

type CertificateObject = DeepReadonly<
  KubeObject & { status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] } }
>;

/** A certificate the Deployment is served with: its name and, once made, the object. */
export interface ServingCertificate {
  name: string;
  /** The names it is for, for the message while it is not made. */
  for: string;
  object: CertificateObject | undefined;
}

export function certificateCondition(tls: AppTls, certificates: readonly ServingCertificate[]): ConditionDecision {
  for (const certificate of certificates) {
    const where = `Certificate ${tls.gateway.namespace}/${certificate.name}`;
    const ready = certificate.object?.status?.conditions?.find((c) => c.type === 'Ready');
    if (!certificate.object)
      return {
        type: certificateReadyCondition,
        status: 'False',
        reason: 'CertificateRequested',
        message: `${where} is being made for ${certificate.for}.`,
      };
    if (ready?.status !== 'True')
      return {
        type: certificateReadyCondition,
        status: 'False',
        reason: ready?.reason || 'Issuing',
        message: `${where}: ${ready?.message || `waiting for ${tls.issuer.kind} ${tls.issuer.name} to issue it.`}`,
      };
  }
  const which = certificates.map((c) => `${tls.gateway.namespace}/${c.name}`).join(' and ');
  return {
    type: certificateReadyCondition,
    status: 'True',
    reason: 'Issued',
    message: `Certificate ${which} issued; the Gateway serves https:// with it.`,
  };
}
