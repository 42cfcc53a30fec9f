// What a create or a PATCH of a deployment asks of the API server, decided without touching it: the
// Deployment's spec, and the values for its `<deployment>-secrets` Secret. The rules of the spec are the
// CRD's (its schema and CEL rules): the API server applies them to the write (a PATCH's dry run first) and
// kube-errors.ts words its refusal in the interface's spelling. Here are only the rules of the request
// itself: a name or source that cannot change, a revision_source, secrets and their masked values.
import {
  apiVersion,
  fromWire,
  sourceConfigSchema,
  sourceRevisionConfigSchema,
  type Deployment,
  type DeploymentSecret,
  type DeploymentSpec,
  type SourceConfig,
  type SourceRevisionConfig,
  aSourceDeployment,
  secretOfReference,
  secretReferenceSchema,
  sourceKind,
  type SecretReference,
} from '../api/index.ts';
import type { DeepReadonly } from '../runtime/types.ts';
import { unprocessable, type ValidationProblem } from './errors.ts';
import { maskedSecretValue, revisionConfigAliases, type DeploymentCreate, type DeploymentPatch } from './wire-schemas.ts';
import { optional } from '../runtime/index.ts';

type WireObject = Record<string, unknown>;

/** Each entry of `member` whose name came before: in the list itself, or among `taken`. */
function duplicateNames(
  member: 'secrets' | 'secret_references',
  entries: readonly { name: string }[],
  taken: ReadonlySet<string> = new Set(),
): ValidationProblem[] {
  const seen = new Set(taken);
  return entries.flatMap((entry, index) => {
    const duplicate = seen.has(entry.name);
    seen.add(entry.name);
    return duplicate ? [{ loc: ['body', member, index, 'name'], msg: `Duplicate secret name ${entry.name}`, type: 'value_error' }] : [];
  });
}

/** The spec's secrets, absent when there are none. */
function withSecrets(spec: DeploymentSpec, entries: DeploymentSecret[]): void {
  if (entries.length > 0) spec.secrets = entries;
  else delete spec.secrets;
}

function referencesOf(wire: readonly unknown[] | null | undefined): SecretReference[] {
  return (wire ?? []).map((reference) => fromWire(secretReferenceSchema, reference) as SecretReference);
}

function withoutNulls(value: WireObject | null | undefined): WireObject {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, member]) => member !== null && member !== undefined));
}

/**
 * A source_revision_config with each alias moved to the name it is stored under; sending both names with
 * different values is a problem at the alias.
 */
function withoutAliases(config: WireObject, problems: ValidationProblem[]): WireObject {
  const canonical = { ...config };
  for (const [alias, name] of Object.entries(revisionConfigAliases)) {
    const value = canonical[alias];
    delete canonical[alias];
    if (value == null) continue;
    if (canonical[name] != null && canonical[name] !== value) {
      problems.push({
        loc: ['body', 'source_revision_config', alias],
        msg: `${alias} is another name for ${name}: send one, or the same value in both`,
        type: 'value_error',
      });
    }
    canonical[name] = value;
  }
  return canonical;
}

export interface DeploymentPlan {
  spec: DeploymentSpec;
  /** The whole content of the `<deployment>-secrets` Secret; undefined when it is not to be written. */
  secretValues?: Record<string, string>;
}

export function planDeploymentCreate(body: DeploymentCreate): DeploymentPlan {
  const problems: ValidationProblem[] = [];
  const sourceConfig = fromWire(sourceConfigSchema, body.source_config ?? {}) as SourceConfig;
  const revisionConfig = withoutAliases(withoutNulls(body.source_revision_config as WireObject | undefined), problems);
  const sourceRevisionConfig = fromWire(sourceRevisionConfigSchema, revisionConfig) as SourceRevisionConfig;
  const secrets = body.secrets ?? [];
  const references = referencesOf(body.secret_references);
  const entries = [...secrets.map((secret) => ({ name: secret.name })), ...references.map(secretOfReference)];
  const spec: DeploymentSpec = { source: body.source, sourceConfig, sourceRevisionConfig };
  withSecrets(spec, entries);
  problems.push(
    ...duplicateNames('secrets', secrets),
    ...duplicateNames('secret_references', references, new Set(secrets.map((secret) => secret.name))),
  );
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
  return `${aSourceDeployment(source)} makes its revisions ${sourceKind(source)?.revisionsFrom ?? `from ${source}`}, not from ${revisionSource}`;
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
  const revisionConfigPatch = withoutAliases(withoutNulls(patch.source_revision_config as WireObject | null | undefined), problems);

  // Nested groups merge member by member: a PATCH of one resource field keeps the others.
  const { resource_spec: resourceSpecPatch, listener_config: listenerConfigPatch, ...flatSourceConfig } = sourceConfigPatch;
  const flat = fromWire(sourceConfigSchema, flatSourceConfig) as SourceConfig;
  Object.assign(spec.sourceConfig, flat);
  if (resourceSpecPatch) {
    const resourceSpec = (fromWire(sourceConfigSchema, { resource_spec: withoutNulls(resourceSpecPatch as WireObject) }) as SourceConfig)
      .resourceSpec;
    spec.sourceConfig.resourceSpec = { ...spec.sourceConfig.resourceSpec, ...resourceSpec };
  }
  if (listenerConfigPatch) {
    const listenerConfig = (
      fromWire(sourceConfigSchema, { listener_config: withoutNulls(listenerConfigPatch as WireObject) }) as SourceConfig
    ).listenerConfig;
    spec.sourceConfig.listenerConfig = { ...spec.sourceConfig.listenerConfig, ...listenerConfig };
  }
  Object.assign(spec.sourceRevisionConfig, fromWire(sourceRevisionConfigSchema, revisionConfigPatch) as SourceRevisionConfig);

  let secretValues: Record<string, string> | undefined;
  if (patch.secrets != null) {
    problems.push(...duplicateNames('secrets', patch.secrets));
    const currentEntries = new Map((current.spec.secrets ?? []).map((entry) => [entry.name, entry as DeploymentSecret]));
    const entries: DeploymentSecret[] = [];
    secretValues = {};
    patch.secrets.forEach((secret, index) => {
      const kept = currentEntries.get(secret.name);
      if (secret.value === maskedSecretValue) {
        // A masked value sent back unchanged keeps what is stored (a read-modify-write round trip).
        if (!kept) {
          problems.push({
            loc: ['body', 'secrets', index, 'value'],
            msg: `Secret ${secret.name} has no stored value to keep`,
            type: 'value_error',
          });
          return;
        }
        entries.push(structuredClone(kept));
        if (!kept.valueFrom && storedSecretValues[secret.name] !== undefined) secretValues![secret.name] = storedSecretValues[secret.name]!;
        return;
      }
      entries.push({ name: secret.name });
      secretValues![secret.name] = secret.value;
    });
    // References are secret_references' to change: those the request does not name stay.
    const named = new Set(patch.secrets.map((secret) => secret.name));
    for (const entry of currentEntries.values()) if (entry.valueFrom && !named.has(entry.name)) entries.push(structuredClone(entry));
    withSecrets(spec, entries);
  }
  if (patch.secret_references != null) {
    const references = referencesOf(patch.secret_references);
    const values = (spec.secrets ?? []).filter((entry) => !entry.valueFrom);
    problems.push(...duplicateNames('secret_references', references, new Set(values.map((entry) => entry.name))));
    withSecrets(spec, [...values, ...references.map(secretOfReference)]);
  }

  if (patch.tracked_packages != null) spec.trackedPackages = [...patch.tracked_packages];

  if (problems.length > 0) throw unprocessable(problems);
  return { spec, ...optional('secretValues', secretValues) };
}
