/**
 * Leader election through a coordination.k8s.io/v1 Lease (client-go tools/leaderelection with the
 * LeaseLock): acquire when the lease is free or expired, renew every retry period, give up leadership
 * when renewal has failed for the renew deadline. Generic: kube-scheduler uses `kube-system/kube-scheduler`,
 * the controller manager `kube-system/kube-controller-manager`.
 */
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { isApiError } from '../api/errors.js';
import { resources } from '../api/resources.js';
import type { Client } from '../client/client.js';
import { realClock, type Clock, type TimerHandle } from '../client/clock.js';
import { microTime } from '../util/micro-time.js';

export interface LeaderElectorOptions {
  client: Client;
  namespace: string;
  name: string;
  /** This candidate's identity (holderIdentity), e.g. `<hostname>_<uuid>`. */
  identity: string;
  /** Default 15 s. */
  leaseDurationMs?: number;
  /** Default 10 s; must be below the lease duration. */
  renewDeadlineMs?: number;
  /** Default 2 s. */
  retryPeriodMs?: number;
  clock?: Clock;
  onStartedLeading: () => void;
  onStoppedLeading: () => void;
  /** Called when another identity is observed as leader. */
  onNewLeader?: (identity: string) => void;
  /** Release the lease on stop() (`ReleaseOnCancel`), default true. */
  releaseOnCancel?: boolean;
  log?: (message: string, err?: unknown) => void;
}

export class LeaderElector {
  private readonly client: Client;
  private readonly clock: Clock;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private timer: TimerHandle | undefined;
  private running = false;
  private leading = false;
  private lastObserved: Lease | undefined;
  /** Local time the observed record last changed (client-go's observedTime). */
  private observedTime = 0;
  private lastRenewOk = 0;
  private reportedLeader = '';
  private inFlight: Promise<void> | undefined;

  constructor(private readonly opts: LeaderElectorOptions) {
    this.client = opts.client;
    this.clock = opts.clock ?? realClock;
    this.leaseDurationMs = opts.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = opts.retryPeriodMs ?? 2_000;
    if (this.renewDeadlineMs >= this.leaseDurationMs) throw new Error('leaseDuration must be greater than renewDeadline');
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** The holder last observed, or ''. */
  getLeader(): string {
    return this.lastObserved?.spec?.holderIdentity ?? '';
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Stops campaigning; releases the lease if leading (and releaseOnCancel), then onStoppedLeading. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.timer?.cancel();
    this.timer = undefined;
    await this.inFlight;
    if (this.leading) {
      if (this.opts.releaseOnCancel !== false) await this.release();
      this.loseLeadership();
    }
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    this.timer = this.clock.setTimeout(() => {
      this.inFlight = this.tick().finally(() => {
        this.inFlight = undefined;
      });
    }, ms);
  }

  private async tick(): Promise<void> {
    const ok = await this.tryAcquireOrRenew();
    if (!this.running) return;
    const now = this.clock.now();
    if (ok) {
      this.lastRenewOk = now;
      if (!this.leading) {
        this.leading = true;
        this.opts.onStartedLeading();
      }
    } else if (this.leading && now - this.lastRenewOk >= this.renewDeadlineMs) {
      this.loseLeadership();
    }
    this.schedule(this.retryPeriodMs);
  }

  private loseLeadership(): void {
    if (!this.leading) return;
    this.leading = false;
    this.opts.onStoppedLeading();
  }

  private observe(lease: Lease): void {
    const prev = this.lastObserved;
    const changed =
      prev === undefined ||
      prev.spec?.holderIdentity !== lease.spec?.holderIdentity ||
      prev.spec?.renewTime !== lease.spec?.renewTime ||
      prev.spec?.acquireTime !== lease.spec?.acquireTime ||
      prev.spec?.leaseTransitions !== lease.spec?.leaseTransitions;
    this.lastObserved = lease;
    if (changed) this.observedTime = this.clock.now();
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder !== '' && holder !== this.reportedLeader) {
      this.reportedLeader = holder;
      if (holder !== this.opts.identity) this.opts.onNewLeader?.(holder);
    }
  }

  /** `tryAcquireOrRenew`: true when this candidate holds the lease afterwards. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.clock.now();
    const { namespace, name, identity } = this.opts;
    const durationSeconds = Math.round(this.leaseDurationMs / 1000);
    let current: Lease;
    try {
      current = await this.client.get<Lease>(resources.leases, name, { namespace });
    } catch (e) {
      if (!(isApiError(e) && e.code === 404)) {
        this.opts.log?.(`error retrieving lease ${namespace}/${name}`, e);
        return false;
      }
      try {
        const created = await this.client.create<Lease>(
          resources.leases,
          {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name, namespace },
            spec: { holderIdentity: identity, leaseDurationSeconds: durationSeconds, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
          },
          { namespace },
        );
        this.observe(created);
        return true;
      } catch (e2) {
        this.opts.log?.(`error creating lease ${namespace}/${name}`, e2);
        return false;
      }
    }
    this.observe(current);
    const holder = current.spec?.holderIdentity ?? '';
    const held = holder !== '' && holder !== identity;
    const leaseMs = (current.spec?.leaseDurationSeconds ?? durationSeconds) * 1000;
    if (held && this.observedTime + leaseMs > now) return false;
    const transitions = current.spec?.leaseTransitions ?? 0;
    const spec = {
      holderIdentity: identity,
      leaseDurationSeconds: durationSeconds,
      renewTime: microTime(now),
      acquireTime: holder === identity ? (current.spec?.acquireTime ?? microTime(now)) : microTime(now),
      leaseTransitions: holder === identity ? transitions : transitions + 1,
    };
    try {
      const updated = await this.client.update<Lease>(resources.leases, { ...current, spec: { ...current.spec, ...spec } }, { namespace });
      this.observe(updated);
      return true;
    } catch (e) {
      this.opts.log?.(`failed to update lease ${namespace}/${name}`, e);
      return false;
    }
  }

  private async release(): Promise<void> {
    const lease = this.lastObserved;
    if (lease === undefined || lease.spec?.holderIdentity !== this.opts.identity) return;
    const now = this.clock.now();
    try {
      await this.client.update<Lease>(
        resources.leases,
        { ...lease, spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(now), acquireTime: microTime(now) } },
        { namespace: this.opts.namespace },
      );
    } catch (e) {
      this.opts.log?.('failed to release lease', e);
    }
  }
}
