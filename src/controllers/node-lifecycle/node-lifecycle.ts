/**
 * The node lifecycle controller (pkg/controller/nodelifecycle, v1.32; semantics.md section 8): watches node
 * heartbeats (Ready condition and the kube-node-lease Lease), marks silent nodes Unknown after the grace
 * period, keeps the condition NoSchedule taints and the unschedulable taint in line, adds the NoExecute
 * not-ready/unreachable taints through a per-zone rate-limited queue (with upstream's disruption modes),
 * marks the pods of a not-ready node Ready=False, and records RegisteredNode/RemovingNode/NodeNotReady.
 */
import type { Node, Pod, PodCondition, Taint } from 'kubernetes-types/core/v1.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { isConflict, isNotFound } from '../../api/errors.js';
import { resources } from '../../api/resources.js';
import { formatTime, parseTime } from '../_pods.js';
import { NodeNameIndex,
  objectKey,
  runWorkers,
  type Controller,
  type ControllerContext,
  type EventRecorder,
  type Informer,
  type WorkQueue,
} from '../_context.js';
import { eventComponents, names } from '../names.js';
import {
  computeZoneState,
  getNodeCondition,
  LabelNodeExcludeDisruption,
  noScheduleTaintDiff,
  NotReadyTaintTemplate,
  reconcileNodeLabels,
  swapTaints,
  taintExists,
  TokenBucket,
  tryUpdateNodeHealth,
  UnreachableTaintTemplate,
  zoneKey,
  type NodeHealth,
  type ZoneState,
} from './_health.js';

export interface NodeLifecycleOptions {
  /** `--node-monitor-period` (default 5 s). */
  nodeMonitorPeriodMs?: number;
  /** `--node-monitor-grace-period` (default 50 s in 1.32). */
  nodeMonitorGracePeriodMs?: number;
  /** `--node-startup-grace-period` (default 60 s). */
  nodeStartupGracePeriodMs?: number;
  /** `--node-eviction-rate` (default 0.1 nodes/s per zone). */
  evictionLimiterQps?: number;
  /** `--secondary-node-eviction-rate` (default 0.01). */
  secondaryEvictionLimiterQps?: number;
  /** `--large-cluster-size-threshold` (default 50). */
  largeClusterThreshold?: number;
  /** `--unhealthy-zone-threshold` (default 0.55). */
  unhealthyZoneThreshold?: number;
}

export const defaults = {
  nodeMonitorPeriodMs: 5000,
  nodeMonitorGracePeriodMs: 50000,
  nodeStartupGracePeriodMs: 60000,
  evictionLimiterQps: 0.1,
  secondaryEvictionLimiterQps: 0.01,
  largeClusterThreshold: 50,
  unhealthyZoneThreshold: 0.55,
} as const;

/**
 * Concurrent node-update passes (NoSchedule taints, labels). Upstream runs `nodeUpdateWorkerSize` = 8
 * goroutines, each waiting a few milliseconds per PATCH. Here a write waits for the API server's group
 * commit and its turn in flow control, 100 ms to seconds while 5,000 kubelets report; with 8 workers the
 * not-ready taints of 5,000 nodes that turned Ready came off at 30-50 nodes per second, and new pods failed
 * to schedule on Ready nodes for over a minute. With 64 the last taint came off 9 s after the last node
 * turned Ready (about 400 nodes a second), with 256 4 s, with 1,024 2 s; 100 pods created once all 5,000
 * were Ready then ran in 7.8-8.6 s instead of 12-14.6 s. Workers waiting cost nothing while nodes are calm.
 */
export const nodeUpdateWorkers = 1024;

/** `scheduler.NodeEvictionPeriod`: how often the NoExecute tainting pass runs. */
export const nodeEvictionPeriodMs = 100;

interface ZoneTainter {
  limiter: TokenBucket;
  /** Node names waiting for a NoExecute taint, FIFO (`RateLimitedTimedQueue`). */
  queue: string[];
  /** How many times each name is in `queue`: membership without scanning it (thousands of nodes start NotReady). */
  queued: Map<string, number>;
}

function enqueueTainting(t: ZoneTainter, name: string): void {
  t.queue.push(name);
  t.queued.set(name, (t.queued.get(name) ?? 0) + 1);
}

function shiftTainting(t: ZoneTainter): void {
  const name = t.queue.shift();
  if (name === undefined) return;
  const n = (t.queued.get(name) ?? 0) - 1;
  if (n > 0) t.queued.set(name, n);
  else t.queued.delete(name);
}

export class NodeLifecycleController implements Controller {
  readonly name = names.NodeLifecycle;
  private readonly o: Required<NodeLifecycleOptions>;
  private readonly nodeInformer: Informer<Node>;
  private readonly podInformer: Informer<Pod>;
  private readonly leaseInformer: Informer<Lease>;
  private readonly recorder: EventRecorder;
  private readonly nodeQueue: WorkQueue<string>;
  private readonly podQueue: WorkQueue<string>;
  private readonly health = new Map<string, NodeHealth>();
  private readonly known = new Map<string, Node>();
  private readonly zoneStates = new Map<string, ZoneState>();
  private readonly tainters = new Map<string, ZoneTainter>();
  private readonly nodesToRetry = new Set<string>();
  private timers: { cancel(): void }[] = [];
  private stopped = false;
  private monitoring: Promise<void> | undefined;

  constructor(
    private readonly ctx: ControllerContext,
    opts: NodeLifecycleOptions = {},
  ) {
    this.o = { ...defaults, ...opts };
    this.nodeInformer = ctx.informer<Node>(resources.nodes);
    this.podInformer = ctx.informer<Pod>(resources.pods);
    this.leaseInformer = ctx.informer<Lease>(resources.leases);
    this.recorder = ctx.recorder(eventComponents.node);
    this.nodeQueue = ctx.newQueue();
    this.podQueue = ctx.newQueue();
  }

  start(): void {
    this.nodeInformer.addHandlers({
      onAdd: (n) => this.nodeQueue.add(n.metadata?.name ?? ''),
      onUpdate: (_o, n) => this.nodeQueue.add(n.metadata?.name ?? ''),
      onDelete: (n) => this.nodesToRetry.delete(n.metadata?.name ?? ''),
    });
    this.podInformer.addHandlers({
      onAdd: (p) => this.podUpdated(undefined, p),
      onUpdate: (o, p) => this.podUpdated(o, p),
    });
    this.leaseInformer.addHandlers({});
    void runWorkers(
      this.nodeQueue,
      async (name) => {
        await this.doNoScheduleTaintingPass(name);
        await this.reconcileNodeLabels(name);
      },
      nodeUpdateWorkers,
    );
    void runWorkers(this.podQueue, (key) => this.processPod(key), 4);
    this.schedule(() => this.tick(), 0, this.o.nodeMonitorPeriodMs);
    this.schedule(() => this.doNoExecuteTaintingPass(), nodeEvictionPeriodMs, nodeEvictionPeriodMs);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) t.cancel();
    this.timers = [];
    this.nodeQueue.shutDown();
    this.podQueue.shutDown();
  }

  private schedule(fn: () => Promise<void> | void, firstMs: number, periodMs: number): void {
    const run = (): void => {
      if (this.stopped) return;
      void Promise.resolve(fn())
        .catch(() => undefined)
        .finally(() => {
          if (!this.stopped) this.timers.push(this.ctx.clock.setTimeout(run, periodMs));
        });
    };
    this.timers.push(this.ctx.clock.setTimeout(run, firstMs));
  }

  private async tick(): Promise<void> {
    if (!this.nodeInformer.hasSynced() || !this.podInformer.hasSynced() || !this.leaseInformer.hasSynced()) return;
    this.monitoring = this.monitorNodeHealth();
    await this.monitoring;
  }

  /** Runs one health pass now (tests and callers that step a fake clock). */
  async monitorNow(): Promise<void> {
    await this.monitoring;
    await this.monitorNodeHealth();
  }

  private podsOnNode(name: string): Pod[] {
    return this.podInformer.byIndex(NodeNameIndex, name);
  }

  private podUpdated(old: Pod | undefined, pod: Pod): void {
    const n = pod.spec?.nodeName ?? '';
    if (n !== '' && (old === undefined || old.spec?.nodeName !== n)) this.podQueue.add(objectKey(pod));
  }

  /** `processPod`: a pod newly bound to a not-ready node is marked Ready=False. */
  private async processPod(key: string): Promise<void> {
    const pod = this.podInformer.get(key);
    if (pod === undefined) return;
    const nodeName = pod.spec?.nodeName ?? '';
    const h = this.health.get(nodeName);
    if (h === undefined || this.nodeInformer.get(nodeName) === undefined) return;
    if (h.readyCondition === undefined) return;
    if (h.readyCondition.status !== 'True') await this.markPodsNotReady([pod], nodeName);
  }

  /** `doNoScheduleTaintingPass`. */
  async doNoScheduleTaintingPass(nodeName: string): Promise<void> {
    const node = this.nodeInformer.get(nodeName);
    if (node === undefined) return;
    const { add, remove } = noScheduleTaintDiff(node);
    if (add.length === 0 && remove.length === 0) return;
    await this.swapNodeControllerTaint(nodeName, add, remove);
  }

  /** `reconcileNodeLabels`. */
  async reconcileNodeLabels(nodeName: string): Promise<void> {
    const node = this.nodeInformer.get(nodeName);
    if (node === undefined) return;
    const set = reconcileNodeLabels(node);
    if (set === undefined) return;
    try {
      await this.ctx.client.patch(resources.nodes, nodeName, 'merge', { metadata: { labels: set } });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  /**
   * `SwapNodeControllerTaint`: swap on the cached node first (upstream's first try reads with
   * resourceVersion "0", from the API server's cache), then on a conflict read it fresh and retry.
   */
  private async swapNodeControllerTaint(nodeName: string, add: Taint[], remove: Taint[]): Promise<boolean> {
    for (let attempt = 0; attempt < 5; attempt++) {
      let node: Node;
      const cached = attempt === 0 ? this.nodeInformer.get(nodeName) : undefined;
      try {
        node = cached ?? (await this.ctx.client.get<Node>(resources.nodes, nodeName));
      } catch (e) {
        if (isNotFound(e)) return false;
        throw e;
      }
      const cur = node.spec?.taints ?? [];
      const needAdd = add.filter((a) => !taintExists(cur, a));
      const needRemove = remove.filter((r) => taintExists(cur, r));
      if (needAdd.length === 0 && needRemove.length === 0) return true;
      const taints = swapTaints(cur, needAdd, needRemove, this.ctx.clock.now());
      const spec: Record<string, unknown> = { ...(node.spec ?? {}) };
      if (taints.length > 0) spec['taints'] = taints;
      else delete spec['taints'];
      try {
        await this.ctx.client.update<Node>(resources.nodes, { ...node, spec });
        return true;
      } catch (e) {
        if (!isConflict(e)) throw e;
      }
    }
    return false;
  }

  private tainterFor(zone: string): ZoneTainter {
    let t = this.tainters.get(zone);
    if (t === undefined) {
      t = { limiter: new TokenBucket(this.o.evictionLimiterQps, 1, this.ctx.clock.now()), queue: [], queued: new Map() };
      this.tainters.set(zone, t);
      if (!this.zoneStates.has(zone)) this.zoneStates.set(zone, 'Initial');
    }
    return t;
  }

  private markNodeForTainting(node: Node): void {
    const t = this.tainterFor(zoneKey(node));
    const name = node.metadata?.name ?? '';
    if (!t.queued.has(name)) enqueueTainting(t, name);
  }

  /** `markNodeAsReachable`: drops both NoExecute taints and any queued tainting. */
  private async markNodeAsReachable(node: Node): Promise<boolean> {
    const t = this.tainters.get(zoneKey(node));
    const name = node.metadata?.name ?? '';
    if (t?.queued.has(name) === true) {
      t.queue = t.queue.filter((n) => n !== name);
      t.queued.delete(name);
    }
    if (!taintExists(node.spec?.taints, UnreachableTaintTemplate) && !taintExists(node.spec?.taints, NotReadyTaintTemplate)) return false;
    return this.swapNodeControllerTaint(node.metadata?.name ?? '', [], [UnreachableTaintTemplate, NotReadyTaintTemplate]);
  }

  /** `doNoExecuteTaintingPass`: taints queued nodes as each zone's limiter allows. */
  async doNoExecuteTaintingPass(): Promise<void> {
    const now = this.ctx.clock.now();
    for (const t of this.tainters.values()) {
      while (t.queue.length > 0) {
        const name = t.queue[0] ?? '';
        const node = this.nodeInformer.get(name);
        if (node === undefined) {
          shiftTainting(t);
          continue;
        }
        const ready = getNodeCondition(node, 'Ready');
        if (ready === undefined || ready.status === 'True') {
          shiftTainting(t);
          continue;
        }
        if (!t.limiter.tryAccept(now)) break;
        shiftTainting(t);
        const add = ready.status === 'False' ? NotReadyTaintTemplate : UnreachableTaintTemplate;
        const opposite = ready.status === 'False' ? UnreachableTaintTemplate : NotReadyTaintTemplate;
        if (!(await this.swapNodeControllerTaint(name, [add], [opposite]))) enqueueTainting(t, name);
      }
    }
  }

  /** `monitorNodeHealth`. */
  async monitorNodeHealth(): Promise<void> {
    const nodes = this.nodeInformer.list();
    const names = new Set(nodes.map((n) => n.metadata?.name ?? ''));
    for (const n of nodes) {
      const name = n.metadata?.name ?? '';
      if (this.known.has(name)) {
        this.tainterFor(zoneKey(n));
        continue;
      }
      this.nodeEvent(n, 'RegisteredNode', `Registered Node ${name} in Controller`);
      this.known.set(name, n);
      this.tainterFor(zoneKey(n));
      await this.markNodeAsReachable(n);
    }
    for (const [name, n] of [...this.known]) {
      if (names.has(name)) continue;
      this.nodeEvent(n, 'RemovingNode', `Removing Node ${name} from Controller`);
      this.known.delete(name);
      this.health.delete(name);
    }
    const zoneConditions = new Map<string, (ReturnType<typeof getNodeCondition>)[]>();
    for (const cached of nodes) {
      const name = cached.metadata?.name ?? '';
      // Read only: tryUpdateNodeHealth copies the node when it has to change it, and nothing here writes to
      // the cache's object, so the pass no longer copies every node (most passes change none).
      let node: Node = cached;
      let result: ReturnType<typeof tryUpdateNodeHealth> | undefined;
      for (let attempt = 0; attempt < 5 && result === undefined; attempt++) {
        const lease = this.leaseInformer.get(`kube-node-lease/${name}`);
        const r = tryUpdateNodeHealth(node, this.health.get(name), parseTime(lease?.spec?.renewTime), this.ctx.clock.now(), this.o);
        if (r.updatedNode !== undefined) {
          try {
            await this.ctx.client.update(resources.nodes, r.updatedNode, { subresource: 'status' });
          } catch (e) {
            if (isNotFound(e)) break;
            node = await this.ctx.client.get<Node>(resources.nodes, name).catch(() => node);
            continue;
          }
          node = r.updatedNode;
        }
        this.health.set(name, r.health);
        result = r;
      }
      if (result === undefined) continue;
      if (node.metadata?.labels?.[LabelNodeExcludeDisruption] === undefined) {
        const z = zoneKey(node);
        const inZone = zoneConditions.get(z);
        if (inZone === undefined) zoneConditions.set(z, [result.currentReady]);
        else inZone.push(result.currentReady);
      }
      if (result.currentReady === undefined) continue;
      await this.processTaintBaseEviction(node, result.observedReady.status);
      const needsRetry = this.nodesToRetry.has(name);
      const transitioned = result.currentReady.status !== 'True' && result.observedReady.status === 'True';
      if (transitioned) this.nodeEvent(node, 'NodeNotReady', `Node ${name} status is now: NodeNotReady`, true);
      if (transitioned || (needsRetry && result.observedReady.status !== 'True')) {
        try {
          await this.markPodsNotReady(this.podsOnNode(name), name);
        } catch {
          this.nodesToRetry.add(name);
          continue;
        }
      }
      this.nodesToRetry.delete(name);
    }
    await this.handleDisruption(zoneConditions, nodes);
  }

  private nodeEvent(node: Node, reason: string, message: string, statusChange = false): void {
    const ref = { apiVersion: 'v1', kind: 'Node', metadata: { name: node.metadata?.name ?? '', uid: node.metadata?.uid ?? '' } };
    // RecordNodeEvent prefixes "Node <n> event: "; RecordNodeStatusChange does not.
    const msg = statusChange ? message : `Node ${node.metadata?.name ?? ''} event: ${message}`;
    this.recorder.event(ref, 'Normal', reason, msg);
  }

  /** `processTaintBaseEviction`. */
  private async processTaintBaseEviction(node: Node, observedReady: string): Promise<void> {
    const name = node.metadata?.name ?? '';
    if (observedReady === 'False') {
      if (taintExists(node.spec?.taints, UnreachableTaintTemplate)) await this.swapNodeControllerTaint(name, [NotReadyTaintTemplate], [UnreachableTaintTemplate]);
      else this.markNodeForTainting(node);
    } else if (observedReady === 'Unknown') {
      if (taintExists(node.spec?.taints, NotReadyTaintTemplate)) await this.swapNodeControllerTaint(name, [UnreachableTaintTemplate], [NotReadyTaintTemplate]);
      else this.markNodeForTainting(node);
    } else if (observedReady === 'True') {
      await this.markNodeAsReachable(node);
    }
  }

  /** `MarkPodsNotReady`: Ready=False on each pod of the node, with a `NodeNotReady` pod event. */
  private async markPodsNotReady(pods: Pod[], nodeName: string): Promise<void> {
    const errors: unknown[] = [];
    for (const p of pods) {
      if (p.spec?.nodeName !== nodeName) continue;
      const conds = p.status?.conditions ?? [];
      const ready = conds.find((c) => c.type === 'Ready');
      if (ready === undefined || ready.status === 'False') continue;
      const next: PodCondition = { ...ready, status: 'False', lastTransitionTime: formatTime(this.ctx.clock.now()) };
      const status = { ...(p.status ?? {}), conditions: conds.map((c) => (c.type === 'Ready' ? next : c)) };
      try {
        await this.ctx.client.update(resources.pods, { ...p, status }, { subresource: 'status', namespace: p.metadata?.namespace ?? 'default' });
      } catch (e) {
        if (isNotFound(e)) continue;
        errors.push(e);
      }
      this.recorder.event(p, 'Warning', 'NodeNotReady', 'Node is not ready');
    }
    if (errors.length > 0) throw new Error(`unable to mark all pods NotReady on node ${nodeName}`);
  }

  private qpsFor(state: ZoneState, zoneSize: number): number {
    if (state === 'Normal' || state === 'Initial') return this.o.evictionLimiterQps;
    if (state === 'PartialDisruption') return zoneSize > this.o.largeClusterThreshold ? this.o.secondaryEvictionLimiterQps : 0;
    return this.o.evictionLimiterQps;
  }

  /** `handleDisruption`: when every zone is fully disrupted, stop tainting and remove the NoExecute taints. */
  private async handleDisruption(zoneConditions: Map<string, (ReturnType<typeof getNodeCondition>)[]>, nodes: Node[]): Promise<void> {
    const now = this.ctx.clock.now();
    const newStates = new Map<string, ZoneState>();
    let allAreFullyDisrupted = true;
    for (const [z, conds] of zoneConditions) {
      const { state } = computeZoneState(conds, this.o.unhealthyZoneThreshold);
      if (state !== 'FullDisruption') allAreFullyDisrupted = false;
      newStates.set(z, state);
      if (!this.zoneStates.has(z)) this.zoneStates.set(z, 'Initial');
    }
    let allWasFullyDisrupted = true;
    for (const [z, s] of [...this.zoneStates]) {
      if (!zoneConditions.has(z)) {
        this.zoneStates.delete(z);
        continue;
      }
      if (s !== 'FullDisruption') {
        allWasFullyDisrupted = false;
        break;
      }
    }
    if (allAreFullyDisrupted && allWasFullyDisrupted) return;
    if (allAreFullyDisrupted) {
      for (const n of nodes) await this.markNodeAsReachable(n);
      for (const z of this.zoneStates.keys()) {
        this.tainterFor(z).limiter.setQps(0, now);
        this.zoneStates.set(z, 'FullDisruption');
      }
      return;
    }
    if (allWasFullyDisrupted) {
      for (const n of nodes) {
        const h = this.health.get(n.metadata?.name ?? '');
        if (h !== undefined) this.health.set(n.metadata?.name ?? '', { ...h, probeTimestamp: now, readyTransitionTimestamp: now });
      }
      for (const z of this.zoneStates.keys()) {
        const s = newStates.get(z) ?? 'Normal';
        this.tainterFor(z).limiter.setQps(this.qpsFor(s, zoneConditions.get(z)?.length ?? 0), now);
        this.zoneStates.set(z, s);
      }
      return;
    }
    for (const [z, s] of this.zoneStates) {
      const ns = newStates.get(z) ?? s;
      if (ns === s) continue;
      this.tainterFor(z).limiter.setQps(this.qpsFor(ns, zoneConditions.get(z)?.length ?? 0), now);
      this.zoneStates.set(z, ns);
    }
  }
}

export function create(ctx: ControllerContext, opts: NodeLifecycleOptions = {}): NodeLifecycleController {
  return new NodeLifecycleController(ctx, opts);
}
