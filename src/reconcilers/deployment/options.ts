// What an installation chooses about Deployments: images, the registry builds push to, revision retention.
import { defaultRevisionRetention } from './revisions.ts';

export interface DeploymentControllerOptions {
  /** Revisions kept per Deployment besides the active, latest and pinned ones. Default 10. */
  revisionRetention: number;
  /** Where codehost builds push: `<registry>/<namespace>/<deployment>:<revision>`. */
  registry: string;
  images: {
    /** Builds and pushes the image (a Kaniko-compatible executor). */
    builder: string;
    /** Clones the repository. */
    git: string;
    /** Runs installCommand and buildCommand. */
    buildTools: string;
    postgres: string;
    redis: string;
  };
  /** Port the application listens on (its PORT). */
  applicationPort: number;
  ingressClassName?: string;
  /** Service account of build Jobs (e.g. with push credentials for the registry). */
  buildServiceAccountName?: string;
  /** Keys reconciled in parallel. */
  concurrency: number;
  /** Watch only these namespaces. Default: all. */
  namespaces?: string[];
  now: () => Date;
}

export const defaultDeploymentControllerOptions: DeploymentControllerOptions = {
  revisionRetention: defaultRevisionRetention,
  registry: 'registry.berth.svc.cluster.local:5000',
  images: {
    builder: 'gcr.io/kaniko-project/executor:v1.23.2',
    git: 'alpine/git:2.47.2',
    buildTools: 'node:24-bookworm',
    postgres: 'postgres:16-alpine',
    redis: 'redis:7-alpine',
  },
  applicationPort: 8000,
  concurrency: 4,
  now: () => new Date(),
};

export function resolveOptions(overrides: Partial<DeploymentControllerOptions> = {}): DeploymentControllerOptions {
  return {
    ...defaultDeploymentControllerOptions,
    ...overrides,
    images: { ...defaultDeploymentControllerOptions.images, ...overrides.images },
  };
}
