// What one build may use (chart values builder.resources, flag --build-resources): each step of a build
// Job asks for `cpu` cores and `memoryMb` (scaled by --request-scale) and may use at most `cpuLimit`
// cores, `memoryLimitMb` and `diskLimitGi` of node disk (its workspace, BuildKit's state, its layers),
// so a build cannot starve the node's other tenants; the Job's deadline bounds its time.
import { z } from 'zod';

export const buildResourcesSchema = z
  .object({
    cpu: z.number().positive().max(64).default(0.5).describe('Cores each build step asks for.'),
    memoryMb: z.number().int().positive().max(262_144).default(1024).describe('Memory each build step asks for, in MiB.'),
    cpuLimit: z.number().positive().max(64).default(2).describe('The most cores a build step may use.'),
    memoryLimitMb: z
      .number()
      .int()
      .positive()
      .max(262_144)
      .default(4096)
      .describe('The most memory a build step may use, in MiB: past it, the step is killed (OOMKilled).'),
    diskLimitGi: z
      .number()
      .int()
      .positive()
      .max(10_240)
      .default(20)
      .describe('The most node disk a build may fill, in GiB: past it, the kubelet evicts its pod.'),
  })
  .strict()
  .refine(
    (sizing) => sizing.cpu <= sizing.cpuLimit && sizing.memoryMb <= sizing.memoryLimitMb,
    'a request above its limit: cpu must be at most cpuLimit and memoryMb at most memoryLimitMb',
  );

export type BuildResources = z.output<typeof buildResourcesSchema>;

export const defaultBuildResources: BuildResources = buildResourcesSchema.parse({});
