// The API group every Berth kind lives in, and the label keys Berth writes on objects.
export const group = 'berth.dev';
export const version = 'v1alpha1';
export const apiVersion = `${group}/${version}` as const;

/**
 * The one field manager Berth's controllers write under (server-side apply, status, finalizers), so
 * an object's managedFields name one writer for all Berth sets (GitOps tools then see one owner). The HTTP API
 * writes as its own manager (facade/kube-writer.ts).
 */
export const fieldManager = 'berth';

/**
 * The names earlier versions' writes were recorded under: the OAuthProvider controller wrote its status
 * and Secrets with no field manager and no User-Agent, which the API server records as `unknown`. Berth adopts
 * their entries into `fieldManager` (runtime/field-manager-adoption.ts).
 */
export const legacyFieldManagers: readonly string[] = ['unknown'];

/** Every Berth kind is listed by `kubectl get berth`. */
export const category = 'berth';

export const labels = {
  /** On a Revision and on every child object: the name of the Deployment it belongs to. */
  deployment: 'berth.dev/deployment',
  /** On a Revision: its digest, cut to the 63 characters a label value may hold. */
  revisionDigest: 'berth.dev/revision-digest',
  /** On a Revision: the Deployment's metadata.generation when the Revision was created (orders revisions). */
  deploymentGeneration: 'berth.dev/deployment-generation',
  /** On a namespace: the organization it belongs to; such a namespace is an organization. */
  organizationId: 'berth.dev/organization-id',
  /** On a Secret: Berth may read it (api/readable-secrets.ts). */
  secret: 'berth.dev/secret',
  /** On a preview Deployment: the Deployment (as a label value) it previews a pull request of. */
  previewOf: 'berth.dev/preview-of',
  /** On a preview Deployment: the number of its pull (merge) request. */
  pullRequest: 'berth.dev/pull-request',
} as const;

/** What a generated CRD needs to know about a kind besides its schema. */
export type KindDescriptor = {
  kind: string;
  plural: string;
  singular: string;
  shortNames: readonly string[];
  apiVersion: typeof apiVersion;
};
