// The ClusterIssuer that signs the apps' certificates signs for Berth alone. Berth asks it for one
// wildcard certificate per organization (`*.<organization>.<apps domain>`, src/api/app-tls.ts); a
// ClusterIssuer answers any namespace, so a team allowed to make Certificates (cert-manager's roles
// aggregate into `edit`) could ask it for another organization's names. This ValidatingAdmissionPolicy
// (the API server's own policy engine) refuses every Certificate and CertificateRequest that names that
// issuer to anyone but Berth and cert-manager's controller (which makes the CertificateRequests of
// Berth's Certificates). The chart installs it with an apps.tlsIssuer of kind ClusterIssuer
// (test/chart.test.ts compares); an Issuer in the Gateway's namespace needs none, no team reaching it.
import { admissionPolicy } from './admission-policy.ts';

/** Who may name the issuer: Berth, and cert-manager's controller (both as their user names). */
export interface IssuerPolicyInput {
  issuer: string;
  berthUser: string;
  certManagerUser: string;
  name: string;
}

/** cert-manager's controller as its chart installs it. */
export const defaultCertManagerUser = 'system:serviceaccount:cert-manager:cert-manager';

/** CEL: the object names `issuer`, a ClusterIssuer of cert-manager's group (issuerRef's defaults: kind
 * Issuer, group cert-manager.io). */
function namesIssuer(issuer: string): string {
  const ref = 'object.spec.issuerRef';
  return [
    `${ref}.name == ${JSON.stringify(issuer)}`,
    `(has(${ref}.kind) ? ${ref}.kind : "Issuer") == "ClusterIssuer"`,
    `(has(${ref}.group) && ${ref}.group != "" ? ${ref}.group : "cert-manager.io") == "cert-manager.io"`,
  ].join(' && ');
}

export function renderIssuerPolicy(input: IssuerPolicyInput): object[] {
  const allowed = JSON.stringify([input.berthUser, input.certManagerUser]);
  return admissionPolicy(input.name, {
    matchConstraints: {
      resourceRules: [
        {
          apiGroups: ['cert-manager.io'],
          apiVersions: ['*'],
          operations: ['CREATE', 'UPDATE'],
          resources: ['certificates', 'certificaterequests'],
        },
      ],
    },
    matchConditions: [{ name: 'names-the-apps-issuer', expression: namesIssuer(input.issuer) }],
    validations: [
      {
        expression: `request.userInfo.username in ${allowed}`,
        message: `ClusterIssuer ${input.issuer} signs the apps' certificates for Berth alone: use an issuer of your own`,
        reason: 'Forbidden',
      },
    ],
  });
}
