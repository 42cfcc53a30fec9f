// codehost: built by a Job from a repository on a code host, read through a CodeHostIntegration.
import type { SourceKind } from './kind.ts';

export const codehost = {
  name: 'codehost',
  summary: 'built from a repository',
  image: 'built-from-repository',
  members: [
    'sourceConfig.integrationId',
    'sourceConfig.repoUrl',
    'sourceConfig.buildOnPush',
    'sourceConfig.installCommand',
    'sourceConfig.buildCommand',
    'sourceConfig.previews',
    'sourceRevisionConfig.repoRef',
    'sourceRevisionConfig.graphConfigPath',
  ],
  required: ['sourceConfig.integrationId', 'sourceConfig.repoUrl', 'sourceRevisionConfig.repoRef'],
  usesIntegration: true,
  offers: {},
  revisionSource: false,
  revisionsFrom: 'from its repository',
} as const satisfies SourceKind;
