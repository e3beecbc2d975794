/**
 * `NodeHost`: simulated kubelets for many nodes in one process, talking to the API server only through a
 * `Client`. All nodes share ONE pod informer (a watch of bound pods, filtered by `spec.nodeName=<node>` when
 * the host runs a single node), one Node informer and one RuntimeClass informer.
 *
 * Per node:
 * - registration: create the Node (or, when it exists, reconcile the kubelet's labels and post status);
 * - heartbeat: the Lease `kube-node-lease/<node>` renewed every 10 s (leaseDurationSeconds 40); node status
 *   posted every 10 s when it changed and every 5 min otherwise. Heartbeats of many nodes are spread over
 *   the interval. `stop()` halts them, so the node lifecycle controller marks the nodes NotReady;
 * - pod workers (`kubelet/pod-worker.ts`) for the pods bound to it, status written through `pods/status`
 *   (JSON merge patch with the pod's uid as precondition); graceful deletion ends with the kubelet's final
 *   delete (gracePeriodSeconds 0, uid precondition);
 * - CNI readiness: Ready=False with the CNI message until a network-plugin pod runs on the node (see
 *   `cni.ts`), or always ready with `cni: 'preinstalled'`;
 * - its CSINode (`storage.k8s.io/v1`, named after the node, owned by it, no drivers), created once the node
 *   registered, as the kubelet's CSI plugin does.
 */
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node, Pod, PodStatus } from 'kubernetes-types/core/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import type { CSINode } from 'kubernetes-types/storage/v1.js';
import { isAlreadyExists, isConflict, isNotFound } from '../api/errors.js';
import { resources } from '../api/resources.js';
import type { Client, KubeObject } from '../client/client.js';
import { createEventRecorder, createInformer, realClock, trimManagedFields, type Clock, type EventRecorder, type Informer, type TimerHandle } from '../client/index.js';
import { isNetworkPluginPod } from './cni.js';
import { PodIPAllocator } from './ip-allocator.js';
import { initialNode, kubeletNodeLabels, nodeStatus, windowsOsVersion, type SimulatedNodeSpec } from './kubelet/node-status.js';
import { defaultPodWorkerTimings, PodWorker, type PodWorkerContext, type PodWorkerTimings } from './kubelet/pod-worker.js';
import { Backoff } from './runtime/backoff.js';
import { createDefaultCatalog } from './runtime/builtin-images.js';
import type { ImageCatalog } from './runtime/catalog.js';
import { ImageManager, type KubeletEvent } from './runtime/image-manager.js';
import { NodeImageStore } from './runtime/image-store.js';
import { parseImageReference } from './runtime/image-ref.js';
import { resolvePull, type PullResolution } from './runtime/pull.js';
import { microTime } from '../util/micro-time.js';
import { metav1Time } from '../util/metav1-time.js';

export const nodeLeaseNamespace = 'kube-node-lease';

/** A kubelet's retries of its start-up writes (registration, CSINode): 500 ms, doubling up to 7 s. */
const startupRetryFirstMs = 500;
const startupRetryMaxMs = 7_000;
const nextStartupRetryMs = (delayMs: number): number => Math.min(delayMs * 2, startupRetryMaxMs);

/** `v1.MigratedPluginsAnnotationKey` (k8s.io/api core/v1 `well_known_annotations.go`). */
const migratedPluginsAnnotationKey = 'storage.alpha.kubernetes.io/migrated-plugins';

/**
 * The in-tree volume plugins kubelet 1.32 announces as served by their CSI drivers, on Linux and Windows
 * alike: the `migratedPlugins` of `pkg/volume/csi/csi_plugin.go` (GCE PD, AWS EBS, Cinder, Azure Disk,
 * Azure File and vSphere always; Portworx behind CSIMigrationPortworx, beta and on by default since 1.31),
 * by their `csi-translation-lib` names, sorted and comma-joined as `setMigrationAnnotation` writes them.
 */
const migratedPlugins = [
  'kubernetes.io/aws-ebs',
  'kubernetes.io/azure-disk',
  'kubernetes.io/azure-file',
  'kubernetes.io/cinder',
  'kubernetes.io/gce-pd',
  'kubernetes.io/portworx-volume',
  'kubernetes.io/vsphere-volume',
] as const;

const migratedPluginsAnnotation = migratedPlugins.join(',');

/** Whether a migrated-plugins annotation names exactly `migratedPlugins`, compared as sets as `setMigrationAnnotation` does. */
function announcesMigratedPlugins(value: string | undefined): boolean {
  const announced = new Set(value === undefined || value === '' ? [] : value.split(','));
  return announced.size === migratedPlugins.length && migratedPlugins.every((p) => announced.has(p));
}

/** `NodeHostOptions.registrationConcurrency`'s default. */
const defaultRegistrationConcurrency = 16;

export interface NodeHostOptions {
  client: Client;
  nodes: readonly SimulatedNodeSpec[];
  clock?: Clock;
  /** The simulated registry (default: the built-in catalog). */
  catalog?: ImageCatalog;
  /**
   * `daemonset` (default, kubeadm's flow): NotReady until a network-plugin pod runs on the node.
   * `preinstalled`: the network is ready from the start.
   */
  cni?: 'daemonset' | 'preinstalled';
  /** Images present on every node at start (kubeadm pre-pulls): default the pause image. */
  preloadedImages?: readonly string[];
  leaseDurationSeconds?: number;
  leaseRenewIntervalMs?: number;
  /** How often node status is checked and posted when changed (kubelet `nodeStatusUpdateFrequency`, 10 s). */
  nodeStatusUpdateFrequencyMs?: number;
  /** How often node status is posted when unchanged (kubelet `nodeStatusReportFrequency`, 5 min). */
  nodeStatusReportFrequencyMs?: number;
  /**
   * Node events (Starting, NodeHasSufficientMemory, NodeReady, ...) as every kubelet records them, however
   * many nodes the host runs; default on.
   */
  nodeEvents?: boolean;
  /**
   * Parallel registrations at start (default 16). Each registered node goes on to its lease, status,
   * events and DaemonSet pods while the others register, so registering faster only crowds the API
   * server: at 5,000 nodes on 2 cores, all Ready in 23.9-26.5 s in eight runs of nine with 16 (one took
   * 36 s) against 29.4-31.0 s in four with 32, 37-38 s with 128 and 27-28 s with 8 (registration itself
   * 13.5, 12.1, 7.5 and 16 s); at 500 nodes the same either way.
   */
  registrationConcurrency?: number;
  /** Called after each node registers: (registered so far, total), for progress output. */
  onRegistered?: (registered: number, total: number) => void;
  /**
   * Watch every node's pods even when hosting a single node (default: a single node watches only its own
   * pods, by field selector). Set it when nodes will be added later with `addNodes`.
   */
  watchAllNodes?: boolean;
  podWorkerTimings?: Partial<PodWorkerTimings>;
  /** Simulated per-pull latency, ms (default 300). */
  pullLatencyMs?: number;
  /** Event recorder per node (default `createEventRecorder(client, {component: 'kubelet', host: node})`). */
  recorderFor?: (nodeName: string) => EventRecorder;
  log?: (message: string, err?: unknown) => void;
}

/** What a NodeHost tells others (the proxy, the API server's log endpoint) about its nodes. */
export interface NodeHostView {
  nodeNames(): string[];
  nodeSpec(name: string): SimulatedNodeSpec | undefined;
  isNetworkReady(name: string): boolean;
  podLogs(namespace: string, pod: string, container?: string, previous?: boolean): string[] | undefined;
}

const kubeletConditions = new Set(['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady']);

function conditionSummary(status: PodStatus | undefined): string {
  return (status?.conditions ?? [])
    .filter((c) => kubeletConditions.has(c.type))
    .map((c) => `${c.type}=${c.status}`)
    .sort()
    .join(',');
}

function imagesOf(pod: Pod): string[] {
  return [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((c) => c.image ?? '');
}

function sameImages(a: Pod, b: Pod): boolean {
  const x = imagesOf(a);
  const y = imagesOf(b);
  return x.length === y.length && x.every((image, i) => image === y[i]);
}

function sameAnnotations(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  if (a === b) return true;
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  // Key order counts, as it did when the two were compared as JSON text.
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a?.[k] === b?.[k]);
}

function podRef(pod: Pod): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata ?? {} };
}

interface PodEntry {
  worker: PodWorker;
  timer?: TimerHandle | undefined;
  timerAt?: number | undefined;
  lastWritten?: string | undefined;
  /** `conditionSummary` of the status in `lastWritten`, kept so pod updates need not parse it again. */
  lastWrittenConditions?: string | undefined;
  writing: boolean;
  dirty: boolean;
  deleted: boolean;
  finalDeleteSent: boolean;
}

/** One simulated node: its kubelet state. */
class SimulatedNode {
  readonly store = new NodeImageStore();
  readonly imageManager: ImageManager;
  readonly crashBackoff = new Backoff(10_000, 300_000);
  readonly pods = new Map<string, PodEntry>();
  readonly recorder: EventRecorder;
  networkReady: boolean;
  registered = false;
  nodeObj: Node | undefined;
  lease: Lease | undefined;
  lastStatusPostMs = 0;
  lastStatusKey = '';
  /** A lease renewal is in flight (upstream's lease controller renews from one loop: never two at once). */
  leaseRenewing = false;
  /** A node status post is in flight (the kubelet's status loop posts one at a time). */
  statusPosting = false;
  /** Something asked for a post while one was in flight: post again when it ends. */
  statusRepost = false;
  heartbeatTimer: TimerHandle | undefined;
  statusTimer: TimerHandle | undefined;
  /** The next attempt to initialize the CSINode after one failed. */
  csiNodeTimer: TimerHandle | undefined;
  ipAllocator: PodIPAllocator | undefined;
  readonly workerCtx: PodWorkerContext;

  constructor(readonly spec: SimulatedNodeSpec, private readonly host: NodeHost, opts: { catalog: ImageCatalog; networkReady: boolean; recorder: EventRecorder; timings: PodWorkerTimings; pullLatencyMs: number }) {
    const osVersion = windowsOsVersion(spec);
    this.imageManager = new ImageManager({
      catalog: opts.catalog,
      store: this.store,
      host: { os: spec.os, architecture: spec.arch, ...(osVersion !== undefined ? { osVersion } : {}) },
      ...(spec.pullBandwidthBytesPerSecond !== undefined ? { bandwidthBytesPerSecond: spec.pullBandwidthBytesPerSecond } : {}),
      pullLatencyMs: opts.pullLatencyMs,
    });
    this.networkReady = opts.networkReady;
    this.recorder = opts.recorder;
    this.workerCtx = {
      spec,
      node: () => this.host.currentNode(spec.name) ?? this.nodeObj ?? initialNode(spec, { now: metav1Time(this.host.now()), networkReady: this.networkReady }),
      imageManager: this.imageManager,
      crashBackoff: this.crashBackoff,
      networkReady: () => this.networkReady,
      runtimeClassHandler: (name) => this.host.runtimeClassHandler(name),
      admittedPods: (uid) => {
        const out: Pod[] = [];
        for (const [u, e] of this.pods) if (u !== uid && !e.deleted && !e.worker.isTerminal) out.push(e.worker.current);
        return out;
      },
      allocatePodIP: (uid) => this.allocator().allocate(uid),
      releasePodIP: (uid) => this.ipAllocator?.release(uid),
      event: (pod: Pod, e: KubeletEvent, fieldPath?: string) =>
        this.recorder.event(podRef(pod), e.type, e.reason, e.message, fieldPath !== undefined ? { fieldPath } : undefined),
      timings: opts.timings,
    };
  }

  private allocator(): PodIPAllocator {
    if (this.ipAllocator === undefined) {
      const cidr = this.host.currentNode(this.spec.name)?.spec?.podCIDR ?? this.nodeObj?.spec?.podCIDR ?? this.spec.podCIDR ?? '10.244.0.0/24';
      this.ipAllocator = new PodIPAllocator(cidr);
    }
    return this.ipAllocator;
  }
}

export class NodeHost implements NodeHostView {
  private readonly client: Client;
  private readonly clock: Clock;
  private readonly catalog: ImageCatalog;
  private readonly nodes = new Map<string, SimulatedNode>();
  private readonly log: (message: string, err?: unknown) => void;
  private readonly leaseDurationSeconds: number;
  private readonly leaseRenewIntervalMs: number;
  private readonly statusUpdateMs: number;
  private readonly statusReportMs: number;
  private readonly timings: PodWorkerTimings;
  private podInformer: Informer<Pod> | undefined;
  private nodeInformer: Informer<Node> | undefined;
  private runtimeClassInformer: Informer<RuntimeClass> | undefined;
  private running = false;

  constructor(private readonly opts: NodeHostOptions) {
    this.client = opts.client;
    this.clock = opts.clock ?? realClock;
    this.catalog = opts.catalog ?? createDefaultCatalog();
    this.log = opts.log ?? ((m, e) => console.error(`kubelet: ${m}`, e ?? ''));
    this.leaseDurationSeconds = opts.leaseDurationSeconds ?? 40;
    this.leaseRenewIntervalMs = opts.leaseRenewIntervalMs ?? 10_000;
    this.statusUpdateMs = opts.nodeStatusUpdateFrequencyMs ?? 10_000;
    this.statusReportMs = opts.nodeStatusReportFrequencyMs ?? 300_000;
    this.timings = { ...defaultPodWorkerTimings, ...opts.podWorkerTimings };
    for (const spec of opts.nodes) {
      if (this.nodes.has(spec.name)) throw new Error(`node ${spec.name} listed twice`);
      this.nodes.set(spec.name, this.newNode(spec));
    }
  }

  private newNode(spec: SimulatedNodeSpec): SimulatedNode {
    const recorder = this.opts.recorderFor?.(spec.name) ?? createEventRecorder(this.client, { component: 'kubelet', host: spec.name, clock: this.clock });
    return new SimulatedNode(spec, this, {
      catalog: this.catalog,
      networkReady: this.opts.cni === 'preinstalled',
      recorder,
      timings: this.timings,
      pullLatencyMs: this.opts.pullLatencyMs ?? 300,
    });
  }

  now(): number {
    return this.clock.now();
  }

  // ---- view ----

  nodeNames(): string[] {
    return [...this.nodes.keys()];
  }

  nodeSpec(name: string): SimulatedNodeSpec | undefined {
    return this.nodes.get(name)?.spec;
  }

  isNetworkReady(name: string): boolean {
    return this.nodes.get(name)?.networkReady ?? false;
  }

  /** The Node as the API last showed it. */
  currentNode(name: string): Node | undefined {
    return this.nodeInformer?.get(name) ?? this.nodes.get(name)?.nodeObj;
  }

  runtimeClassHandler(name: string): string | undefined {
    return this.runtimeClassInformer?.get(name)?.handler;
  }

  /** Simulated container logs of a pod on one of these nodes (`kubectl logs`). */
  podLogs(namespace: string, pod: string, container?: string, previous = false): string[] | undefined {
    for (const n of this.nodes.values()) {
      for (const e of n.pods.values()) {
        const p = e.worker.current;
        if (p.metadata?.namespace !== namespace || p.metadata.name !== pod) continue;
        const name = container ?? e.worker.containerNames().find((c) => !(p.spec?.initContainers ?? []).some((i) => i.name === c));
        return name === undefined ? undefined : e.worker.logs(name, previous);
      }
    }
    return undefined;
  }

  /**
   * `kubectl logs` for hosted pods, in the API server's `PodLogSource` shape: the simulated output of
   * `container` (default: the first app container), `previous` for the last terminated instance, the last
   * `tailLines`, with RFC3339Nano timestamps when asked. Undefined when the pod or container is not here.
   */
  async logs(
    namespace: string,
    pod: string,
    container: string | undefined,
    opts: { tailLines?: number; previous?: boolean; timestamps?: boolean } = {},
  ): Promise<string | undefined> {
    for (const n of this.nodes.values()) {
      for (const e of n.pods.values()) {
        const p = e.worker.current;
        if (p.metadata?.namespace !== namespace || p.metadata.name !== pod) continue;
        const name = container ?? p.spec?.containers[0]?.name;
        if (name === undefined) return undefined;
        const lines = e.worker.logLines(name, opts.previous === true);
        if (lines === undefined) return undefined;
        const tail = opts.tailLines !== undefined && opts.tailLines >= 0 ? lines.slice(Math.max(0, lines.length - opts.tailLines)) : lines;
        return tail.map((l) => `${opts.timestamps === true ? `${new Date(l.atMs).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z')} ` : ''}${l.text}\n`).join('');
      }
    }
    return undefined;
  }

  /** The pod status a hosted pod currently has (tests, the proxy). */
  hostedPod(namespace: string, name: string): { pod: Pod; node: SimulatedNodeSpec } | undefined {
    for (const n of this.nodes.values()) {
      for (const e of n.pods.values()) {
        const p = e.worker.current;
        if (p.metadata?.namespace === namespace && p.metadata.name === name) return { pod: p, node: n.spec };
      }
    }
    return undefined;
  }

  // ---- lifecycle ----

  /**
   * Starts the shared informers and registers every node (each starts its heartbeats once registered), then
   * takes the pods bound to them. Resolves once all nodes registered.
   */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.preload(this.nodes.values());
    const single = this.nodes.size === 1 && this.opts.watchAllNodes !== true ? [...this.nodes.keys()][0] : undefined;
    this.runtimeClassInformer = createInformer<RuntimeClass>(this.client, resources.runtimeclasses, { clock: this.clock, log: this.log });
    // Nobody here reads managedFields: dropped before caching, each cached version is smaller for the GC to
    // copy (a pod version outlives several young-generation collections).
    this.nodeInformer = createInformer<Node>(this.client, resources.nodes, {
      clock: this.clock,
      log: this.log,
      transform: trimManagedFields,
      ...(single !== undefined ? { fieldSelector: `metadata.name=${single}` } : {}),
    });
    // Bound pods only (each kubelet watches `spec.nodeName=<itself>`): pending pods are not decoded here.
    this.podInformer = createInformer<Pod>(this.client, resources.pods, {
      clock: this.clock,
      log: this.log,
      transform: trimManagedFields,
      fieldSelector: single !== undefined ? `spec.nodeName=${single}` : 'spec.nodeName!=',
    });
    this.runtimeClassInformer.start();
    this.nodeInformer.start();

    await this.registerNodes([...this.nodes.values()], this.opts.onRegistered);
    if (!this.running) return;

    this.podInformer.addHandlers({
      onAdd: (p) => this.onPod(p),
      onUpdate: (_o, p) => this.onPod(p),
      onDelete: (p) => this.onPodDeleted(p),
    });
    this.podInformer.start();
  }

  /** Whether `n` is running here (not stopped, not removed). */
  private hosts(n: SimulatedNode): boolean {
    return this.running && this.nodes.get(n.spec.name) === n;
  }

  /**
   * Starts the lease and status loops of a node just registered. The `count` nodes registered together
   * renew in evenly spread slots (`position` is this node's) counted from `sinceMs`; each starts at its
   * next slot, so it may renew as soon as it registered. A node's loops start with its registration, not
   * once all are registered: registering thousands of nodes on a slow store outlasts a lease.
   */
  private startHeartbeats(n: SimulatedNode, position: number, count: number, sinceMs: number): void {
    const nowMs = this.now();
    const delay = (intervalMs: number): number => {
      let at = sinceMs + Math.floor((position * intervalMs) / count);
      while (at < nowMs) at += intervalMs;
      return at - nowMs;
    };
    n.heartbeatTimer = this.clock.setTimeout(() => this.heartbeat(n), delay(this.leaseRenewIntervalMs));
    n.statusTimer = this.clock.setTimeout(() => this.statusTick(n), delay(this.statusUpdateMs));
  }

  /**
   * Hosts more nodes on a running host: registers them (reporting through `onRegistered` as at start),
   * starts their heartbeats and picks up pods already bound to them. Resolves once all registered.
   * Names already hosted are refused.
   */
  async addNodes(specs: readonly SimulatedNodeSpec[], onRegistered?: (registered: number, total: number) => void): Promise<void> {
    const seen = new Set<string>();
    for (const spec of specs) {
      if (this.nodes.has(spec.name) || seen.has(spec.name)) throw new Error(`node ${spec.name} is already hosted`);
      seen.add(spec.name);
    }
    const added = specs.map((spec) => this.newNode(spec));
    for (const n of added) this.nodes.set(n.spec.name, n);
    if (!this.running) return;
    this.preload(added);
    await this.registerNodes(added, onRegistered ?? this.opts.onRegistered);
    if (!this.running) return;
    // Pods bound before the node came (the informer delivered them while no node took them).
    for (const pod of this.podInformer?.list() ?? []) {
      if (seen.has(pod.spec?.nodeName ?? '')) this.onPod(pod);
    }
  }

  /**
   * Stops hosting nodes: their heartbeats and pod workers halt and queued events are written. The Node,
   * Lease and pod objects stay as they are (the caller drains and deletes them through the API).
   */
  async removeNodes(names: readonly string[]): Promise<void> {
    const removed: SimulatedNode[] = [];
    for (const name of names) {
      const n = this.nodes.get(name);
      if (n === undefined) continue;
      this.nodes.delete(name);
      n.registered = false;
      n.heartbeatTimer?.cancel();
      n.statusTimer?.cancel();
      n.csiNodeTimer?.cancel();
      for (const e of n.pods.values()) {
        e.deleted = true;
        e.timer?.cancel();
      }
      n.pods.clear();
      removed.push(n);
    }
    await Promise.all(removed.map((n) => n.recorder.flush()));
    for (const n of removed) n.recorder.stop();
  }

  /** Waits until the shared informers have synced (tests). */
  async waitForSync(): Promise<void> {
    await Promise.all([this.podInformer?.waitForSync(), this.nodeInformer?.waitForSync(), this.runtimeClassInformer?.waitForSync()]);
  }

  /** Halts heartbeats, pod workers and informers. Idempotent. Node and pod objects stay as they are. */
  stop(): void {
    if (!this.running) return;
    this.running = false;
    this.podInformer?.stop();
    this.nodeInformer?.stop();
    this.runtimeClassInformer?.stop();
    for (const n of this.nodes.values()) {
      n.heartbeatTimer?.cancel();
      n.statusTimer?.cancel();
      n.csiNodeTimer?.cancel();
      for (const e of n.pods.values()) e.timer?.cancel();
    }
  }

  /** Waits for pending event writes of every node (tests, shutdown). */
  async flushEvents(): Promise<void> {
    await Promise.all([...this.nodes.values()].map((n) => n.recorder.flush()));
  }

  /** `stop()`, then writes the events still queued and stops the recorders. */
  async shutdown(): Promise<void> {
    this.stop();
    await this.flushEvents();
    for (const n of this.nodes.values()) n.recorder.stop();
  }

  /**
   * Puts the preloaded images in each node's store. Nodes of one platform share one resolution: each costs
   * digests, and at 5,000 nodes resolving per node held the start of registration back by a tenth of a second.
   */
  private preload(nodes: Iterable<SimulatedNode>): void {
    const resolved = new Map<string, PullResolution>();
    for (const n of nodes) {
      const osVersion = windowsOsVersion(n.spec);
      for (const image of this.opts.preloadedImages ?? ['registry.k8s.io/pause:3.10']) {
        try {
          const key = `${image} ${n.spec.os}/${n.spec.arch} ${osVersion ?? ''}`;
          let r = resolved.get(key);
          if (r === undefined) {
            r = resolvePull(this.catalog, parseImageReference(image), { os: n.spec.os, architecture: n.spec.arch, ...(osVersion !== undefined ? { osVersion } : {}) });
            resolved.set(key, r);
          }
          if (r.ok) n.store.add(r.image);
        } catch (err) {
          this.log(`cannot preload ${image}`, err);
        }
      }
    }
  }

  // ---- registration ----

  /** Registers nodes, each starting its heartbeats once registered. */
  private async registerNodes(all: readonly SimulatedNode[], onRegistered: ((registered: number, total: number) => void) | undefined): Promise<void> {
    const sinceMs = this.now();
    let next = 0;
    let registered = 0;
    const workers = Array.from({ length: Math.min(this.opts.registrationConcurrency ?? defaultRegistrationConcurrency, all.length) }, async () => {
      for (let i = next++, n = all[i]; n !== undefined && this.running; i = next++, n = all[i]) {
        await this.registerWithRetry(n);
        if (this.hosts(n)) {
          this.startHeartbeats(n, i, all.length, sinceMs);
          this.initializeCSINode(n);
        }
        onRegistered?.(++registered, all.length);
      }
    });
    await Promise.all(workers);
  }

  private async registerWithRetry(n: SimulatedNode): Promise<void> {
    let delay = startupRetryFirstMs;
    while (this.hosts(n) && !n.registered) {
      try {
        await this.register(n);
        n.registered = true;
        await this.renewLease(n);
      } catch (err) {
        this.log(`registering node ${n.spec.name} failed`, err);
        await new Promise<void>((r) => this.clock.setTimeout(r, delay));
        delay = nextStartupRetryMs(delay);
      }
    }
  }

  private async register(n: SimulatedNode): Promise<void> {
    const nowMs = this.now();
    const node = initialNode(n.spec, { now: metav1Time(nowMs), networkReady: n.networkReady, images: n.store.nodeStatusImages() });
    try {
      n.nodeObj = await this.client.create<Node>(resources.nodes, node);
      this.recordRegistrationEvents(n);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      // The node exists (a restart): reconcile the kubelet-owned labels, then post status.
      const existing = await this.client.get<Node>(resources.nodes, n.spec.name);
      const wantLabels = kubeletNodeLabels(n.spec);
      const labels = existing.metadata?.labels ?? {};
      const missing = Object.entries(wantLabels).filter(([k, v]) => labels[k] !== v);
      const podCIDR = existing.spec?.podCIDR === undefined && n.spec.podCIDR !== undefined ? { podCIDR: n.spec.podCIDR, podCIDRs: [n.spec.podCIDR] } : undefined;
      if (missing.length > 0 || podCIDR !== undefined) {
        n.nodeObj = await this.client.patch<Node>(resources.nodes, n.spec.name, 'merge', {
          ...(missing.length > 0 ? { metadata: { labels: Object.fromEntries(missing) } } : {}),
          ...(podCIDR !== undefined ? { spec: podCIDR } : {}),
        });
      } else n.nodeObj = existing;
      this.recordEvent(n, 'Normal', 'Starting', 'Starting kubelet.');
      await this.postNodeStatus(n);
      return;
    }
    n.lastStatusPostMs = nowMs;
    n.lastStatusKey = this.statusKey(n);
  }

  private recordEvent(n: SimulatedNode, type: 'Normal' | 'Warning', reason: string, message: string): void {
    if (this.opts.nodeEvents === false) return;
    // The kubelet's node reference uses the node name as UID.
    n.recorder.event({ apiVersion: 'v1', kind: 'Node', metadata: { name: n.spec.name, uid: n.spec.name } }, type, reason, message);
  }

  private recordRegistrationEvents(n: SimulatedNode): void {
    const name = n.spec.name;
    this.recordEvent(n, 'Normal', 'Starting', 'Starting kubelet.');
    this.recordEvent(n, 'Normal', 'NodeHasSufficientMemory', `Node ${name} status is now: NodeHasSufficientMemory`);
    this.recordEvent(n, 'Normal', 'NodeHasNoDiskPressure', `Node ${name} status is now: NodeHasNoDiskPressure`);
    this.recordEvent(n, 'Normal', 'NodeHasSufficientPID', `Node ${name} status is now: NodeHasSufficientPID`);
    this.recordEvent(n, 'Normal', 'NodeAllocatableEnforced', 'Updated Node Allocatable limit across pods');
    if (n.networkReady) this.recordEvent(n, 'Normal', 'NodeReady', `Node ${name} status is now: NodeReady`);
  }

  // ---- CSINode ----

  /**
   * Initializes the CSINode of a node just registered, retrying with backoff until it succeeds or the node
   * is no longer hosted. The kubelet's CSI plugin does it from `initializeCSINode`
   * (`pkg/volume/csi/csi_plugin.go`), whose attempts read the Node: the CSINode follows registration. It
   * runs beside the heartbeats and holds up neither the next registration nor a lease renewal.
   */
  private initializeCSINode(n: SimulatedNode, delayMs = startupRetryFirstMs): void {
    this.ensureCSINode(n).catch((err: unknown) => {
      if (!this.hosts(n)) return;
      this.log(`initializing the CSINode of ${n.spec.name} failed`, err);
      n.csiNodeTimer = this.clock.setTimeout(() => {
        n.csiNodeTimer = undefined;
        if (this.hosts(n)) this.initializeCSINode(n, nextStartupRetryMs(delayMs));
      }, delayMs);
    });
  }

  /**
   * `InitializeCSINodeWithAnnotation` of the kubelet's CSI node-info manager
   * (`pkg/volume/csi/nodeinfomanager/nodeinfomanager.go`): `CreateCSINode` makes the CSINode named after the
   * node, owned by the Node (apiVersion v1, kind Node, name, uid), with no drivers and the migrated-plugins
   * annotation; one that exists (a restart) is updated only when its annotation names other plugins.
   * Upstream reads the CSINode, then the Node, before creating; here the create comes first with the uid the
   * registration answered, so a node costs one request, and the read only follows AlreadyExists.
   */
  private async ensureCSINode(n: SimulatedNode): Promise<void> {
    const name = n.spec.name;
    const uid = n.nodeObj?.metadata?.uid ?? (await this.client.get<Node>(resources.nodes, name)).metadata?.uid;
    if (uid === undefined) throw new Error(`node ${name} has no uid`);
    const csiNode: CSINode = {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSINode',
      metadata: {
        name,
        annotations: { [migratedPluginsAnnotationKey]: migratedPluginsAnnotation },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid }],
      },
      spec: { drivers: [] },
    };
    try {
      await this.client.create<CSINode>(resources.csinodes, csiNode, { answer: 'none' });
      return;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    const existing = await this.client.get<CSINode>(resources.csinodes, name);
    if (announcesMigratedPlugins(existing.metadata?.annotations?.[migratedPluginsAnnotationKey])) return;
    const annotations = { ...existing.metadata?.annotations, [migratedPluginsAnnotationKey]: migratedPluginsAnnotation };
    await this.client.update<CSINode>(resources.csinodes, { ...existing, metadata: { ...existing.metadata, annotations } }, { answer: 'none' });
  }

  // ---- heartbeats ----

  private heartbeat(n: SimulatedNode): void {
    if (!this.hosts(n)) return;
    n.heartbeatTimer = this.clock.setTimeout(() => this.heartbeat(n), this.leaseRenewIntervalMs);
    // A renewal still in flight (a slow API server) is not doubled: two updates from the same base would
    // conflict, and each conflict costs a GET and another update on a server that is already behind.
    if (!n.registered || n.leaseRenewing) return;
    n.leaseRenewing = true;
    this.renewLease(n)
      // A host that stopped meanwhile (shutdown closes its connection) has nothing to report.
      .catch((err: unknown) => {
        if (this.hosts(n)) this.log(`renewing the lease of ${n.spec.name} failed`, err);
      })
      .finally(() => {
        n.leaseRenewing = false;
      });
  }

  private leaseObject(n: SimulatedNode, nowMs: number): Lease {
    const nodeUid = this.currentNode(n.spec.name)?.metadata?.uid ?? n.nodeObj?.metadata?.uid;
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: n.spec.name,
        namespace: nodeLeaseNamespace,
        ...(nodeUid !== undefined ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: n.spec.name, uid: nodeUid }] } : {}),
      },
      spec: { holderIdentity: n.spec.name, leaseDurationSeconds: this.leaseDurationSeconds, renewTime: microTime(nowMs) },
    };
  }

  /** Creates or renews the node's Lease (`kube-node-lease/<node>`). */
  private async renewLease(n: SimulatedNode): Promise<void> {
    const nowMs = this.now();
    const want = this.leaseObject(n, nowMs);
    if (n.lease === undefined) {
      try {
        n.lease = await this.client.create<Lease>(resources.leases, want, { namespace: nodeLeaseNamespace });
        return;
      } catch (err) {
        if (isNotFound(err)) {
          // kube-apiserver creates kube-node-lease itself; an API server that does not gets it created here.
          await this.ensureLeaseNamespace();
          n.lease = await this.client.create<Lease>(resources.leases, want, { namespace: nodeLeaseNamespace });
          return;
        }
        if (!isAlreadyExists(err)) throw err;
        n.lease = await this.client.get<Lease>(resources.leases, n.spec.name, { namespace: nodeLeaseNamespace });
      }
    }
    const update = (base: Lease): Lease => ({ ...base, spec: { ...base.spec, holderIdentity: n.spec.name, leaseDurationSeconds: this.leaseDurationSeconds, renewTime: microTime(nowMs) } });
    try {
      n.lease = await this.client.update<Lease>(resources.leases, update(n.lease), { namespace: nodeLeaseNamespace });
    } catch (err) {
      if (isNotFound(err)) {
        n.lease = undefined;
        n.lease = await this.client.create<Lease>(resources.leases, want, { namespace: nodeLeaseNamespace });
      } else if (isConflict(err)) {
        const fresh = await this.client.get<Lease>(resources.leases, n.spec.name, { namespace: nodeLeaseNamespace });
        n.lease = await this.client.update<Lease>(resources.leases, update(fresh), { namespace: nodeLeaseNamespace });
      } else throw err;
    }
  }

  private async ensureLeaseNamespace(): Promise<void> {
    try {
      await this.client.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: nodeLeaseNamespace } });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }

  private statusKey(n: SimulatedNode): string {
    return JSON.stringify([n.networkReady, n.store.nodeStatusImages()]);
  }

  private statusTick(n: SimulatedNode): void {
    if (!this.hosts(n)) return;
    n.statusTimer = this.clock.setTimeout(() => this.statusTick(n), this.statusUpdateMs);
    if (!n.registered || n.statusPosting) return;
    const changed = this.statusKey(n) !== n.lastStatusKey;
    if (!changed && this.now() - n.lastStatusPostMs < this.statusReportMs) return;
    this.requestNodeStatus(n);
  }

  /** Posts node status now, or once the post in flight ends (its status may predate the change). */
  private requestNodeStatus(n: SimulatedNode): void {
    if (n.statusPosting) {
      n.statusRepost = true;
      return;
    }
    n.statusPosting = true;
    this.postNodeStatus(n)
      .catch((err: unknown) => {
        if (this.hosts(n)) this.log(`updating the status of node ${n.spec.name} failed`, err);
      })
      .finally(() => {
        n.statusPosting = false;
        if (!n.statusRepost) return;
        n.statusRepost = false;
        if (this.hosts(n) && n.registered) this.requestNodeStatus(n);
      });
  }

  /** Posts node status (conditions with heartbeat now, images). */
  private async postNodeStatus(n: SimulatedNode): Promise<void> {
    const nowMs = this.now();
    const previous = this.currentNode(n.spec.name)?.status?.conditions ?? n.nodeObj?.status?.conditions ?? [];
    const wasReady = previous.find((c) => c.type === 'Ready')?.status === 'True';
    const status = nodeStatus(n.spec, { now: metav1Time(nowMs), networkReady: n.networkReady, images: n.store.nodeStatusImages(), previousConditions: previous });
    const key = this.statusKey(n);
    n.nodeObj = await this.client.patch<Node>(resources.nodes, n.spec.name, 'merge', { status }, { subresource: 'status' });
    n.lastStatusPostMs = nowMs;
    n.lastStatusKey = key;
    if (n.networkReady && !wasReady) this.recordEvent(n, 'Normal', 'NodeReady', `Node ${n.spec.name} status is now: NodeReady`);
  }

  private setNetworkReady(n: SimulatedNode): void {
    if (n.networkReady) return;
    n.networkReady = true;
    if (n.registered) this.requestNodeStatus(n);
    // Pods waiting for the network go on at once.
    for (const uid of n.pods.keys()) this.scheduleSync(n, uid, this.now());
  }

  // ---- pods ----

  private onPod(pod: Pod): void {
    const nodeName = pod.spec?.nodeName;
    if (nodeName === undefined || nodeName === '') return;
    const n = this.nodes.get(nodeName);
    if (n === undefined) return;
    const uid = pod.metadata?.uid ?? '';
    const entry = n.pods.get(uid);
    if (entry === undefined) {
      // The kubelet ignores pods that are already terminal.
      const phase = pod.status?.phase;
      if (phase === 'Succeeded' || phase === 'Failed') return;
      n.pods.set(uid, { worker: new PodWorker(n.workerCtx, pod), writing: false, dirty: false, deleted: false, finalDeleteSent: false });
      // A network plugin that ran here before a restart left its CNI config on disk: the network is ready.
      if (phase === 'Running' && isNetworkPluginPod(pod)) this.setNetworkReady(n);
      this.scheduleSync(n, uid, this.now());
      return;
    }
    const old = entry.worker.current;
    entry.worker.update(pod, this.now());
    // Our own status writes come back as updates: resync only for what changes the pod's course.
    const deletionStarted = pod.metadata?.deletionTimestamp !== undefined && old.metadata?.deletionTimestamp === undefined;
    const annotationsChanged = !sameAnnotations(pod.metadata?.annotations, old.metadata?.annotations);
    const imagesChanged = !sameImages(pod, old);
    // Another writer changed a condition the kubelet owns (e.g. the node lifecycle controller marking pods
    // NotReady): as the kubelet's status manager does, write ours again.
    const overwritten = entry.lastWritten !== undefined && !entry.writing && conditionSummary(pod.status) !== entry.lastWrittenConditions;
    if (overwritten) {
      entry.lastWritten = undefined;
      entry.lastWrittenConditions = undefined;
    }
    if (deletionStarted || annotationsChanged || imagesChanged || overwritten) this.scheduleSync(n, uid, this.now());
  }

  private onPodDeleted(pod: Pod): void {
    const n = this.nodes.get(pod.spec?.nodeName ?? '');
    if (n === undefined) return;
    const uid = pod.metadata?.uid ?? '';
    const entry = n.pods.get(uid);
    if (entry === undefined) return;
    entry.deleted = true;
    entry.timer?.cancel();
    n.pods.delete(uid);
    n.ipAllocator?.release(uid);
  }

  private scheduleSync(n: SimulatedNode, uid: string, atMs: number): void {
    const entry = n.pods.get(uid);
    if (entry === undefined || !this.running) return;
    if (entry.timer !== undefined && entry.timerAt !== undefined && entry.timerAt <= atMs) return;
    entry.timer?.cancel();
    entry.timerAt = atMs;
    entry.timer = this.clock.setTimeout(() => {
      entry.timer = undefined;
      entry.timerAt = undefined;
      this.syncPod(n, uid);
    }, Math.max(0, atMs - this.now()));
  }

  private syncPod(n: SimulatedNode, uid: string): void {
    const entry = n.pods.get(uid);
    if (entry === undefined || entry.deleted || !this.running) return;
    const result = entry.worker.sync(this.now());
    if (!n.networkReady && isNetworkPluginPod(entry.worker.current) && entry.worker.hasRunningContainer) this.setNetworkReady(n);
    this.writeStatus(n, entry, result.status, result.readyForDeletion);
    if (result.nextSyncMs !== undefined) this.scheduleSync(n, uid, result.nextSyncMs);
  }

  private writeStatus(n: SimulatedNode, entry: PodEntry, status: PodStatus, readyForDeletion: boolean): void {
    const text = JSON.stringify(status);
    if (text === entry.lastWritten && !(readyForDeletion && !entry.finalDeleteSent)) return;
    if (entry.writing) {
      entry.dirty = true;
      return;
    }
    entry.writing = true;
    void this.doWriteStatus(n, entry, status, text, readyForDeletion).finally(() => {
      entry.writing = false;
      if (entry.dirty && !entry.deleted) {
        entry.dirty = false;
        const r = entry.worker.status(this.now());
        this.writeStatus(n, entry, r, readyForDeletion);
      }
    });
  }

  private async doWriteStatus(n: SimulatedNode, entry: PodEntry, status: PodStatus, text: string, readyForDeletion: boolean): Promise<void> {
    const pod = entry.worker.current;
    const name = pod.metadata?.name ?? '';
    const namespace = pod.metadata?.namespace ?? 'default';
    const conditions = conditionSummary(status);
    try {
      if (text !== entry.lastWritten) {
        // The written pod comes back through the pod watch; the answer would be a second copy.
        await this.client.patch<Pod>(resources.pods, name, 'merge', { metadata: { uid: pod.metadata?.uid }, status }, { namespace, subresource: 'status', answer: 'none' });
        entry.lastWritten = text;
        entry.lastWrittenConditions = conditions;
      }
      if (readyForDeletion && !entry.finalDeleteSent) {
        entry.finalDeleteSent = true;
        await this.client.delete(resources.pods, name, { namespace, gracePeriodSeconds: 0, ...(pod.metadata?.uid !== undefined ? { preconditions: { uid: pod.metadata.uid } } : {}) });
      }
    } catch (err) {
      if (isNotFound(err) || isConflict(err)) return;
      this.log(`writing the status of pod ${namespace}/${name} on ${n.spec.name} failed`, err);
      if (readyForDeletion) entry.finalDeleteSent = false;
      this.scheduleSync(n, pod.metadata?.uid ?? '', this.now() + this.timings.syncRetryMs);
    }
  }
}
