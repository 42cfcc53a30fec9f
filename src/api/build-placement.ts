// Where builds run (chart values builder.nodeSelector and builder.tolerations, flag --build-placement):
// a platform team may keep builds, which run privileged, on nodes of their own, away from the apps.
// Each build Job's pod gets the node selector and tolerations as written.
import { z } from 'zod';

const labelKey = z.string().min(1).max(317);

export const buildPlacementSchema = z
  .object({
    nodeSelector: z.record(labelKey, z.string().max(63)).optional().describe('Labels a node must have to run a build.'),
    tolerations: z
      .array(
        z
          .object({
            key: labelKey.optional(),
            operator: z.enum(['Exists', 'Equal']).optional(),
            value: z.string().max(63).optional(),
            effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
            tolerationSeconds: z.number().int().optional(),
          })
          .strict(),
      )
      .max(16)
      .optional()
      .describe('Taints of those nodes that builds tolerate (Kubernetes Tolerations).'),
  })
  .strict();

export type BuildPlacement = z.output<typeof buildPlacementSchema>;
