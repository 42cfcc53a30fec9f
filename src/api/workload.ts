// Pod-level shapes a Deployment may add to its workloads. The interface spells them as Kubernetes does
// (camelCase, on the wire too), and passes the Kubernetes-defined members through as free-form maps.
import { z } from 'zod';
import { keepKeys } from './wire.ts';
import { isUserContainerName, ownContainerMessage, userContainerNameRule } from './own-containers.ts';

const freeForm = (description: string) => z.record(z.string(), z.unknown()).describe(description);

export const envVarSchema = keepKeys(
  z
    .object({
      name: z.string().min(1).max(256).describe('Name of the environment variable.'),
      value: z.string().max(32768).optional().describe('Value of the environment variable.'),
      valueFrom: freeForm('Source of the value (a Kubernetes EnvVarSource: secretKeyRef, configMapKeyRef, fieldRef...).').optional(),
    })
    .describe('An environment variable of a container.'),
);
export type EnvVar = z.infer<typeof envVarSchema>;

export const volumeMountSchema = keepKeys(
  z
    .object({
      name: z.string().min(1).max(253).describe('Name of the volume to mount.'),
      mountPath: z.string().min(1).max(4096).describe('Path in the container where the volume is mounted.'),
      subPath: z.string().max(4096).optional().describe('Path inside the volume to mount instead of its root.'),
      mountPropagation: z
        .enum(['None', 'HostToContainer', 'Bidirectional'])
        .optional()
        .describe('How mounts propagate between host and container: None, HostToContainer or Bidirectional.'),
      readOnly: z.boolean().optional().describe('Mount the volume read-only.'),
      subPathExpr: z.string().max(4096).optional().describe('Like subPath, with $(VAR) references expanded from the environment.'),
    })
    .describe('A volume mounted into a container.'),
);
export type VolumeMount = z.infer<typeof volumeMountSchema>;

const volumeSourceNames = ['configMap', 'secret', 'emptyDir', 'persistentVolumeClaim', 'nfs', 'projected', 'downwardAPI', 'csi'] as const;

export const volumeSchema = keepKeys(
  z
    .object({
      name: z.string().min(1).max(63).describe('Name of the volume, referred to by volumeMounts.'),
      configMap: freeForm('A ConfigMap as a volume (Kubernetes ConfigMapVolumeSource).').optional(),
      secret: freeForm('A Secret as a volume (Kubernetes SecretVolumeSource).').optional(),
      emptyDir: freeForm('An empty directory that lives as long as the pod (Kubernetes EmptyDirVolumeSource).').optional(),
      persistentVolumeClaim: freeForm('A PersistentVolumeClaim (Kubernetes PersistentVolumeClaimVolumeSource).').optional(),
      nfs: freeForm('An NFS export (Kubernetes NFSVolumeSource).').optional(),
      projected: freeForm('Several sources projected into one directory (Kubernetes ProjectedVolumeSource).').optional(),
      downwardAPI: freeForm('Pod metadata as files (Kubernetes DownwardAPIVolumeSource).').optional(),
      csi: freeForm('A CSI driver volume (Kubernetes CSIVolumeSource).').optional(),
    })
    .describe('A volume of the pod: a name and exactly one source.')
    .meta({
      'x-kubernetes-validations': [
        {
          rule: `[${volumeSourceNames.map((n) => `has(self.${n})`).join(', ')}].filter(x, x).size() <= 1`,
          message: `a volume has at most one source among ${volumeSourceNames.join(', ')}`,
        },
      ],
    }),
);
export type Volume = z.infer<typeof volumeSchema>;

/**
 * The capabilities a container may add under the Pod Security Standards' baseline level: the container
 * runtime's defaults. Anything else (NET_ADMIN, SYS_ADMIN, ...) reaches the node.
 */
export const baselineCapabilities = [
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
] as const;

const profileSchema = (what: string) =>
  keepKeys(
    z
      .object({
        type: z
          .enum(['RuntimeDefault', 'Localhost'])
          .describe(`Kind of ${what} profile: RuntimeDefault or Localhost (Unconfined is not allowed).`),
        localhostProfile: z.string().max(4096).optional().describe('The profile on the node, for Localhost.'),
      })
      .describe(`The container's ${what} profile.`),
  );

/**
 * A container's security options, within the Pod Security Standards' baseline level: what baseline forbids
 * (privileged, added capabilities beyond the runtime's defaults, an Unconfined seccomp or AppArmor profile,
 * an unmasked /proc, SELinux options) is not a member, or is refused by a rule, at `kubectl apply` and in
 * the HTTP API alike.
 */
export const securityContextSchema = keepKeys(
  z
    .object({
      privileged: z.boolean().optional().describe('Must be false or absent: a privileged container is root on the node.'),
      allowPrivilegeEscalation: z
        .boolean()
        .optional()
        .describe('Whether a process may gain more privileges than its parent (no_new_privs unset).'),
      capabilities: keepKeys(
        z
          .object({
            add: z
              .array(z.enum(baselineCapabilities).describe('A capability the container runtime grants by default.'))
              .max(16)
              .optional()
              .describe(`Capabilities to add, among ${baselineCapabilities.join(', ')}.`),
            drop: z
              .array(z.string().max(64).describe('A capability, or ALL.'))
              .max(64)
              .optional()
              .describe('Capabilities to drop (ALL for every one).'),
          })
          .describe('Linux capabilities to add or drop.'),
      ).optional(),
      runAsUser: z.number().int().min(0).optional().describe('User ID the container runs as.'),
      runAsGroup: z.number().int().min(0).optional().describe('Group ID the container runs as.'),
      runAsNonRoot: z.boolean().optional().describe('Refuse to start the container as root.'),
      readOnlyRootFilesystem: z.boolean().optional().describe('Mount the root filesystem read-only.'),
      seccompProfile: profileSchema('seccomp').optional(),
      appArmorProfile: profileSchema('AppArmor').optional(),
    })
    .describe("Security options of the container (a Kubernetes SecurityContext within the Pod Security Standards' baseline level).")
    .meta({
      'x-kubernetes-validations': [
        {
          rule: '!has(self.privileged) || !self.privileged',
          message: 'privileged containers are not allowed: the Pod Security Standards baseline level forbids them',
          fieldPath: '.privileged',
          reason: 'FieldValueForbidden',
        },
      ],
    }),
);
export type SecurityContext = z.infer<typeof securityContextSchema>;

export const containerSchema = keepKeys(
  z
    .object({
      name: z
        .string()
        .min(1)
        .max(63)
        .refine(isUserContainerName, { message: ownContainerMessage })
        .describe(
          'Name of the container, unique within the pod and none of the names Berth gives its own (app, queue, pre-deploy, wait-for-*).',
        )
        .meta({ 'x-kubernetes-validations': [userContainerNameRule] }),
      image: z.string().min(1).max(1024).describe('Container image address.'),
      imagePullPolicy: z
        .enum(['Always', 'IfNotPresent', 'Never'])
        .optional()
        .describe('When to pull the image: Always, IfNotPresent or Never.'),
      command: z
        .array(z.string().max(32768).describe('One word of the entrypoint.'))
        .max(256)
        .optional()
        .describe('Entrypoint, replacing the image ENTRYPOINT.'),
      args: z.array(z.string().max(32768).describe('One argument.')).max(256).optional().describe('Arguments, replacing the image CMD.'),
      workingDir: z.string().max(4096).optional().describe('Working directory of the container.'),
      env: z.array(envVarSchema).max(256).optional().describe('Environment variables of the container.'),
      envFrom: z
        .array(z.record(z.string(), z.unknown()).describe('A Kubernetes EnvFromSource (configMapRef, secretRef, prefix).'))
        .max(64)
        .optional()
        .describe('Sources of environment variables (Kubernetes EnvFromSource objects).'),
      resources: keepKeys(
        z
          .object({
            limits: freeForm('Most of each resource the container may use, e.g. {"cpu": "1", "memory": "512Mi"}.').optional(),
            requests: freeForm('Resources reserved for the container, e.g. {"cpu": "250m", "memory": "256Mi"}.').optional(),
          })
          .describe('Compute resources of the container.'),
      ).optional(),
      volumeMounts: z.array(volumeMountSchema).max(64).optional().describe('Volumes mounted into the container.'),
      securityContext: securityContextSchema.optional(),
      restartPolicy: z
        .string()
        .max(32)
        .optional()
        .describe('Restart policy of an init container; Always makes it a native sidecar that runs beside the app.'),
    })
    .describe('A container added to the pod (an init container or a sidecar).'),
);
export type Container = z.infer<typeof containerSchema>;

// The shapes above keep their keys on the wire (keepKeys): Wire<T> (wire.ts) knows them by these types.
declare module './wire.ts' {
  interface KeptKeyShapes {
    envVar: EnvVar;
    volumeMount: VolumeMount;
    volume: Volume;
    securityContext: SecurityContext;
    container: Container;
  }
}
