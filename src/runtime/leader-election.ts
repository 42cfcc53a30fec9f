// Leader election on a coordination.k8s.io/v1 Lease, following client-go's rules: a lease is taken
// over only when its holder has not renewed it for leaseDuration as observed on our own clock (so
// clock skew between replicas does not matter); a leader that cannot renew within renewDeadline
// steps down at once, before anyone may take over; stopping releases the lease so a standby takes
// over on its next retry instead of waiting out the lease.
import type { KubeConfig } from '@kubernetes/client-node';
import { sleep, withJitter } from './backoff.ts';
import type { Logger } from './logger.ts';
import { isKubeApiError, kubeRequest } from './kube-request.ts';

export interface LeaderElectionConfig {
  leaseName: string;
  namespace: string;
  /** Unique per replica; default `<hostname>_<random>`. */
  identity: string;
  /** Default 15 s. */
  leaseDurationMs?: number;
  /** Default 10 s; must be shorter than the lease duration. */
  renewDeadlineMs?: number;
  /** Default 2 s. */
  retryPeriodMs?: number;
}

export interface LeaderCallbacks {
  onStartedLeading: () => void;
  onStoppedLeading: () => void;
}

interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number;
}

interface Lease {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec?: LeaseSpec;
}

/** MicroTime wants six fractional digits. */
function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class LeaderElector {
  readonly #kc: KubeConfig;
  readonly #config: Required<LeaderElectionConfig>;
  readonly #callbacks: LeaderCallbacks;
  readonly #logger: Logger;
  readonly #abort = new AbortController();
  #leading = false;
  #known = false;
  #loop: Promise<void> | undefined;
  #deadline: NodeJS.Timeout | undefined;
  #observedRecord = '';
  #observedAt = 0;
  #observedExpiresAt = 0;
  /** When we last read (or wrote) the lease, on our clock. */
  #lastReadAt = 0;

  constructor(kc: KubeConfig, config: LeaderElectionConfig, callbacks: LeaderCallbacks, logger: Logger) {
    this.#kc = kc;
    this.#config = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, ...config };
    if (this.#config.renewDeadlineMs >= this.#config.leaseDurationMs)
      throw new Error('leader election: renewDeadline must be shorter than leaseDuration');
    if (this.#config.retryPeriodMs >= this.#config.renewDeadlineMs)
      throw new Error('leader election: retryPeriod must be shorter than renewDeadline');
    // A follower dates a change it sees to its previous read (see #observe): a leader must have
    // stepped down (renewDeadline) before the lease can look expired that much early.
    if (this.#config.renewDeadlineMs + this.#config.retryPeriodMs * 1.2 > this.#config.leaseDurationMs) {
      throw new Error('leader election: renewDeadline plus a jittered retryPeriod must not exceed leaseDuration');
    }
    this.#callbacks = callbacks;
    this.#logger = logger.child({ lease: `${config.namespace}/${config.leaseName}`, identity: config.identity });
  }

  get isLeader(): boolean {
    return this.#leading;
  }

  /** True once we know whether we lead: the lease has been read or written at least once. */
  get leadershipKnown(): boolean {
    return this.#known;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Stops competing; a leader releases the lease. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#loop;
    if (this.#leading) {
      await this.#release().catch((error: unknown) => this.#logger.warn({ err: String(error) }, 'could not release the lease'));
      this.#stepDown('stopped');
    }
  }

  async #run(): Promise<void> {
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      let renewed = false;
      try {
        renewed = await this.#tryAcquireOrRenew();
      } catch (error) {
        if (!signal.aborted) this.#logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'lease request failed');
      }
      if (signal.aborted) break;
      if (renewed) {
        this.#armRenewDeadline();
        if (!this.#leading) {
          this.#leading = true;
          this.#logger.info('became leader');
          this.#callbacks.onStartedLeading();
        }
      } else if (this.#leading && this.#heldByOther()) {
        this.#stepDown('the lease is held by another replica');
      }
      const period = this.#config.retryPeriodMs;
      await sleep(this.#leading ? period : Math.min(withJitter(period * 1.2), this.#untilObservedExpiry()), signal);
    }
  }

  /** A follower tries again the moment the lease it saw another replica hold expires, not up to a
   * retry period later: a dead leader's successor takes over leaseDuration after the last renewal it
   * observed. */
  #untilObservedExpiry(): number {
    if (!this.#heldByOther()) return Infinity;
    return Math.max(0, this.#observedExpiresAt - Date.now()) + 10;
  }

  #heldByOther(): boolean {
    const record = this.#observedRecord ? (JSON.parse(this.#observedRecord) as LeaseSpec) : {};
    return Boolean(record.holderIdentity) && record.holderIdentity !== this.#config.identity;
  }

  /** A leader that has not renewed for renewDeadline stops leading, whatever its requests are doing. */
  #armRenewDeadline(): void {
    clearTimeout(this.#deadline);
    this.#deadline = setTimeout(
      () => this.#stepDown(`lease not renewed within ${this.#config.renewDeadlineMs} ms`),
      this.#config.renewDeadlineMs,
    );
  }

  #stepDown(why: string): void {
    clearTimeout(this.#deadline);
    if (!this.#leading) return;
    this.#leading = false;
    this.#logger.warn({ why }, 'stopped leading');
    this.#callbacks.onStoppedLeading();
  }

  #path(name?: string): string {
    const base = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.#config.namespace)}/leases`;
    return name ? `${base}/${encodeURIComponent(name)}` : base;
  }

  /**
   * Records what the lease says, dated on our own clock (never the holder's renewTime: clocks differ).
   * A change is dated to our previous read, the earliest moment it can have happened, but never more
   * than one jittered retry period back (after failed reads the previous one is older): a follower that
   * reads every retry period would otherwise add up to a period to every takeover. Safe because the
   * holder stops leading renewDeadline after its last renewal, which is less than leaseDuration minus
   * that period (checked in the constructor).
   */
  #observe(spec: LeaseSpec): void {
    const now = Date.now();
    const record = JSON.stringify({
      holderIdentity: spec.holderIdentity ?? '',
      renewTime: spec.renewTime ?? '',
      leaseTransitions: spec.leaseTransitions ?? 0,
    });
    if (record !== this.#observedRecord) {
      const first = this.#observedRecord === '' || this.#lastReadAt === 0;
      this.#observedAt = first ? now : Math.max(this.#lastReadAt, now - this.#config.retryPeriodMs * 1.2);
      this.#observedRecord = record;
    }
    this.#lastReadAt = now;
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const now = new Date();
    const timeoutMs = this.#config.renewDeadlineMs;
    const durationSeconds = Math.max(1, Math.ceil(this.#config.leaseDurationMs / 1000));
    let lease: Lease;
    try {
      lease = await kubeRequest<Lease>(this.#kc, {
        method: 'GET',
        path: this.#path(this.#config.leaseName),
        timeoutMs,
        signal: this.#abort.signal,
      });
    } catch (error) {
      if (!isKubeApiError(error, 404)) throw error;
      const spec: LeaseSpec = {
        holderIdentity: this.#config.identity,
        leaseDurationSeconds: durationSeconds,
        acquireTime: microTime(now),
        renewTime: microTime(now),
        leaseTransitions: 0,
      };
      try {
        await kubeRequest(this.#kc, {
          method: 'POST',
          path: this.#path(),
          body: {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name: this.#config.leaseName, namespace: this.#config.namespace },
            spec,
          },
          timeoutMs,
          signal: this.#abort.signal,
        });
      } catch (createError) {
        this.#known = true;
        if (isKubeApiError(createError, 409)) return false;
        throw createError;
      }
      this.#known = true;
      this.#observe(spec);
      return true;
    }
    const spec = lease.spec ?? {};
    this.#observe(spec);
    this.#known = true;
    const holder = spec.holderIdentity ?? '';
    const ours = holder === this.#config.identity;
    const expiresAt = this.#observedAt + (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
    this.#observedExpiresAt = expiresAt;
    if (holder && !ours && expiresAt > Date.now()) return false;
    const next: LeaseSpec = {
      holderIdentity: this.#config.identity,
      leaseDurationSeconds: durationSeconds,
      acquireTime: ours ? (spec.acquireTime ?? microTime(now)) : microTime(now),
      renewTime: microTime(now),
      leaseTransitions: ours ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + (holder ? 1 : 0),
    };
    try {
      await kubeRequest(this.#kc, {
        method: 'PUT',
        path: this.#path(this.#config.leaseName),
        body: { ...lease, spec: next },
        timeoutMs,
        signal: this.#abort.signal,
      });
    } catch (error) {
      // Someone else wrote the lease between our read and write: they won this round.
      if (isKubeApiError(error, 409)) return false;
      throw error;
    }
    this.#observe(next);
    return true;
  }

  /** Clears the holder and shortens the lease to 1 s so a standby takes over on its next retry. */
  async #release(): Promise<void> {
    const lease = await kubeRequest<Lease>(this.#kc, {
      method: 'GET',
      path: this.#path(this.#config.leaseName),
      timeoutMs: this.#config.renewDeadlineMs,
    });
    if (lease.spec?.holderIdentity !== this.#config.identity) return;
    const now = microTime(new Date());
    await kubeRequest(this.#kc, {
      method: 'PUT',
      path: this.#path(this.#config.leaseName),
      body: { ...lease, spec: { ...lease.spec, holderIdentity: null, leaseDurationSeconds: 1, renewTime: now, acquireTime: now } },
      timeoutMs: this.#config.renewDeadlineMs,
    });
  }
}
