// internal_source: built by a Job from a source archive uploaded through the HTTP API, one per Revision.
import type { SourceKind } from './kind.ts';

export const internalSource = {
  name: 'internal_source',
  summary: 'built from a source archive uploaded through the HTTP API',
  image: 'built-from-archive',
  members: [
    'sourceConfig.installCommand',
    'sourceConfig.buildCommand',
    'sourceRevisionConfig.graphConfigPath',
    'sourceRevisionConfig.sourceTarballPath',
  ],
  required: [],
  awaits: {
    member: 'sourceRevisionConfig.sourceTarballPath',
    what: 'source archive',
    reason: 'AwaitingSource',
    lateReason: 'SourceNeverArrived',
    message:
      'Waiting for the first source archive: ask POST /v2/deployments/{id}/upload-url, PUT the .tar.gz there, then PATCH source_tarball_path (sourceRevisionConfig.sourceTarballPath).',
  },
  usesIntegration: false,
  offers: { uploadUrl: true },
  revisionSource: true,
  revisionsFrom: 'from uploaded source archives',
} as const satisfies SourceKind;
