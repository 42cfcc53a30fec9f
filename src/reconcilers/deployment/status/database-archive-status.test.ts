import { describe, expect, it } from 'vitest';
import { databaseArchiving } from './database-archive-status.ts';

const archive = { objectStore: 'shop-postgres', serverName: 'uid-1' };
const reach = { bucket: 'berth-org', endpoint: 'http://store:7070' };
const cluster = (conditions: object[]) => ({ apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster', status: { conditions } });

describe("a CloudNativePG database's archive, as its Deployment says it", () => {
  it('is True once CloudNativePG says its WAL is archived, naming the bucket and the server name', () => {
    expect(databaseArchiving(cluster([{ type: 'ContinuousArchiving', status: 'True' }]), archive, reach)).toEqual({
      type: 'DatabaseArchiving',
      status: 'True',
      reason: 'Archiving',
      message: "Its WAL is archived into the organization's bucket berth-org (server name uid-1).",
    });
  });

  it("is False with CloudNativePG's reason and words when archiving fails", () => {
    const failing = cluster([
      { type: 'ContinuousArchiving', status: 'False', reason: 'ContinuousArchivingFailing', message: 'access denied' },
    ]);
    expect(databaseArchiving(failing, archive, reach)).toMatchObject({
      status: 'False',
      reason: 'ContinuousArchivingFailing',
      message: expect.stringContaining('access denied'),
    });
  });

  it('is Unknown, with no Warning to give, until the first segment is archived', () => {
    expect(databaseArchiving(undefined, archive, reach)).toMatchObject({ status: 'Unknown', reason: 'ArchiveStarting' });
    expect(databaseArchiving(cluster([]), archive, reach)).toMatchObject({ status: 'Unknown' });
  });
});
