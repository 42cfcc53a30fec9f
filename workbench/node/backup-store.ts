// The node's backup store: versitygw (scripts/build-versitygw.sh) on the node's address, its buckets and
// accounts under the node's data directory, its admin credential made once and kept there (readable by
// its owner only), so a restart keeps every organization's account and backups.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { cachedBuild } from '../cache-dir.ts';
import { eventually } from '../support/poll.ts';
import type { V1Secret } from '@kubernetes/client-node';
import { backupStoreAdminKeys } from '../../src/api/backup-store.ts';
import { nodeIp } from './network.ts';

export const backupStoreAddress = { host: nodeIp, port: 7070 };
export const backupStoreUrl = `http://${backupStoreAddress.host}:${backupStoreAddress.port}`;
/** Its admin API, apart from the S3 port (which then serves none of it): on the host's loopback, where
 * Berth runs and no pod reaches. */
export const backupStoreAdminAddress = { host: '127.0.0.1', port: 7071 };
export const backupStoreAdminUrl = `http://${backupStoreAdminAddress.host}:${backupStoreAdminAddress.port}`;

export interface BackupStoreCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** The store's directories, made if missing, and its admin credential, made once. */
export function prepareBackupStore(root: string): { dirs: { iam: string; buckets: string }; credentials: BackupStoreCredentials } {
  const dirs = { iam: join(root, 'iam'), buckets: join(root, 'buckets') };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(root, 'admin.json');
  if (!existsSync(file)) {
    const made = { accessKeyId: `admin-${randomBytes(6).toString('hex')}`, secretAccessKey: randomBytes(30).toString('base64url') };
    writeFileSync(file, JSON.stringify(made), { mode: 0o600 });
  }
  return { dirs, credentials: JSON.parse(readFileSync(file, 'utf8')) as BackupStoreCredentials };
}

/** Where a versitygw listens: its S3 API, and its admin API apart. */
export interface BackupStoreListeners {
  s3: { host: string; port: number };
  admin: { host: string; port: number };
}

/** The node's store: S3 on the node's address, its admin API on the host's loopback. */
export const nodeBackupStoreListeners: BackupStoreListeners = { s3: backupStoreAddress, admin: backupStoreAdminAddress };

/** versitygw's arguments: S3 and its admin API where `listeners` say (the node's store's by default),
 * quiet, the internal IAM and the posix backend. */
export function backupStoreArgs(dirs: { iam: string; buckets: string }, listeners = nodeBackupStoreListeners): string[] {
  return [
    ...['--port', `${listeners.s3.host}:${listeners.s3.port}`],
    ...['--admin-port', `${listeners.admin.host}:${listeners.admin.port}`],
    ...['--quiet', '--iam-dir', dirs.iam, 'posix', dirs.buckets],
  ];
}

/** Its environment: the admin credential, never on the command line. */
export function backupStoreEnvironment(credentials: BackupStoreCredentials): NodeJS.ProcessEnv {
  return { ...process.env, ROOT_ACCESS_KEY: credentials.accessKeyId, ROOT_SECRET_KEY: credentials.secretAccessKey };
}

/** The Secret in Berth's namespace that names the admin credential to Berth (--backup-store-secret). */
export function backupStoreAdminSecret(namespace: string, name: string, credentials: BackupStoreCredentials): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { namespace, name },
    type: 'Opaque',
    stringData: {
      [backupStoreAdminKeys.accessKeyId]: credentials.accessKeyId,
      [backupStoreAdminKeys.secretAccessKey]: credentials.secretAccessKey,
    },
  };
}

/** A versitygw a test starts apart from the node's (which the node supervises): its store in `root`,
 * listening where `listeners` say, its admin credential made there; it answers before this returns.
 * The caller kills `server` and removes `root`. */
export async function startBackupStore(
  root: string,
  listeners: BackupStoreListeners,
): Promise<{ server: ChildProcess; credentials: BackupStoreCredentials; url: string; adminUrl: string }> {
  const { dirs, credentials } = prepareBackupStore(root);
  const server = spawn(join(cachedBuild('versitygw'), 'versitygw'), backupStoreArgs(dirs, listeners), {
    env: backupStoreEnvironment(credentials),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  server.once('error', (error) => console.error(`versitygw did not start: ${error.message}`));
  const url = `http://${listeners.s3.host}:${listeners.s3.port}`;
  await eventually(
    async () => (await fetch(url).catch(() => undefined)) !== undefined || undefined,
    20_000,
    `versitygw answering at ${url}`,
  );
  return { server, credentials, url, adminUrl: `http://${listeners.admin.host}:${listeners.admin.port}` };
}
