// What a create or a PATCH of a deployment asks of the API server, decided without touching it: the
// Deployment's spec, and the values for its `<deployment>-secrets` Secret. Every refusal is a 422
// naming the offending member in the interface's spelling.
import {
  apiVersion,
  builtSources,
  fromWire,
  sourceConfigSchema,
  sourceRevisionConfigSchema,
  type Deployment,
  type DeploymentSecret,
  type DeploymentSource,
  type DeploymentSpec,
  type SourceConfig,
  type SourceRevisionConfig,
} from '../api/index.ts';
import type { DeepReadonly } from '../runtime/types.ts';
import { unprocessable, type ValidationProblem } from './errors.ts';
import { maskedSecretValue, type DeploymentCreate, type DeploymentPatch } from './wire-schemas.ts';

export function deploymentSecretName(deploymentName: string): string {
  return `${deploymentName}-secrets`;
}

/** Which sources each source-specific member belongs to (the CRD's CEL rules say the same of the spec). */
const membersBySource: { part: 'source_config' | 'source_revision_config'; key: string; sources: readonly DeploymentSource[]; why?: string }[] = [
  { part: 'source_config', key: 'integration_id', sources: ['codehost'] },
  { part: 'source_config', key: 'repo_url', sources: ['codehost'] },
  { part: 'source_config', key: 'build_on_push', sources: ['codehost'] },
  { part: 'source_config', key: 'install_command', sources: builtSources },
  { part: 'source_config', key: 'build_command', sources: builtSources },
  { part: 'source_revision_config', key: 'repo_ref', sources: ['codehost'] },
  { part: 'source_revision_config', key: 'graph_config_path', sources: builtSources },
  { part: 'source_revision_config', key: 'source_tarball_path', sources: ['internal_source'] },
  { part: 'source_revision_config', key: 'image_uri', sources: ['external_docker', 'internal_docker'], why: 'the build makes the image' },
];
/** Members that may be set once and never changed (the CRD's CEL rules say the same). */
const immutableOnceSet = ['integration_id', 'repo_url', 'deployment_type', 'listener_id'] as const;

type WireObject = Record<string, unknown>;

/** The members given for the deployment's source that do not belong to it. */
export function sourceProblems(source: DeploymentSource, sourceConfig: WireObject | null | undefined, revisionConfig: WireObject | null | undefined): ValidationProblem[] {
  const parts = { source_config: sourceConfig, source_revision_config: revisionConfig };
  return membersBySource
    .filter(({ part, key, sources }) => parts[part]?.[key] != null && !sources.includes(source))
    .map(({ part, key, sources, why }) => ({
      loc: ['body', part, key],
      msg: why ? `${key} is not allowed when source is ${source}: ${why}` : `${key} applies only when source is ${sources.join(' or ')}, not ${source}`,
      type: 'value_error',
    }));
}

/** Pairs where the first may not exceed the second: scale bounds, and requests against limits. */
const orderedPairs: [low: string, high: string, offending: string][] = [
  ['minScale', 'maxScale', 'minScale'],
  ['queueMinScale', 'queueMaxScale', 'queueMinScale'],
  ['orchestratorMinScale', 'orchestratorMaxScale', 'orchestratorMinScale'],
  ...['', 'queue', 'orchestrator', 'executor', 'db'].flatMap((prefix): [string, string, string][] => {
    const name = (field: string) => (prefix ? `${prefix}${field[0]!.toUpperCase()}${field.slice(1)}` : field);
    return [
      [name('cpu'), name('cpuLimit'), name('cpuLimit')],
      [name('memoryMb'), name('memoryLimitMb'), name('memoryLimitMb')],
    ];
  }),
];

const snake = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * The cross-field rules of the merged spec (the CRD says the same in CEL): checked here too so the
 * answer names members in the interface's spelling, and so no write is even tried.
 */
function consistencyProblems(spec: DeploymentSpec): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  const resources = (spec.sourceConfig.resourceSpec ?? {}) as Record<string, unknown>;
  for (const [low, high, offending] of orderedPairs) {
    const a = resources[low];
    const b = resources[high];
    if (typeof a === 'number' && typeof b === 'number' && a > b) {
      const [first, second] = offending === low ? [low, high] : [high, low];
      const relation = offending === low ? 'less than or equal to' : 'greater than or equal to';
      problems.push({
        loc: ['body', 'source_config', 'resource_spec', snake(first)],
        msg: `${snake(first)} must be ${relation} ${snake(second)}`,
        type: 'value_error',
      });
    }
  }
  (spec.sourceConfig.resourceSpec?.volumes ?? []).forEach((volume, index) => {
    const sources = Object.keys(volume).filter((key) => key !== 'name');
    if (sources.length > 1) {
      problems.push({
        loc: ['body', 'source_config', 'resource_spec', 'volumes', index],
        msg: `a volume has at most one source, got ${sources.join(', ')}`,
        type: 'value_error',
      });
    }
  });
  return problems;
}

/** What a complete deployment of this source must have. */
function requiredProblems(spec: DeploymentSpec): ValidationProblem[] {
  const problems: ValidationProblem[] = [...consistencyProblems(spec)];
  const required = (present: unknown, loc: string[], why: string) => {
    if (present === undefined) problems.push({ loc, msg: `Field required ${why}`, type: 'missing' });
  };
  if (spec.source === 'codehost') {
    required(spec.sourceConfig.integrationId, ['body', 'source_config', 'integration_id'], 'when source is codehost');
    required(spec.sourceConfig.repoUrl, ['body', 'source_config', 'repo_url'], 'when source is codehost');
    required(spec.sourceRevisionConfig.repoRef, ['body', 'source_revision_config', 'repo_ref'], 'when source is codehost');
  } else if (spec.source === 'external_docker') {
    // internal_docker may wait for its first image: no revision until a PATCH brings one.
    required(spec.sourceRevisionConfig.imageUri, ['body', 'source_revision_config', 'image_uri'], 'when source is external_docker');
  }
  const ref = spec.sourceRevisionConfig.repoRef;
  if (ref?.startsWith('refs/tags/') && spec.sourceConfig.buildOnPush) {
    problems.push({
      loc: ['body', 'source_config', 'build_on_push'],
      msg: 'build_on_push must be false when repo_ref is a tag (refs/tags/...): a tag never moves',
      type: 'value_error',
    });
  }
  return problems;
}

function secretsProblems(secrets: { name: string }[]): ValidationProblem[] {
  const seen = new Set<string>();
  const problems: ValidationProblem[] = [];
  secrets.forEach((secret, index) => {
    if (seen.has(secret.name)) {
      problems.push({ loc: ['body', 'secrets', index, 'name'], msg: `Duplicate secret name ${secret.name}`, type: 'value_error' });
    }
    seen.add(secret.name);
  });
  return problems;
}

function withoutNulls(value: WireObject | null | undefined): WireObject {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, member]) => member !== null && member !== undefined));
}

export interface DeploymentPlan {
  spec: DeploymentSpec;
  /** The whole content of the `<deployment>-secrets` Secret; undefined when it is not to be written. */
  secretValues?: Record<string, string>;
}

export function planDeploymentCreate(body: DeploymentCreate): DeploymentPlan {
  const sourceConfig = fromWire(sourceConfigSchema, body.source_config ?? {}) as SourceConfig;
  const sourceRevisionConfig = fromWire(sourceRevisionConfigSchema, body.source_revision_config ?? {}) as SourceRevisionConfig;
  const secrets = body.secrets ?? [];
  const spec: DeploymentSpec = {
    source: body.source,
    sourceConfig,
    sourceRevisionConfig,
    ...(secrets.length > 0 ? { secrets: secrets.map((secret) => ({ name: secret.name })) } : {}),
  };
  const problems = [
    ...sourceProblems(body.source, body.source_config as WireObject, body.source_revision_config as WireObject),
    ...requiredProblems(spec),
    ...secretsProblems(secrets),
  ];
  if (problems.length > 0) throw unprocessable(problems);
  return { spec, ...(secrets.length > 0 ? { secretValues: Object.fromEntries(secrets.map((s) => [s.name, s.value])) } : {}) };
}

export function renderDeployment(namespace: string, name: string, spec: DeploymentSpec): Deployment {
  return { apiVersion, kind: 'Deployment', metadata: { name, namespace }, spec };
}

/**
 * Why a PATCH's revision_source cannot make this deployment's revision, if it cannot: each source makes
 * its revisions its own way (a codehost one from its repository, internal_source from uploaded archives,
 * the image sources from their kind of image).
 */
export function revisionSourceMismatch(source: string, revisionSource: string | null | undefined): string | undefined {
  if (revisionSource == null || revisionSource === source) return undefined;
  const how: Record<string, string> = { codehost: 'from its repository', internal_source: 'from uploaded source archives' };
  return `${/^[aeiou]/.test(source) ? 'an' : 'a'} ${source} deployment makes its revisions ${how[source] ?? `from ${source} images`}, not from ${revisionSource}`;
}

/**
 * A PATCH applied to the current Deployment. `storedSecretValues` are the values in its Secret now (a
 * masked value in the request keeps the stored one).
 */
export function planDeploymentPatch(
  current: DeepReadonly<Deployment>,
  patch: DeploymentPatch,
  storedSecretValues: Record<string, string>,
): DeploymentPlan {
  const problems: ValidationProblem[] = [];
  const spec = structuredClone(current.spec) as DeploymentSpec;
  spec.sourceConfig ??= {};
  spec.sourceRevisionConfig ??= {};
  if (patch.name != null && patch.name !== current.metadata.name) {
    problems.push({ loc: ['body', 'name'], msg: 'name cannot be changed after creation', type: 'immutable' });
  }
  if (patch.source != null && patch.source !== current.spec.source) {
    problems.push({ loc: ['body', 'source'], msg: 'source cannot be changed after creation', type: 'immutable' });
  }
  const revisionSourceProblem = revisionSourceMismatch(current.spec.source, patch.revision_source);
  if (revisionSourceProblem) problems.push({ loc: ['body', 'revision_source'], msg: revisionSourceProblem, type: 'value_error' });

  const sourceConfigPatch = withoutNulls(patch.source_config as WireObject | null | undefined);
  const revisionConfigPatch = withoutNulls(patch.source_revision_config as WireObject | null | undefined);
  problems.push(...sourceProblems(spec.source, sourceConfigPatch, revisionConfigPatch));

  const currentWire = { ...(current.spec.sourceConfig ?? {}) } as Record<string, unknown>;
  for (const key of immutableOnceSet) {
    const next = sourceConfigPatch[key];
    const camel = key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
    if (next !== undefined && currentWire[camel] !== undefined && currentWire[camel] !== next) {
      problems.push({ loc: ['body', 'source_config', key], msg: `${key} cannot be changed once set`, type: 'immutable' });
    }
  }
  const nextNamespace = withoutNulls(sourceConfigPatch.listener_config as WireObject | undefined).k8s_namespace;
  const currentNamespace = current.spec.sourceConfig?.listenerConfig?.k8sNamespace;
  if (nextNamespace !== undefined && currentNamespace !== undefined && nextNamespace !== currentNamespace) {
    problems.push({ loc: ['body', 'source_config', 'listener_config', 'k8s_namespace'], msg: 'k8s_namespace cannot be changed once set', type: 'immutable' });
  }

  // Nested groups merge member by member: a PATCH of one resource field keeps the others.
  const { resource_spec: resourceSpecPatch, listener_config: listenerConfigPatch, ...flatSourceConfig } = sourceConfigPatch;
  const flat = fromWire(sourceConfigSchema, flatSourceConfig) as SourceConfig;
  Object.assign(spec.sourceConfig, flat);
  if (resourceSpecPatch) {
    const resourceSpec = (fromWire(sourceConfigSchema, { resource_spec: withoutNulls(resourceSpecPatch as WireObject) }) as SourceConfig).resourceSpec;
    spec.sourceConfig.resourceSpec = { ...spec.sourceConfig.resourceSpec, ...resourceSpec };
  }
  if (listenerConfigPatch) {
    const listenerConfig = (fromWire(sourceConfigSchema, { listener_config: withoutNulls(listenerConfigPatch as WireObject) }) as SourceConfig).listenerConfig;
    spec.sourceConfig.listenerConfig = { ...spec.sourceConfig.listenerConfig, ...listenerConfig };
  }
  Object.assign(spec.sourceRevisionConfig, fromWire(sourceRevisionConfigSchema, revisionConfigPatch) as SourceRevisionConfig);

  let secretValues: Record<string, string> | undefined;
  if (patch.secrets != null) {
    problems.push(...secretsProblems(patch.secrets));
    const currentEntries = new Map((current.spec.secrets ?? []).map((entry) => [entry.name, entry as DeploymentSecret]));
    const entries: DeploymentSecret[] = [];
    secretValues = {};
    patch.secrets.forEach((secret, index) => {
      const kept = currentEntries.get(secret.name);
      if (secret.value === maskedSecretValue) {
        // A masked value sent back unchanged keeps what is stored (a read-modify-write round trip).
        if (!kept) {
          problems.push({ loc: ['body', 'secrets', index, 'value'], msg: `Secret ${secret.name} has no stored value to keep`, type: 'value_error' });
          return;
        }
        entries.push(structuredClone(kept));
        if (!kept.valueFrom && storedSecretValues[secret.name] !== undefined) secretValues![secret.name] = storedSecretValues[secret.name]!;
        return;
      }
      entries.push({ name: secret.name });
      secretValues![secret.name] = secret.value;
    });
    if (entries.length > 0) spec.secrets = entries;
    else delete spec.secrets;
  }

  if (patch.tracked_packages != null) spec.trackedPackages = [...patch.tracked_packages];

  problems.push(...requiredProblems(spec));
  if (problems.length > 0) throw unprocessable(dedupe(problems));
  return { spec, ...(secretValues ? { secretValues } : {}) };
}

function dedupe(problems: ValidationProblem[]): ValidationProblem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = JSON.stringify(problem.loc) + problem.msg;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
