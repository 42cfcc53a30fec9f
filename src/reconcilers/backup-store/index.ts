// The backup store controller: every organization namespace gets an account and a bucket of its own on
// the installation's S3-compatible server (src/api/backup-store.ts), and the Secret berth-backups with
// their keys; a namespace that stops being an organization loses its account and its Secret, and an
// account whose namespace is gone is removed at the next namespace deletion Berth sees (its bucket, and
// the backups in it, stay for the platform to delete). A Secret that already names the namespace's
// account, bucket and server is left as it is once its keys reach the bucket (one read on the server per
// pass): a pass at rest writes nothing, here or there. Keys the server refuses (it lost the account, or
// holds another secret for it) are made anew, and a lost bucket is made again for the same account.
import { randomBytes } from 'node:crypto';
import type { V1Namespace, V1Secret } from '@kubernetes/client-node';
import {
  backupStoreAdminKeys,
  backupStoreNameOf,
  backupStoreNamePrefix,
  backupStoreSecretKeys,
  backupStoreSecretName,
  fieldManager,
  managedSecretLabels,
} from '../../api/index.ts';
import {
  applyObject,
  decodeSecretValue,
  deleteObject,
  labelSelectorOf,
  secretKind,
  type Controller,
  type DeepReadonly,
  type Manager,
} from '../../runtime/index.ts';
import {
  accountState,
  deleteAccount,
  listAccounts,
  putAccount,
  putBucket,
  type BackupStoreAdmin,
} from '../../backup-store/admin-client.ts';
import { isOrganization, namespaceKind } from '../organization/index.ts';

export interface BackupStoreControllerOptions {
  /** The server's URL, as Berth and the organizations' pods reach it. */
  url: string;
  /** Where Berth reaches its admin API: the same URL, or a port of its own out of the pods' reach. */
  adminUrl: string;
  /** The platform's Secret with the server's admin credential (backupStoreAdminKeys). */
  adminSecret: { namespace: string; name: string };
  /** Only these namespaces (Berth's --watch-namespaces). Default: all. */
  namespaces?: string[];
}

const secretLabels = { ...managedSecretLabels, 'app.kubernetes.io/component': 'backup-store' };
const secretSelector = labelSelectorOf(secretLabels);

/** What the namespace's Secret should say, but the secret key, which only a new account sets. */
function wantedReach(uid: string, url: string): Record<string, string> {
  const name = backupStoreNameOf(uid);
  return {
    [backupStoreSecretKeys.accessKeyId]: name,
    [backupStoreSecretKeys.bucket]: name,
    [backupStoreSecretKeys.endpoint]: url,
  };
}

/** Whether the Secret reaches the account, bucket and server wanted, with a secret key beside them. Pure. */
export function secretReaches(secret: DeepReadonly<V1Secret> | undefined, wanted: Record<string, string>): boolean {
  const data = secret?.data ?? {};
  return (
    Boolean(data[backupStoreSecretKeys.secretAccessKey]) &&
    Object.entries(wanted).every(([key, value]) => decodeSecretValue(data[key]) === value)
  );
}

/** The account the Secret holds the keys of, as its checks are signed. */
function accountOf(secret: DeepReadonly<V1Secret>, url: string): BackupStoreAdmin {
  const read = (key: string) => decodeSecretValue(secret.data?.[key]) ?? '';
  return {
    url,
    credentials: { accessKeyId: read(backupStoreSecretKeys.accessKeyId), secretAccessKey: read(backupStoreSecretKeys.secretAccessKey) },
  };
}

function renderSecret(namespace: string, reach: Record<string, string>, secretAccessKey: string): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { namespace, name: backupStoreSecretName, labels: { ...secretLabels } },
    type: 'Opaque',
    stringData: { ...reach, [backupStoreSecretKeys.secretAccessKey]: secretAccessKey },
  };
}

export function registerBackupStoreController(manager: Manager, options: BackupStoreControllerOptions): Controller {
  const scope = options.namespaces ? { namespaces: options.namespaces } : {};
  const namespaces = manager.informer<V1Namespace>(namespaceKind);
  const secrets = manager.informer<V1Secret>(secretKind, { ...scope, labelSelector: secretSelector });
  const adminSecrets = manager.informer<V1Secret>(secretKind, { namespaces: [options.adminSecret.namespace] });
  const admin = (): BackupStoreAdmin => {
    const data = adminSecrets.get(options.adminSecret.namespace, options.adminSecret.name)?.data ?? {};
    const accessKeyId = decodeSecretValue(data[backupStoreAdminKeys.accessKeyId]);
    const secretAccessKey = decodeSecretValue(data[backupStoreAdminKeys.secretAccessKey]);
    if (!accessKeyId || !secretAccessKey)
      throw new Error(
        `Secret ${options.adminSecret.namespace}/${options.adminSecret.name} needs keys ${backupStoreAdminKeys.accessKeyId} and ${backupStoreAdminKeys.secretAccessKey}: the backup store's admin credential`,
      );
    return { url: options.adminUrl, credentials: { accessKeyId, secretAccessKey } };
  };
  /** Accounts of Berth's whose namespace is no longer an organization, removed: any organization of the
   * cluster keeps its own, whichever installation's scope it is in. */
  const sweep = async (): Promise<void> => {
    const live = new Set(
      namespaces
        .list()
        .filter((namespace) => isOrganization(namespace, undefined))
        .map((namespace) => backupStoreNameOf(namespace.metadata!.uid!)),
    );
    const store = admin();
    for (const account of await listAccounts(store))
      if (account.startsWith(backupStoreNamePrefix) && !live.has(account)) await deleteAccount(store, account);
  };
  /** The organization's account, bucket and Secret, made or made again where the store or the Secret
   * lacks them. */
  const keepAccount = async (namespace: string, uid: string, current: DeepReadonly<V1Secret> | undefined): Promise<void> => {
    const reach = wantedReach(uid, options.url);
    const [account, bucket] = [reach[backupStoreSecretKeys.accessKeyId]!, reach[backupStoreSecretKeys.bucket]!];
    const state = secretReaches(current, reach) ? await accountState(accountOf(current!, options.url), bucket) : 'keysMissing';
    if (state === 'reached') return;
    const store = admin();
    if (state === 'bucketMissing') return putBucket(store, bucket, account);
    const secretAccessKey = randomBytes(30).toString('base64url');
    await putAccount(store, account, secretAccessKey);
    await putBucket(store, bucket, account);
    await applyObject(manager.kubeConfig, renderSecret(namespace, reach, secretAccessKey), fieldManager);
  };
  return manager.addController({
    name: 'backup-store',
    informer: namespaces,
    watches: [{ informer: secrets, map: (secret) => [{ namespace: '', name: secret.metadata?.namespace ?? '' }] }],
    reconcile: async ({ name }) => {
      if (options.namespaces && !options.namespaces.includes(name)) return;
      const namespace = namespaces.get('', name);
      const uid = namespace?.metadata?.uid;
      const current = secrets.get(name, backupStoreSecretName);
      if (isOrganization(namespace, options.namespaces)) return keepAccount(name, uid!, current);
      // Only the namespace's own account: a Secret's words never name which account goes.
      if (current && uid) await deleteAccount(admin(), backupStoreNameOf(uid));
      if (current) await deleteObject(manager.kubeConfig, secretKind, { namespace: name, name: backupStoreSecretName });
      if (!namespace) await sweep();
    },
  });
}
