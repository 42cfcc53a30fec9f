import { describe, expect, it } from 'vitest';
import type { Deployment, Revision } from '../../../api/index.ts';
import type { DeepReadonly } from '../../../runtime/index.ts';
import { summarize } from '../revisions/revision-records.ts';
import { decideStatus, type PassStatus, type StatusWrite } from './status-decision.ts';
import type { StatusObservation } from './status.ts';

const now = new Date('2026-01-01T00:00:00Z');

function revision(name: string, phase?: string): DeepReadonly<Revision> {
  return {
    apiVersion: 'berth.dev/v1alpha1',
    kind: 'Revision',
    metadata: { name, namespace: 'acme', uid: `uid-${name}`, generation: 1, resourceVersion: '7' },
    spec: { source: 'external_docker', digest: name, sourceRevisionConfig: { imageUri: `${name}:1` } },
    ...(phase ? { status: { status: phase, message: 'before' } } : {}),
  } as DeepReadonly<Revision>;
}

function deployment(status?: Deployment['status'], customUrl?: string): DeepReadonly<Deployment> {
  return {
    apiVersion: 'berth.dev/v1alpha1',
    kind: 'Deployment',
    metadata: { name: 'shop', namespace: 'acme', uid: 'd1', generation: 2, resourceVersion: '9' },
    spec: { source: 'external_docker', sourceConfig: customUrl ? { customUrl } : {}, sourceRevisionConfig: { imageUri: 'b:1' } },
    ...(status ? { status } : {}),
  } as DeepReadonly<Deployment>;
}

const rolledOut: StatusObservation = {
  deleting: false,
  database: 'none',
  scaledToZero: false,
  workloadsAvailable: true,
  workloadsRolledOut: true,
  targetIsActive: true,
  target: { phase: 'DEPLOYED', message: 'The revision is serving.' },
};

const order = (writes: StatusWrite[]) => writes.map((write) => `${write.kind} ${write.object.metadata?.name} ${write.status.status}`);

describe('decideStatus', () => {
  it('writes a phase other than DEPLOYED before the Deployment names the revision, and DEPLOYED after', () => {
    // A rollback: b comes back, still DEPLOYED from its last time; a goes on serving meanwhile.
    const a = summarize(revision('a', 'DEPLOYED'));
    const b = summarize(revision('b', 'DEPLOYED'));
    const deploying: PassStatus = {
      deployment: deployment(),
      observation: { ...rolledOut, targetIsActive: false, target: { phase: 'DEPLOYING', message: 'Rolling out.' } },
      facts: { latest: { name: 'b', uid: 'uid-b' }, active: { name: 'a', uid: 'uid-a' } },
      revisionPhases: [{ revision: b, phase: { phase: 'DEPLOYING', message: 'Rolling out.' } }],
    };
    expect(order(decideStatus(deploying, now).writes)).toEqual(['Revision b DEPLOYING', 'Deployment shop READY']);

    const deployed: PassStatus = {
      ...deploying,
      observation: rolledOut,
      facts: { latest: { name: 'b', uid: 'uid-b' }, active: { name: 'b', uid: 'uid-b', image: 'b:1' } },
      revisionPhases: [
        { revision: summarize(revision('b', 'DEPLOYING')), phase: { phase: 'DEPLOYED', message: 'The revision is serving.' } },
        { revision: a, phase: { phase: 'INTERRUPTED', message: 'Revision b was chosen.' } },
      ],
    };
    const writes = decideStatus(deployed, now).writes;
    expect(order(writes)).toEqual(['Revision a INTERRUPTED', 'Deployment shop READY', 'Revision b DEPLOYED']);
    const deploymentWrite = writes.find((write) => write.kind === 'Deployment');
    expect(deploymentWrite?.kind === 'Deployment' && deploymentWrite.events).toEqual([
      { type: 'Normal', reason: 'RevisionActive', message: 'Revision b is now serving.' },
    ]);
  });

  it('writes nothing, and says nothing, when the stored statuses already say it all', () => {
    const pass: PassStatus = {
      deployment: deployment(),
      observation: rolledOut,
      facts: { latest: { name: 'b', uid: 'uid-b' }, active: { name: 'b', uid: 'uid-b', image: 'b:1' } },
      revisionPhases: [{ revision: summarize(revision('b')), phase: { phase: 'DEPLOYED', message: 'The revision is serving.' } }],
    };
    const first = decideStatus(pass, now).writes;
    const stored = (kind: string) => first.find((write) => write.kind === kind)!.status;
    const again: PassStatus = {
      ...pass,
      deployment: deployment(stored('Deployment') as Deployment['status']),
      revisionPhases: [
        {
          revision: summarize({ ...revision('b'), status: stored('Revision') } as DeepReadonly<Revision>),
          phase: { phase: 'DEPLOYED', message: 'The revision is serving.' },
        },
      ],
    };
    expect(decideStatus(again, new Date('2026-01-01T01:00:00Z')).writes).toEqual([]);
  });

  it('says once that the serving revision crash-loops, and is not Ready while it does', () => {
    const crashing: PassStatus = {
      deployment: deployment(),
      observation: { ...rolledOut, workloadsAvailable: false, crashLooping: { message: 'its pods keep crashing' } },
      facts: {},
      revisionPhases: [],
    };
    const [write] = decideStatus(crashing, now).writes;
    expect(write?.kind === 'Deployment' && write.events.map((event) => event.reason)).toEqual(['CrashLooping']);
    const stored = write!.status as Deployment['status'];
    expect(stored?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'CrashLooping' });
    expect(decideStatus({ ...crashing, deployment: deployment(stored) }, new Date('2026-01-01T00:05:00Z')).writes).toEqual([]);
  });

  it('says a new reason to be stuck once, and a deletion once, without the host it held', () => {
    const stuck: PassStatus = {
      deployment: deployment(undefined, 'https://shop.example.com'),
      observation: { ...rolledOut, problem: { reason: 'SecretNotFound', message: 'Secret shop-secrets is missing.' } },
      facts: {},
      revisionPhases: [],
    };
    const [write] = decideStatus(stuck, now).writes;
    expect(write?.kind === 'Deployment' && write.events.map((event) => event.reason)).toEqual(['SecretNotFound']);
    expect(write?.kind === 'Deployment' && write.status.customHostClaim?.host).toBe('shop.example.com');
    const stored = write!.status as Deployment['status'];
    expect(decideStatus({ ...stuck, deployment: deployment(stored, 'https://shop.example.com') }, now).writes).toEqual([]);

    const deleting = decideStatus(
      { ...stuck, deployment: deployment(stored, 'https://shop.example.com'), observation: { ...rolledOut, deleting: true } },
      now,
    ).writes;
    expect(deleting).toHaveLength(1);
    expect(deleting[0]!.status).toMatchObject({ status: 'AWAITING_DELETE' });
    expect(deleting[0]!.kind === 'Deployment' && deleting[0]!.status.customHostClaim).toBeUndefined();
    expect(deleting[0]!.kind === 'Deployment' && deleting[0]!.events.map((event) => event.reason)).toEqual(['Deleting']);
  });
});
