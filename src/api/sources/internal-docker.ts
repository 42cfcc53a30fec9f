// internal_docker: an image pushed to the installation's registry with a push token, then named.
import type { SourceKind } from './kind.ts';

export const internalDocker = {
  name: 'internal_docker',
  summary: "an image pushed to the installation's registry",
  image: 'given',
  members: ['sourceRevisionConfig.imageUri'],
  // A Deployment may be created before its first image is pushed: it waits for it.
  required: [],
  awaits: {
    member: 'sourceRevisionConfig.imageUri',
    what: 'image',
    reason: 'AwaitingImage',
    lateReason: 'ImageNeverArrived',
    message: "Waiting for the first image: push it to the deployment's repository and set sourceRevisionConfig.imageUri (PATCH image_uri).",
  },
  usesIntegration: false,
  offers: { pushToken: true },
  revisionSource: true,
  revisionsFrom: 'from internal_docker images',
} as const satisfies SourceKind;
