// A deployment's previews, from the organization's deployments: those whose preview_of names it, by
// pull request number. Pure.
import type { Deployment } from './api.ts';

export type Preview = Deployment & { preview_of: NonNullable<Deployment['preview_of']> };

export function previewsOf(deployments: readonly Deployment[], parentName: string): Preview[] {
  return deployments
    .filter((deployment): deployment is Preview => deployment.preview_of?.deployment_name === parentName)
    .sort((a, b) => a.preview_of.pull_request - b.preview_of.pull_request);
}
