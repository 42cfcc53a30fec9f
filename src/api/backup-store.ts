// An organization's backup store: one account and one bucket of its own on the installation's
// S3-compatible server, both named by the organization namespace's uid (a namespace made again under
// the same name never meets the old one's backups), and one Secret in the namespace with what reaches
// them. Only Berth holds the server's admin credential. Pure.

/** The Secret in an organization namespace that holds its backup store's keys. */
export const backupStoreSecretName = 'berth-backups';

/** The Secret's keys: the account's two, its bucket and the server's URL. */
export const backupStoreSecretKeys = {
  accessKeyId: 'ACCESS_KEY_ID',
  secretAccessKey: 'ACCESS_SECRET_KEY',
  bucket: 'BUCKET',
  endpoint: 'ENDPOINT',
} as const;

/** The keys of the platform's Secret, in Berth's namespace, with the server's admin credential. */
export const backupStoreAdminKeys = { accessKeyId: 'accessKeyId', secretAccessKey: 'secretAccessKey' } as const;

/** The prefix of every account and bucket Berth makes: what is not its own on the server, it never touches. */
export const backupStoreNamePrefix = 'berth-';

/** An organization's account (its access key id) and its bucket: one name, from the namespace's uid
 * (36 characters: a bucket name of 42, within S3's 63, lower case). */
export function backupStoreNameOf(namespaceUid: string): string {
  return `${backupStoreNamePrefix}${namespaceUid.toLowerCase()}`;
}

/** Where organizations' pods reach the store: its URL's host (an address or a name, without IPv6's
 * brackets) and TCP port (the scheme's when the URL names none). */
export function backupStoreEndpointOf(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
  return { host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}
