/**
 * Lease-based leader election (client-go `tools/leaderelection` with a `LeaseLock`): one holder at a time
 * per Lease, renewed every retry period, lost when renewal fails for the renew deadline, taken over when the
 * holder has not renewed for the lease duration as observed on this process's clock (client-go's
 * observedTime, which avoids trusting other machines' clocks). Releasing on stop clears the holder.
 */
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { isAlreadyExists, isConflict, isNotFound } from '../api/errors.js';
import { resources } from '../api/resources.js';
import type { Client } from '../client/client.js';
import type { Clock, EventRecorder } from './_context.js';
import { microTime } from '../util/micro-time.js';

export interface LeaderElectorOptions {
  client: Client;
  clock: Clock;
  namespace: string;
  name: string;
  /** `holderIdentity`, e.g. `<hostname>_<uuid>`. */
  identity: string;
  /** Default 15 s (kube-controller-manager `--leader-elect-lease-duration`). */
  leaseDurationMs?: number;
  /** Default 10 s. */
  renewDeadlineMs?: number;
  /** Default 2 s. */
  retryPeriodMs?: number;
  onStartedLeading(): void;
  onStoppedLeading(): void;
  /** Records `LeaderElection` "<identity> became leader" on the Lease, as client-go does. */
  recorder?: EventRecorder;
}


export class LeaderElector {
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private leading = false;
  private stopped = true;
  private timer: { cancel(): void } | undefined;
  private observedRecord = '';
  private observedTime = 0;
  private lastRenew = 0;
  private loop: Promise<void> = Promise.resolve();

  constructor(private readonly o: LeaderElectorOptions) {
    this.leaseDurationMs = o.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = o.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = o.retryPeriodMs ?? 2_000;
  }

  isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops campaigning; a leader releases the Lease and calls onStoppedLeading. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.timer?.cancel();
    await this.loop;
    if (this.leading) {
      this.leading = false;
      await this.release().catch(() => undefined);
      this.o.onStoppedLeading();
    }
  }

  private schedule(ms: number): void {
    this.timer = this.o.clock.setTimeout(() => {
      this.loop = this.step().finally(() => {
        if (!this.stopped) this.schedule(this.retryPeriodMs);
      });
    }, ms);
  }

  private async step(): Promise<void> {
    let ok = false;
    try {
      ok = await this.tryAcquireOrRenew();
    } catch {
      ok = false;
    }
    if (this.stopped) return;
    const now = this.o.clock.now();
    if (ok) {
      this.lastRenew = now;
      if (!this.leading) {
        this.leading = true;
        this.o.onStartedLeading();
      }
    } else if (this.leading && now - this.lastRenew >= this.renewDeadlineMs) {
      this.leading = false;
      this.o.onStoppedLeading();
    }
  }

  /** `tryAcquireOrRenew`. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.o.clock.now();
    const spec = {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: Math.round(this.leaseDurationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    let lease: Lease;
    try {
      lease = await this.o.client.get<Lease>(resources.leases, this.o.name, { namespace: this.o.namespace });
    } catch (e) {
      if (!isNotFound(e)) throw e;
      try {
        await this.o.client.create<Lease>(
          resources.leases,
          { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.o.name, namespace: this.o.namespace }, spec },
          { namespace: this.o.namespace },
        );
      } catch (err) {
        if (isAlreadyExists(err)) return false;
        throw err;
      }
      this.observe(JSON.stringify(spec), now);
      this.becameLeader();
      return true;
    }
    const cur = lease.spec ?? {};
    const raw = JSON.stringify(cur);
    if (raw !== this.observedRecord) this.observe(raw, now);
    const holder = cur.holderIdentity ?? '';
    const held = holder !== '' && holder !== this.o.identity;
    const duration = (cur.leaseDurationSeconds ?? 0) * 1000;
    if (held && this.observedTime + duration > now) return false;
    const next = { ...spec };
    if (holder === this.o.identity) {
      next.acquireTime = cur.acquireTime ?? spec.acquireTime;
      next.leaseTransitions = cur.leaseTransitions ?? 0;
    } else {
      next.leaseTransitions = (cur.leaseTransitions ?? 0) + 1;
    }
    try {
      await this.o.client.update<Lease>(resources.leases, { ...lease, spec: next }, { namespace: this.o.namespace });
    } catch (e) {
      if (isConflict(e)) return false;
      throw e;
    }
    this.observe(JSON.stringify(next), now);
    if (holder !== this.o.identity) this.becameLeader();
    return true;
  }

  private observe(raw: string, now: number): void {
    this.observedRecord = raw;
    this.observedTime = now;
  }

  private becameLeader(): void {
    this.o.recorder?.event(
      { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.o.name, namespace: this.o.namespace } },
      'Normal',
      'LeaderElection',
      `${this.o.identity} became leader`,
    );
  }

  private async release(): Promise<void> {
    const lease = await this.o.client.get<Lease>(resources.leases, this.o.name, { namespace: this.o.namespace });
    if (lease.spec?.holderIdentity !== this.o.identity) return;
    const now = this.o.clock.now();
    await this.o.client.update<Lease>(
      resources.leases,
      { ...lease, spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(now), acquireTime: microTime(now) } },
      { namespace: this.o.namespace },
    );
  }
}
