// The backup store's calls: accounts and buckets on versitygw's admin API (its `PATCH` routes,
// s3api/router.go), signed with AWS Signature V4 by the admin credential (aws4), and the check of an
// organization's own keys at its bucket, signed by them. I/O only; every call is bounded in time, and no
// answer's body (list-users carries secrets) reaches a log or an error.
import aws4 from 'aws4';

/** The server and the keys a call is signed with: the admin credential, or an organization's own. */
export interface BackupStoreAdmin {
  /** The server's URL, as Berth reaches it (http or https, no path). */
  url: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
}

/** A refusal by the server: its HTTP status and S3 error code, never its body. */
export class BackupStoreError extends Error {
  readonly status: number;
  readonly code: string | undefined;

  constructor(status: number, code: string | undefined, operation: string) {
    super(`the backup store refused ${operation}: HTTP ${status}${code ? ` ${code}` : ''}`);
    this.status = status;
    this.code = code;
  }
}

const requestTimeoutMs = 10_000;
const region = 'us-east-1';

interface Answer {
  status: number;
  code: string | undefined;
  body: string;
}

/** One signed request: the body's hash is signed with it (S3's X-Amz-Content-Sha256). */
async function call(
  store: BackupStoreAdmin,
  method: string,
  path: string,
  request: { body?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const url = new URL(path, store.url);
  const body = request.body ?? '';
  const signed = aws4.sign(
    { host: url.host, path: `${url.pathname}${url.search}`, method, headers: request.headers ?? {}, body, service: 's3', region },
    store.credentials,
  );
  const response = await fetch(url, {
    method,
    headers: signed.headers as Record<string, string>,
    body: body || undefined,
    signal: AbortSignal.timeout(requestTimeoutMs),
  });
  const text = await response.text();
  return { status: response.status, code: /<Code>([^<]*)<\/Code>/.exec(text)?.[1], body: text };
}

function refusal(answer: Answer, operation: string): BackupStoreError {
  return new BackupStoreError(answer.status, answer.code, operation);
}

const escapeXml = (text: string) => text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** An account of role `user` with these keys: one that cannot make buckets, and reaches only those it owns.
 * An account of the same name is replaced (its old secret is Berth's no longer). */
export async function putAccount(store: BackupStoreAdmin, accessKeyId: string, secretAccessKey: string): Promise<void> {
  const account = `<Account><Access>${escapeXml(accessKeyId)}</Access><Secret>${escapeXml(secretAccessKey)}</Secret><Role>user</Role></Account>`;
  let answer = await call(store, 'PATCH', '/create-user', { body: account });
  if (answer.status === 409 && answer.code === 'XAdminUserExists') {
    await deleteAccount(store, accessKeyId);
    answer = await call(store, 'PATCH', '/create-user', { body: account });
  }
  if (answer.status >= 300) throw refusal(answer, `account ${accessKeyId}`);
}

/** A bucket owned by the account; one that exists already is given to it. */
export async function putBucket(store: BackupStoreAdmin, bucket: string, owner: string): Promise<void> {
  const answer = await call(store, 'PATCH', `/${bucket}/create`, { headers: { 'x-vgw-owner': owner } });
  if (answer.status < 300) return;
  if (answer.status !== 409) throw refusal(answer, `bucket ${bucket}`);
  const query = new URLSearchParams({ bucket, owner });
  const given = await call(store, 'PATCH', `/change-bucket-owner?${query}`);
  if (given.status >= 300) throw refusal(given, `bucket ${bucket}'s owner`);
}

/** The account gone (its keys refused from then on); its bucket and what it holds stay. */
export async function deleteAccount(store: BackupStoreAdmin, accessKeyId: string): Promise<void> {
  const answer = await call(store, 'PATCH', `/delete-user?${new URLSearchParams({ access: accessKeyId })}`);
  if (answer.status >= 300) throw refusal(answer, `the deletion of account ${accessKeyId}`);
}

/** Every account's access key id (their secrets, which the answer carries too, are dropped here). */
export async function listAccounts(store: BackupStoreAdmin): Promise<string[]> {
  const answer = await call(store, 'PATCH', '/list-users');
  if (answer.status >= 300) throw refusal(answer, 'the list of accounts');
  return [...answer.body.matchAll(/<Access>([^<]*)<\/Access>/g)].map((match) => match[1]!);
}

/** What an account's own keys meet at its bucket: reached; refused (the store lost the account, or holds
 * another secret for it); or the bucket gone. */
export type AccountState = 'reached' | 'keysRefused' | 'bucketMissing';

/** The account's keys tried at its bucket, reading nothing (a list of no objects). */
export async function accountState(account: BackupStoreAdmin, bucket: string): Promise<AccountState> {
  const answer = await call(account, 'GET', `/${bucket}?${new URLSearchParams({ 'list-type': '2', 'max-keys': '0' })}`);
  if (answer.status < 300) return 'reached';
  if (answer.status === 403 && (answer.code === 'InvalidAccessKeyId' || answer.code === 'SignatureDoesNotMatch')) return 'keysRefused';
  if (answer.status === 404 && answer.code === 'NoSuchBucket') return 'bucketMissing';
  throw refusal(answer, `the check of bucket ${bucket}`);
}
