// TracingProject: the tracing project made with each Deployment, under the same name.
import { z } from 'zod';
import { conditionsSchema } from './conditions.ts';
import { observedGenerationSchema, type KindObject } from './common.ts';
import { apiVersion, type KindDescriptor } from './group.ts';

export const tracingProjectSpecSchema = z
  .object({
    deploymentName: z
      .string()
      .min(1)
      .max(253)
      .describe('Name of the Deployment this project traces. Immutable.')
      .meta({ 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'spec.deploymentName is immutable' }] }),
  })
  .describe('Desired state of the TracingProject.');
export type TracingProjectSpec = z.infer<typeof tracingProjectSpecSchema>;

export const tracingProjectStatusSchema = z
  .object({
    observedGeneration: observedGenerationSchema.optional(),
    conditions: conditionsSchema.optional(),
  })
  .describe('Observed state of the TracingProject, written by the controller.');
export type TracingProjectStatus = z.infer<typeof tracingProjectStatusSchema>;

export type TracingProject = KindObject<'TracingProject', TracingProjectSpec, TracingProjectStatus>;

export const tracingProjectKind = {
  kind: 'TracingProject',
  plural: 'tracingprojects',
  singular: 'tracingproject',
  shortNames: ['tproj'],
  apiVersion,
} as const satisfies KindDescriptor;
