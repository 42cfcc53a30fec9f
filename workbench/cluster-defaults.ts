// What the cluster Berth runs against offers it, beside its flags: under `berth dev`, the embedded node's
// registry, images, URLs and parts (workbench/node/parts.ts). Types only.
import type { Activator } from '../src/api/activator.ts';
import type { TlsIssuer } from '../src/api/app-tls.ts';

/** What the cluster Berth runs against offers: the embedded node's registry and images in `berth dev`. */
export interface ClusterDefaults {
  registry?: string;
  postgresImage?: string;
  /** What CloudNativePG runs a database's instances from, and the StorageClass of their volumes, which
   * uid 26 can write (the node's Postgres operator). */
  cnpgPostgresImage?: string;
  cnpgStorageClass?: string;
  redisImage?: string;
  builderImage?: string;
  gitImage?: string;
  buildToolsImage?: string;
  agentToolsImage?: string;
  /** The durable agent server's base image (the node's, built from PyPI). */
  agentServerImage?: string;
  /** The registry for pushed images (`berth dev` starts one once Berth answers). */
  pushRegistry?: string;
  /** The node's address, where the HTTP API also listens for the node and its pods (the registry's realm). */
  nodeHost?: string;
  /** Deployments' own URLs and the Gateway that routes them (the node's, under `berth dev`). */
  appUrlTemplate?: string;
  gateway?: { namespace: string; name: string };
  /** The issuer of the apps' certificates, for an https:// template (the node's local CA). */
  tlsIssuer?: TlsIssuer;
  /** The Prometheus-compatible server KEDA reads apps' request concurrency from (the node's). */
  concurrencyMetrics?: string;
  /** The request-driven activator that lets dev_zero apps scale to zero (the node's KEDA HTTP add-on). */
  activator?: Activator;
  /** Why builds cannot start yet (the node's builder is being built): build Jobs wait until it is gone. */
  awaitedBuilder?: string;
  /** The S3-compatible server for organizations' backups, its admin API (on the host's loopback, out of
   * pods' reach) and its admin credential (the node's versitygw). */
  backupStore?: { url: string; adminUrl: string; credentials: { accessKeyId: string; secretAccessKey: string } };
  /** Networks builds may not reach (`berth dev`: the node's pod network too, beside link-local addresses). */
  buildBlockedCidrs?: readonly string[];
  /** Code hosts the cluster itself serves, allowed beside the public ones (`berth dev`: its node's address). */
  codeHostOrigins?: readonly string[];
}
