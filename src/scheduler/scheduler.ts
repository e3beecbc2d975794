/**
 * The kube-scheduler process as an API client (pkg/scheduler/scheduler.go, eventhandlers.go,
 * schedule_one.go's binding cycle and failure handling). Informers feed the cache (assigned pods, nodes)
 * and the queue (unassigned pods whose spec.schedulerName names one of our profiles); a loop pops pods,
 * runs the scheduling cycle and binds asynchronously through `pods/binding`. Failures are reported as
 * `Warning FailedScheduling` events and the `PodScheduled=False` condition (patched only when it changes).
 */
import type { Namespace, Node, NodeCondition, PersistentVolume, PersistentVolumeClaim, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { labelSelectorAsSelector, type Selector } from '../api/labels.js';
import { resources } from '../api/resources.js';
import type { Client } from '../client/client.js';
import { realClock, type Clock } from '../client/clock.js';
import { createEventsV1Recorder, type EventsV1Recorder } from '../client/events-v1.js';
import { createInformer, trimManagedFields, type Informer } from '../client/informer.js';
import { Cache } from './cache/cache.js';
import type { FitError } from './framework/fit-error.js';
import { ActionType, type ApiActions, type EventResource, type NominatingInfo, type SpreadingSelectorSource, type VolumeLister } from './framework/interfaces.js';
import { defaultProfile, defaultSchedulerName, type Profile } from './framework/profile.js';
import type { Registry } from './framework/registry.js';
import { Framework, type NamespaceLister } from './framework/runtime.js';
import type { Status } from './framework/status.js';
import { PodInfo } from './framework/types.js';
import { LeaderElector } from './leader-election.js';
import { PodReasonPreemptionByScheduler } from './plugins/default-preemption/default-preemption.js';
import { newInTreeRegistry } from './plugins/registry.js';
import { SchedulingQueue, type QueuedPodInfo, type RegisteredHint } from './queue/scheduling-queue.js';
import { SchedulingAlgorithm } from './schedule-one.js';

/** `validation.NoteLengthLimit`: events carry at most 1024 bytes of message. */
export const noteLengthLimit = 1024;

/** `truncateMessage`: cut to the note limit with a trailing " ...". */
export function truncateMessage(message: string): string {
  if (Buffer.byteLength(message) <= noteLengthLimit) return message;
  const suffix = ' ...';
  return Buffer.from(message).subarray(0, noteLengthLimit - suffix.length).toString() + suffix;
}

export interface SchedulerLeaderElectionOptions {
  identity: string;
  namespace?: string;
  name?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

export interface SchedulerOptions {
  client: Client;
  clock?: Clock;
  /** Uniform random in [0, 1) (host tie-breaks, preemption offset). */
  random?: () => number;
  /** The single profile's name when `profiles` is not given (default `default-scheduler`). */
  schedulerName?: string;
  profiles?: Profile[];
  registry?: Registry;
  percentageOfNodesToScore?: number;
  /** Every profile's events recorder (default: one per profile, reporting as its scheduler name). */
  recorder?: EventsV1Recorder;
  /** Campaign for `kube-system/kube-scheduler` and schedule only while leading. */
  leaderElection?: SchedulerLeaderElectionOptions;
  log?: (message: string, err?: unknown) => void;
}

const assigned = (p: Pod): boolean => (p.spec?.nodeName ?? '') !== '';
/** Scheduling cycles run back to back for at most this long before the loop yields its thread. */
const schedulingSliceMs = 10;
const json = (v: unknown): string => JSON.stringify(v ?? null);
/**
 * Whether two parts of an object's versions differ. The watching thread shares the parts a change left
 * alone between the versions (`reuseUnchanged`), so most comparisons end at the identity check.
 */
const differ = (a: unknown, b: unknown): boolean => a !== b && json(a) !== json(b);

function sameConditionStatuses(a: readonly NodeCondition[] | undefined, b: readonly NodeCondition[] | undefined): boolean {
  if (a === b) return true;
  if ((a?.length ?? 0) !== (b?.length ?? 0)) return false;
  for (let i = 0; i < (a?.length ?? 0); i++) {
    if (a?.[i]?.type !== b?.[i]?.type || a?.[i]?.status !== b?.[i]?.status) return false;
  }
  return true;
}

/** Node changes that can make pods schedulable (`nodeSchedulingPropertiesChange`). */
export function nodeUpdateActions(oldNode: Node, newNode: Node): number {
  let a = 0;
  if ((oldNode.spec?.unschedulable ?? false) !== (newNode.spec?.unschedulable ?? false)) a |= ActionType.UpdateNodeTaint;
  if (differ(oldNode.status?.allocatable, newNode.status?.allocatable)) a |= ActionType.UpdateNodeAllocatable;
  if (differ(oldNode.metadata?.labels, newNode.metadata?.labels)) a |= ActionType.UpdateNodeLabel;
  if (differ(oldNode.spec?.taints, newNode.spec?.taints)) a |= ActionType.UpdateNodeTaint;
  if (!sameConditionStatuses(oldNode.status?.conditions, newNode.status?.conditions)) a |= ActionType.UpdateNodeCondition;
  if (differ(oldNode.metadata?.annotations, newNode.metadata?.annotations)) a |= ActionType.UpdateNodeAnnotation;
  return a;
}

/** Assigned-pod changes that can make other pods schedulable. */
export function assignedPodUpdateActions(oldPod: Pod, newPod: Pod): number {
  let a = 0;
  if (differ(oldPod.metadata?.labels, newPod.metadata?.labels)) a |= ActionType.UpdatePodLabel;
  const reqs = (p: Pod): string => json((p.spec?.containers ?? []).map((c) => c.resources?.requests));
  if (oldPod.spec?.containers !== newPod.spec?.containers && reqs(oldPod) !== reqs(newPod)) a |= ActionType.UpdatePodScaleDown;
  return a;
}

export class Scheduler {
  private readonly client: Client;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly log: (message: string, err?: unknown) => void;
  private readonly injectedRecorder: EventsV1Recorder | undefined;
  private readonly recorders = new Map<string, EventsV1Recorder>();
  readonly cache = new Cache();
  readonly queue: SchedulingQueue;
  readonly algorithm: SchedulingAlgorithm;
  readonly profiles = new Map<string, Framework>();
  private readonly informers: Informer<never>[] = [];
  private podInformer: Informer<Pod> | undefined;
  private pdbInformer: Informer<PodDisruptionBudget> | undefined;
  private nsInformer: Informer<Namespace> | undefined;
  private svcInformer: Informer<Service> | undefined;
  private rsInformer: Informer<ReplicaSet> | undefined;
  private stsInformer: Informer<StatefulSet> | undefined;
  private pvcInformer: Informer<PersistentVolumeClaim> | undefined;
  private pvInformer: Informer<PersistentVolume> | undefined;
  private scInformer: Informer<StorageClass> | undefined;
  private elector: LeaderElector | undefined;
  private running = false;
  private loopDone: Promise<void> | undefined;
  private readonly bindings = new Set<Promise<void>>();

  constructor(private readonly opts: SchedulerOptions) {
    this.client = opts.client;
    this.clock = opts.clock ?? realClock;
    this.random = opts.random ?? Math.random;
    this.log = opts.log ?? ((m, e) => console.error(`scheduler: ${m}`, e ?? ''));
    this.injectedRecorder = opts.recorder;
    const registry = opts.registry ?? newInTreeRegistry();
    const profiles = opts.profiles ?? [defaultProfile(opts.schedulerName ?? defaultSchedulerName)];
    const api = this.apiActions();
    const namespaces: NamespaceLister = {
      labels: (ns) => this.nsInformer?.get(ns)?.metadata?.labels,
      matching: (sel) => (this.nsInformer?.list() ?? []).filter((n) => sel.matches(n.metadata?.labels)).map((n) => n.metadata?.name ?? ''),
    };
    const spreading = this.spreadingSource();
    const volumeLister = this.volumeLister();
    const hints = new Map<string, RegisteredHint[]>();
    for (const p of profiles) {
      const fwk = new Framework({ registry, profile: p, random: this.random, namespaces, spreadingSelectorSource: spreading, apiActions: api, volumeLister });
      this.profiles.set(p.schedulerName, fwk);
      const hs: RegisteredHint[] = [];
      for (const e of fwk.enqueueExtensions) for (const ev of e.events) hs.push({ event: ev.event, pluginName: e.pluginName, fn: ev.queueingHintFn });
      hints.set(p.schedulerName, hs);
    }
    const first = this.profiles.values().next().value;
    if (first === undefined) throw new Error('at least one profile is required');
    const sort = first.queueSortPlugin;
    this.queue = new SchedulingQueue({
      clock: this.clock,
      less: sort !== undefined ? (a, b) => sort.less(a, b) : (a, b) => a.timestamp < b.timestamp,
      preEnqueue: (pod) => (this.profiles.get(pod.spec?.schedulerName ?? defaultSchedulerName) ?? first).runPreEnqueuePlugins(pod),
      hints,
    });
    for (const f of this.profiles.values()) f.setNominator(this.queue);
    this.algorithm = new SchedulingAlgorithm({
      cache: this.cache,
      random: this.random,
      ...(opts.percentageOfNodesToScore !== undefined ? { percentageOfNodesToScore: opts.percentageOfNodesToScore } : {}),
      onAssumed: (pod) => this.queue.deleteNominatedPodIfExists(pod),
    });
  }

  private responsibleForPod(pod: Pod): boolean {
    return this.profiles.has(pod.spec?.schedulerName ?? defaultSchedulerName);
  }

  /** Starts informers, the queue's flushes and (when leading, or without leader election) the scheduling loop. */
  start(): void {
    if (this.running) return;
    this.running = true;
    // kube-scheduler drops managedFields from pods only (`newPodInformer`); nothing here reads them on any
    // kind, and without them each change's text is the one the controllers' informers of this thread get
    // (they drop them too), parsed once for all.
    const opts = { clock: this.clock, log: this.log, transform: trimManagedFields };
    const nodes = createInformer<Node>(this.client, resources.nodes, opts);
    // kube-scheduler's pod informer (`newPodInformer`): no terminal pods (one that finishes leaves the cache
    // and frees its room on the node).
    const pods = createInformer<Pod>(this.client, resources.pods, { ...opts, fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed' });
    this.podInformer = pods;
    this.pdbInformer = createInformer<PodDisruptionBudget>(this.client, resources.poddisruptionbudgets, opts);
    this.nsInformer = createInformer<Namespace>(this.client, resources.namespaces, opts);
    this.svcInformer = createInformer<Service>(this.client, resources.services, opts);
    this.rsInformer = createInformer<ReplicaSet>(this.client, resources.replicasets, opts);
    this.stsInformer = createInformer<StatefulSet>(this.client, resources.statefulsets, opts);
    // VolumeBinding's listers and events (storage objects are few; pods without claims never read them).
    this.pvcInformer = createInformer<PersistentVolumeClaim>(this.client, resources.persistentvolumeclaims, opts);
    this.pvInformer = createInformer<PersistentVolume>(this.client, resources.persistentvolumes, opts);
    this.scInformer = createInformer<StorageClass>(this.client, resources.storageclasses, opts);
    const storageEvents = (resource: EventResource): { onAdd: (o: object) => void; onUpdate: (o: object, n: object) => void; onDelete: (o: object) => void } => ({
      onAdd: (o) => this.queue.moveAllToActiveOrBackoffQueue({ resource, actionType: ActionType.Add, label: `${resource}Add` }, undefined, o),
      onUpdate: (o, n) => this.queue.moveAllToActiveOrBackoffQueue({ resource, actionType: ActionType.UpdateOther, label: `${resource}Update` }, o, n),
      onDelete: (o) => this.queue.moveAllToActiveOrBackoffQueue({ resource, actionType: ActionType.Delete, label: `${resource}Delete` }, o, undefined),
    });
    this.pvcInformer.addHandlers(storageEvents('PersistentVolumeClaim'));
    this.pvInformer.addHandlers(storageEvents('PersistentVolume'));
    this.scInformer.addHandlers(storageEvents('StorageClass'));
    nodes.addHandlers({
      onAdd: (n) => {
        this.cache.addNode(n);
        this.queue.moveAllToActiveOrBackoffQueue({ resource: 'Node', actionType: ActionType.Add, label: 'NodeAdd' }, undefined, n);
      },
      onUpdate: (o, n) => {
        this.cache.updateNode(o, n);
        const a = nodeUpdateActions(o, n);
        if (a !== 0) this.queue.moveAllToActiveOrBackoffQueue({ resource: 'Node', actionType: a, label: 'NodeUpdate' }, o, n);
      },
      onDelete: (n) => {
        this.cache.removeNode(n);
        this.queue.moveAllToActiveOrBackoffQueue({ resource: 'Node', actionType: ActionType.Delete, label: 'NodeDelete' }, n, undefined);
      },
    });
    pods.addHandlers({
      onAdd: (p) => this.onPodAdd(p),
      onUpdate: (o, n) => this.onPodUpdate(o, n),
      onDelete: (p) => this.onPodDelete(p),
    });
    for (const i of [nodes, pods, this.pdbInformer, this.nsInformer, this.svcInformer, this.rsInformer, this.stsInformer, this.pvcInformer, this.pvInformer, this.scInformer]) {
      this.informers.push(i as unknown as Informer<never>);
      i.start();
    }
    this.queue.run();
    const le = this.opts.leaderElection;
    if (le === undefined) {
      this.loopDone = this.loop();
      return;
    }
    this.elector = new LeaderElector({
      client: this.client,
      namespace: le.namespace ?? 'kube-system',
      name: le.name ?? 'kube-scheduler',
      identity: le.identity,
      leaseDurationMs: le.leaseDurationMs ?? 15_000,
      renewDeadlineMs: le.renewDeadlineMs ?? 10_000,
      retryPeriodMs: le.retryPeriodMs ?? 2_000,
      clock: this.clock,
      log: this.log,
      onStartedLeading: () => {
        this.loopDone ??= this.loop();
      },
      onStoppedLeading: () => {
        // kube-scheduler exits when it loses the lease; here we stop scheduling.
        this.queue.close();
      },
    });
    this.elector.start();
  }

  /** Stops the loop, waits for in-flight bindings, stops informers, releases the lease. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.queue.close();
    await this.loopDone;
    await Promise.allSettled([...this.bindings]);
    for (const i of this.informers.reverse()) i.stop();
    this.informers.length = 0;
    await this.elector?.stop();
    await this.injectedRecorder?.flush();
    for (const r of this.recorders.values()) {
      await r.flush();
      r.stop();
    }
    this.recorders.clear();
  }

  /**
   * The events recorder of the pod's profile (kube-scheduler's `NewRecorderFactory` makes one per profile,
   * whose reportingController is the profile's scheduler name).
   */
  private recorder(pod: Pod): EventsV1Recorder {
    if (this.injectedRecorder !== undefined) return this.injectedRecorder;
    const name = pod.spec?.schedulerName ?? defaultSchedulerName;
    let r = this.recorders.get(name);
    if (r === undefined) this.recorders.set(name, (r = createEventsV1Recorder(this.client, { reportingController: name, clock: this.clock })));
    return r;
  }

  /** Resolves when the informers have listed everything once. */
  async waitForSync(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.waitForSync()));
  }

  isLeader(): boolean {
    return this.elector === undefined ? this.running : this.elector.isLeader();
  }

  // ---- event handlers (eventhandlers.go) ----

  private onPodAdd(p: Pod): void {
    if (assigned(p)) {
      this.cache.addPod(p);
      this.queue.moveAllToActiveOrBackoffQueue({ resource: 'AssignedPod', actionType: ActionType.Add, label: 'AssignedPodAdd' }, undefined, p);
    } else if (this.responsibleForPod(p) && p.metadata?.deletionTimestamp === undefined) {
      this.queue.add(p);
    }
  }

  private onPodUpdate(o: Pod, n: Pod): void {
    if (assigned(n)) {
      if (!assigned(o)) {
        this.queue.delete(n);
        this.onPodAdd(n);
        return;
      }
      this.cache.updatePod(o, n);
      const a = assignedPodUpdateActions(o, n);
      if (a !== 0) this.queue.moveAllToActiveOrBackoffQueue({ resource: 'AssignedPod', actionType: a, label: 'AssignedPodUpdate' }, o, n);
      return;
    }
    if (!this.responsibleForPod(n)) return;
    if (n.metadata?.deletionTimestamp !== undefined) {
      this.queue.delete(n);
      return;
    }
    this.queue.update(o, n);
  }

  private onPodDelete(p: Pod): void {
    if (assigned(p)) {
      this.cache.removePod(p);
      this.queue.moveAllToActiveOrBackoffQueue({ resource: 'AssignedPod', actionType: ActionType.Delete, label: 'AssignedPodDelete' }, p, undefined);
    } else {
      this.queue.delete(p);
    }
  }

  // ---- the loop ----

  private async loop(): Promise<void> {
    let sliceStart = performance.now();
    for (;;) {
      // A full queue pops without waiting: after each slice, let the thread's other work in (replies to the
      // controllers sharing it, watch events), as kube-scheduler's goroutine shares the CPU with others.
      if (performance.now() - sliceStart >= schedulingSliceMs) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      const q = await this.queue.pop();
      if (q === undefined) return;
      try {
        this.scheduleOne(q);
      } catch (e) {
        this.log('scheduling cycle failed', e);
        this.queue.addUnschedulableIfNotPresent(q);
      }
    }
  }

  /** `ScheduleOne`: one scheduling cycle, then the binding cycle in the background. */
  scheduleOne(q: QueuedPodInfo): void {
    const pod = q.podInfo.pod;
    const fwk = this.profiles.get(pod.spec?.schedulerName ?? defaultSchedulerName);
    // `skipPodSchedule`: deleted meanwhile, or already assumed by an earlier cycle.
    if (fwk === undefined || pod.metadata?.deletionTimestamp !== undefined || this.cache.isAssumedPod(pod)) {
      this.queue.done(q.podInfo.uid);
      return;
    }
    const out = this.algorithm.schedulingCycle(fwk, pod);
    if (out.kind === 'failed') {
      this.handleSchedulingFailure(q, out.status, out.nominatingInfo, out.fitError);
      return;
    }
    const p = this.bindingCycle(fwk, q, out.assumedPod, out.nodeName, out.state).finally(() => this.bindings.delete(p));
    this.bindings.add(p);
  }

  private async bindingCycle(fwk: Framework, q: QueuedPodInfo, assumedPod: Pod, nodeName: string, state: Parameters<Framework['runBindPlugins']>[0]): Promise<void> {
    let status = await fwk.runPreBindPlugins(state, assumedPod, nodeName);
    if (status.isSuccess()) status = await fwk.runBindPlugins(state, assumedPod, nodeName);
    if (!status.isSuccess() && !status.isSkip()) {
      fwk.runReservePluginsUnreserve(state, assumedPod, nodeName);
      this.cache.forgetPod(assumedPod);
      // The freed space may let other pods in (upstream moves them as for an assigned-pod deletion).
      this.queue.moveAllToActiveOrBackoffQueue({ resource: 'AssignedPod', actionType: ActionType.Delete, label: 'AssignedPodDelete' }, assumedPod, undefined, (p) => p.metadata?.uid !== assumedPod.metadata?.uid);
      this.handleSchedulingFailure(q, status, { nominatedNodeName: '', mode: 'Override' }, undefined);
      return;
    }
    this.cache.finishBinding(assumedPod);
    const ns = assumedPod.metadata?.namespace ?? '';
    this.recorder(assumedPod).eventf(assumedPod, undefined, 'Normal', 'Scheduled', 'Binding', `Successfully assigned ${ns}/${assumedPod.metadata?.name ?? ''} to ${nodeName}`);
    fwk.runPostBindPlugins(state, assumedPod, nodeName);
    this.queue.done(q.podInfo.uid);
  }

  /** `handleSchedulingFailure`: requeue, nominate, record the event, patch the PodScheduled condition. */
  private handleSchedulingFailure(q: QueuedPodInfo, status: Status, nominatingInfo: NominatingInfo | undefined, fitError: FitError | undefined): void {
    const pod = q.podInfo.pod;
    const reason = status.isRejected() ? 'Unschedulable' : 'SchedulerError';
    const errMsg = status.message();
    if (fitError !== undefined) {
      q.unschedulablePlugins = new Set(fitError.diagnosis.unschedulablePlugins);
      q.pendingPlugins = new Set(fitError.diagnosis.pendingPlugins);
    } else {
      q.unschedulablePlugins = new Set();
      q.pendingPlugins = new Set();
    }
    const key = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    const cached = this.podInformer?.get(key);
    if (cached !== undefined && cached.metadata?.uid === pod.metadata?.uid && !assigned(cached)) {
      q.podInfo = new PodInfo(cached);
      this.queue.addUnschedulableIfNotPresent(q);
    } else {
      // Deleted meanwhile, or already bound: nothing to requeue.
      this.queue.done(q.podInfo.uid);
      if (cached === undefined || assigned(cached)) return;
    }
    if (nominatingInfo !== undefined && nominatingInfo.mode === 'Override') this.queue.addNominatedPod(q.podInfo, nominatingInfo.nominatedNodeName);
    this.recorder(pod).eventf(pod, undefined, 'Warning', 'FailedScheduling', 'Scheduling', truncateMessage(errMsg));
    void this.updatePodStatus(cached ?? pod, { type: 'PodScheduled', status: 'False', reason, message: errMsg }, nominatingInfo);
  }

  /** `updatePod`: patch the condition and nominatedNodeName only when something changes. */
  private async updatePodStatus(pod: Pod, cond: { type: string; status: string; reason: string; message: string }, nominatingInfo: NominatingInfo | undefined): Promise<void> {
    const old = (pod.status?.conditions ?? []).find((c) => c.type === cond.type);
    const conditionChanged = old === undefined || old.status !== cond.status || old.reason !== cond.reason || old.message !== cond.message;
    const nnn = nominatingInfo?.mode === 'Override' ? nominatingInfo.nominatedNodeName : undefined;
    const nnnChanged = nnn !== undefined && (pod.status?.nominatedNodeName ?? '') !== nnn;
    if (!conditionChanged && !nnnChanged) return;
    const now = new Date(this.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const condition = {
      ...cond,
      lastProbeTime: null,
      lastTransitionTime: old !== undefined && old.status === cond.status ? (old.lastTransitionTime ?? now) : now,
    };
    const status: Record<string, unknown> = { conditions: [condition] };
    if (nnnChanged) status['nominatedNodeName'] = nnn === '' ? null : nnn;
    try {
      await this.client.patch(resources.pods, pod.metadata?.name ?? '', 'strategic', { status }, { namespace: pod.metadata?.namespace ?? '', subresource: 'status' });
    } catch (e) {
      this.log(`error updating pod ${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`, e);
    }
  }

  // ---- API side effects for plugins ----

  private apiActions(): ApiActions {
    return {
      bind: async (pod, nodeName) => {
        const name = pod.metadata?.name ?? '';
        const namespace = pod.metadata?.namespace ?? '';
        await this.client.createSubresource(resources.pods, name, 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace, ...(pod.metadata?.uid !== undefined ? { uid: pod.metadata.uid } : {}) }, target: { kind: 'Node', name: nodeName } }, { namespace });
      },
      preemptVictim: async (victim, preemptor, nodeName) => {
        const name = victim.metadata?.name ?? '';
        const namespace = victim.metadata?.namespace ?? '';
        const schedulerName = preemptor.spec?.schedulerName ?? defaultSchedulerName;
        const now = new Date(this.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
        try {
          await this.client.patch(
            resources.pods,
            name,
            'strategic',
            { status: { conditions: [{ type: 'DisruptionTarget', status: 'True', reason: PodReasonPreemptionByScheduler, message: `${schedulerName}: preempting to accommodate a higher priority pod`, lastTransitionTime: now }] } },
            { namespace, subresource: 'status' },
          );
        } catch (e) {
          this.log(`could not add DisruptionTarget condition to ${namespace}/${name}`, e);
        }
        await this.client.delete(resources.pods, name, { namespace });
        this.recorder(preemptor).eventf(victim, preemptor, 'Normal', 'Preempted', 'Preempting', `Preempted by pod ${preemptor.metadata?.uid ?? ''} on node ${nodeName}`);
      },
      clearNominatedNodeName: async (pod) => {
        if ((pod.status?.nominatedNodeName ?? '') === '') return;
        await this.client.patch(resources.pods, pod.metadata?.name ?? '', 'merge', { status: { nominatedNodeName: null } }, { namespace: pod.metadata?.namespace ?? '', subresource: 'status' });
      },
      podDisruptionBudgets: () => (this.pdbInformer?.list() ?? []),
      updatePersistentVolume: (pv) => this.client.update(resources.persistentvolumes, pv),
      updatePersistentVolumeClaim: (pvc) => this.client.update(resources.persistentvolumeclaims, pvc, { namespace: pvc.metadata?.namespace ?? '' }),
    };
  }

  private volumeLister(): VolumeLister {
    return {
      persistentVolumeClaim: (namespace, name) => this.pvcInformer?.get(`${namespace}/${name}`),
      persistentVolume: (name) => this.pvInformer?.get(name),
      persistentVolumes: () => this.pvInformer?.list() ?? [],
      storageClass: (name) => this.scInformer?.get(name),
      podExists: (namespace, name, uid) => {
        const p = this.podInformer?.get(`${namespace}/${name}`);
        return p !== undefined && (uid === undefined || p.metadata?.uid === uid);
      },
    };
  }

  private spreadingSource(): SpreadingSelectorSource {
    const parsed = new WeakMap<LabelSelector, Selector | undefined>();
    return {
      serviceSelectors: (namespace) => (this.svcInformer?.list() ?? []).filter((s) => s.metadata?.namespace === namespace && s.spec?.selector !== undefined).map((s) => s.spec?.selector ?? {}),
      controllerSelector: (pod): Selector | undefined => {
        const owner = pod.metadata?.ownerReferences?.find((r) => r.controller === true);
        if (owner === undefined) return undefined;
        const key = `${pod.metadata?.namespace ?? ''}/${owner.name}`;
        let sel;
        if (owner.kind === 'ReplicaSet' && owner.apiVersion === 'apps/v1') sel = this.rsInformer?.get(key)?.spec?.selector;
        else if (owner.kind === 'StatefulSet' && owner.apiVersion === 'apps/v1') sel = this.stsInformer?.get(key)?.spec?.selector;
        if (sel === undefined) return undefined;
        // Informer objects are replaced, never mutated: a selector object parses to the same Selector.
        if (parsed.has(sel)) return parsed.get(sel);
        let out: Selector | undefined;
        try {
          out = labelSelectorAsSelector(sel);
        } catch {
          out = undefined;
        }
        parsed.set(sel, out);
        return out;
      },
    };
  }
}
