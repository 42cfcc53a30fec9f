// external_docker: an image from any registry, named by the Deployment.
import type { SourceKind } from './kind.ts';

export const externalDocker = {
  name: 'external_docker',
  summary: 'an external container image',
  image: 'given',
  members: ['sourceRevisionConfig.imageUri'],
  required: ['sourceRevisionConfig.imageUri'],
  usesIntegration: false,
  offers: {},
  revisionSource: true,
  revisionsFrom: 'from external_docker images',
} as const satisfies SourceKind;
