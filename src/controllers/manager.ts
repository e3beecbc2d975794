/**
 * kubemix's kube-controller-manager: runs the controllers of `registry.ts` against one `Client`, with shared
 * informers, work queues and event recorders, under leader election on the Lease
 * `kube-system/kube-controller-manager` (so several managers may run; one acts).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { ResourceType } from '../api/resources.js';
import type { Client, KubeObject } from '../client/client.js';
import { createEventRecorder, createInformerFactory, realClock, trimManagedFields, WorkQueue, type InformerFactory } from '../client/index.js';
import { standardIndexers, type Clock, type Controller, type ControllerContext, type EventRecorder, type Informer } from './_context.js';
import { LeaderElector } from './_leader-election.js';
import { controllerFactories, selectControllers, type ControllerOptions } from './registry.js';

export interface ControllerManagerOptions extends ControllerOptions {
  client: Client;
  clock?: Clock;
  /** Controller names as `--controllers` takes them: `*` (all), a name, or `-name` to leave one out. Default all. */
  controllers?: string[];
  /** Share informers with other components of the process; otherwise the manager makes its own. */
  informerFactory?: InformerFactory;
  /** Default true. Off: act at once without a Lease (single-manager setups and tests). */
  leaderElect?: boolean;
  /** Lease holder identity; default `<hostname>_<uuid>` as kube-controller-manager uses. */
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  log?: (message: string, err?: unknown) => void;
}

export const leaseNamespace = 'kube-system';
export const leaseName = 'kube-controller-manager';

export class ControllerManager {
  private readonly clock: Clock;
  private readonly enabled: string[];
  private factory: InformerFactory | undefined;
  private ownsFactory = false;
  private running: Controller[] = [];
  private recorders: EventRecorder[] = [];
  private elector: LeaderElector | undefined;
  private started = false;

  constructor(private readonly o: ControllerManagerOptions) {
    this.clock = o.clock ?? realClock;
    this.enabled = selectControllers(o.controllers ?? ['*']);
  }

  /** The controllers this manager runs (after `--controllers` selection). */
  controllerNames(): string[] {
    return [...this.enabled];
  }

  isLeader(): boolean {
    return this.elector === undefined ? this.running.length > 0 : this.elector.isLeader();
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    if (this.o.leaderElect === false) {
      this.startControllers();
      return;
    }
    const identity = this.o.identity ?? `${hostname()}_${randomUUID()}`;
    const electorOpts: ConstructorParameters<typeof LeaderElector>[0] = {
      client: this.o.client,
      clock: this.clock,
      namespace: leaseNamespace,
      name: leaseName,
      identity,
      onStartedLeading: () => this.startControllers(),
      onStoppedLeading: () => this.stopControllers(),
      recorder: createEventRecorder(this.o.client, { component: leaseName, host: identity, clock: this.clock }),
    };
    if (this.o.leaseDurationMs !== undefined) electorOpts.leaseDurationMs = this.o.leaseDurationMs;
    if (this.o.renewDeadlineMs !== undefined) electorOpts.renewDeadlineMs = this.o.renewDeadlineMs;
    if (this.o.retryPeriodMs !== undefined) electorOpts.retryPeriodMs = this.o.retryPeriodMs;
    this.elector = new LeaderElector(electorOpts);
    this.elector.start();
  }

  /** Stops the controllers, releases the Lease, stops the informers it owns. Idempotent. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    if (this.elector !== undefined) await this.elector.stop();
    this.stopControllers();
    // Syncs in flight when the queues shut down may still record events: let them finish, then flush.
    await new Promise((r) => setTimeout(r, 20));
    await Promise.all(this.recorders.map((r) => r.flush()));
    this.recorders = [];
  }

  private context(factory: InformerFactory): ControllerContext {
    const clock = this.clock;
    const client = this.o.client;
    return {
      client,
      clock,
      informer: <T extends KubeObject>(res: ResourceType): Informer<T> => factory.informerFor<T>(res, { indexers: standardIndexers(res) }),
      newQueue: () => new WorkQueue<string>({ clock }),
      recorder: (component: string): EventRecorder => {
        const r = createEventRecorder(client, { component, clock });
        this.recorders.push(r);
        return r;
      },
    };
  }

  private startControllers(): void {
    if (this.running.length > 0) return;
    if (this.factory === undefined) {
      if (this.o.informerFactory !== undefined) this.factory = this.o.informerFactory;
      else {
        // As kube-controller-manager's shared informers: no managedFields in the caches.
        const fo: Parameters<typeof createInformerFactory>[1] = { clock: this.clock, transform: trimManagedFields };
        if (this.o.log !== undefined) fo.log = this.o.log;
        this.factory = createInformerFactory(this.o.client, fo);
        this.ownsFactory = true;
      }
    }
    const ctx = this.context(this.factory);
    const factories = controllerFactories();
    for (const name of this.enabled) {
      const make = factories.get(name);
      if (make === undefined) continue;
      const c = make(ctx, this.o);
      c.start();
      this.running.push(c);
    }
    this.factory.start();
  }

  private stopControllers(): void {
    for (const c of [...this.running].reverse()) c.stop();
    this.running = [];
    if (this.ownsFactory) {
      this.factory?.stop();
      this.factory = undefined;
      this.ownsFactory = false;
    }
  }
}

export function createControllerManager(o: ControllerManagerOptions): ControllerManager {
  return new ControllerManager(o);
}
