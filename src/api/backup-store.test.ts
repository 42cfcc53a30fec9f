import { describe, expect, it } from 'vitest';
import { backupStoreEndpointOf } from './backup-store.ts';

describe("the backup store's endpoint", () => {
  it("is the URL's host and port, the scheme's port when it names none, an IPv6 address without brackets", () => {
    expect(backupStoreEndpointOf('http://10.243.0.1:7070')).toEqual({ host: '10.243.0.1', port: 7070 });
    expect(backupStoreEndpointOf('https://s3.backups.example')).toEqual({ host: 's3.backups.example', port: 443 });
    expect(backupStoreEndpointOf('http://s3.backups.example/')).toEqual({ host: 's3.backups.example', port: 80 });
    expect(backupStoreEndpointOf('http://[fd00::7]:9000')).toEqual({ host: 'fd00::7', port: 9000 });
  });
});
