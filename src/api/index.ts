// Berth's API: every kind, its schemas and types, the condition helpers and the wire conversion.
export * from './group.ts';
export * from './common.ts';
export * from './conditions.ts';
export * from './wire.ts';
export * from './workload.ts';
export * from './deployment.ts';
export * from './sources/index.ts';
export * from './revision.ts';
export * from './oauth-provider.ts';
export * from './codehost-integration.ts';
export * from './tracing-project.ts';
export * from './custom-hosts.ts';
export * from './child-names.ts';
export * from './name-claims.ts';
export * from './organization-policy.ts';
export * from './build-resources.ts';
export * from './app-urls.ts';
