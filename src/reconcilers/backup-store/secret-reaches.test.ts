import { describe, expect, it } from 'vitest';
import { backupStoreNameOf } from '../../api/index.ts';
import { secretReaches } from './index.ts';

const encoded = (data: Record<string, string>) =>
  Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')]));
const uid = '6F1C2B3A-0D4E-4F5A-8B6C-7D8E9F0A1B2C';
const wanted = { ACCESS_KEY_ID: backupStoreNameOf(uid), BUCKET: backupStoreNameOf(uid), ENDPOINT: 'http://store:7070' };

describe('the backup store Secret', () => {
  it("names an organization's account and bucket by its namespace's uid, in a bucket name S3 takes", () => {
    expect(backupStoreNameOf(uid)).toBe('berth-6f1c2b3a-0d4e-4f5a-8b6c-7d8e9f0a1b2c');
    expect(backupStoreNameOf(uid)).toMatch(/^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/);
  });

  it('is current only when it names the account, bucket and server wanted, with a secret key', () => {
    expect(secretReaches({ data: encoded({ ...wanted, ACCESS_SECRET_KEY: 'k' }) }, wanted)).toBe(true);
    expect(secretReaches(undefined, wanted)).toBe(false);
    expect(secretReaches({ data: encoded(wanted) }, wanted)).toBe(false);
    // Another organization's account, or a server moved: made again.
    expect(secretReaches({ data: encoded({ ...wanted, ACCESS_KEY_ID: 'berth-other', ACCESS_SECRET_KEY: 'k' }) }, wanted)).toBe(false);
    expect(secretReaches({ data: encoded({ ...wanted, ENDPOINT: 'http://old:7070', ACCESS_SECRET_KEY: 'k' }) }, wanted)).toBe(false);
  });
});
