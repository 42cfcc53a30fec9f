// The types of the wire schemas are the JSON's: keys in snake_case at every depth, but for the shapes
// the interface spells as Kubernetes does (containers, volumes, env). Checked by tsc (npm test's
// typecheck); a renamed nested field fails here and wherever a client reads it.
import { describe, expectTypeOf, it } from 'vitest';
import type { DeploymentResponse, RevisionResponse } from './wire-schemas.ts';

type Canary = NonNullable<DeploymentResponse['canary']>;
type ResourceSpec = NonNullable<DeploymentResponse['source_config']['resource_spec']>;
type Sidecar = NonNullable<ResourceSpec['sidecars']>[number];

describe('the wire types', () => {
  it('spell nested members in snake_case', () => {
    expectTypeOf<Canary>().toHaveProperty('step_started_at').toEqualTypeOf<string>();
    expectTypeOf<Canary>().toHaveProperty('revision_name').toEqualTypeOf<string>();
    expectTypeOf<Canary>().not.toHaveProperty('stepStartedAt');
    expectTypeOf<ResourceSpec>().toHaveProperty('min_scale');
    expectTypeOf<DeploymentResponse['source_config']>().not.toHaveProperty('resourceSpec');
    expectTypeOf<RevisionResponse['source_revision_config']>().toHaveProperty('image_uri');
  });

  it('keep the keys of the shapes spelled as Kubernetes spells them', () => {
    expectTypeOf<Sidecar>().toHaveProperty('volumeMounts');
    expectTypeOf<Sidecar>().toHaveProperty('imagePullPolicy');
    expectTypeOf<Sidecar>().not.toHaveProperty('volume_mounts');
    expectTypeOf<NonNullable<Sidecar['env']>[number]>().toHaveProperty('valueFrom');
  });
});
