/**
 * The ReplicaSet controller (pkg/controller/replicaset/replica_set.go, v1.32): keeps `spec.replicas` active
 * pods per ReplicaSet, creating them in slow-start batches (1, 2, 4, ... capped at 500 per sync) and deleting
 * the lowest-ranked ones, adopting and releasing pods by selector, with expectations so that a pod is never
 * created twice; and writes the status.
 *
 * The same controller runs over ReplicationControllers (`replicationControllerKind`), as upstream's
 * replication manager (pkg/controller/replication) runs the ReplicaSet controller over them: their spec and
 * status have the same fields, but for the selector, a plain label map.
 */
import type { Pod, ReplicationController } from 'kubernetes-types/core/v1.js';
import type { ReplicaSet, ReplicaSetCondition, ReplicaSetStatus } from 'kubernetes-types/apps/v1.js';
import { isNotFound } from '../../api/errors.js';
import { labelSelectorAsSelector, selectorFromSet, Selector } from '../../api/labels.js';
import { resources, type ResourceType } from '../../api/resources.js';
import { semanticEqual,
  asError,
  errorMessage,
  objectKey,
  runWorkers,
  splitKey,
  type Controller,
  type ControllerContext,
  type EventRecorder,
  type Informer,
  type WorkQueue,
} from '../_context.js';
import { Expectations } from '../_expectations.js';
import { ClaimCandidateIndex } from '../_claim-index.js';
import { claimObjects, controllerRef, newControllerRef, recheckOwner } from '../_owner.js';
import {
  filterActivePods,
  formatTime,
  isPodActive,
  isPodAvailable,
  isPodReady,
  podCondition,
  podFromTemplate,
  podsToDelete,
  slowStartBatch,
} from '../_pods.js';
import { eventComponents, names, type ControllerName } from '../names.js';
import { omitZeros } from '../_status.js';
import { deepCopy } from '../../util/deep-copy.js';

/** `burstReplicas`: at most this many creations or deletions per sync. */
export const burstReplicas = 500;
/** `SlowStartInitialBatchSize`. */
export const slowStartInitialBatchSize = 1;

export const reasons = {
  SuccessfulCreate: 'SuccessfulCreate',
  FailedCreate: 'FailedCreate',
  SuccessfulDelete: 'SuccessfulDelete',
  FailedDelete: 'FailedDelete',
} as const;

export interface ReplicaSetControllerOptions {
  workers?: number;
}

/** What one controller manages: ReplicaSets, or ReplicationControllers seen as ReplicaSets. */
export interface ReplicatedKind {
  res: ResourceType;
  apiVersion: string;
  kind: string;
  /** The controller's name. */
  name: ControllerName;
  /** The source component of its events. */
  eventComponent: string;
  /** The object's pod selector (it may throw on a malformed one). */
  selector(obj: ReplicaSet): Selector;
}

export const replicaSetKind: ReplicatedKind = {
  res: resources.replicasets,
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  name: names.ReplicaSet,
  eventComponent: eventComponents.replicaSet,
  selector: (rs) => labelSelectorAsSelector(rs.spec?.selector),
};

export const replicationControllerKind: ReplicatedKind = {
  res: resources.replicationcontrollers,
  apiVersion: 'v1',
  kind: 'ReplicationController',
  name: names.ReplicationController,
  eventComponent: eventComponents.replicationController,
  selector: (rc) => selectorFromSet((rc as unknown as ReplicationController).spec?.selector),
};

/**
 * `calculateStatus`: counts over the claimed active pods; `ReplicaFailure` is set while creating or
 * deleting failed, and removed once a sync succeeds.
 */
export function calculateReplicaSetStatus(
  rs: ReplicaSet,
  filteredPods: readonly Pod[],
  manageErr: unknown,
  now: number,
): ReplicaSetStatus {
  const status: ReplicaSetStatus = deepCopy(rs.status ?? { replicas: 0 });
  const templateLabels = rs.spec?.template?.metadata?.labels ?? {};
  const templateSel = selectorFromSet(templateLabels);
  const minReady = rs.spec?.minReadySeconds ?? 0;
  let fully = 0;
  let ready = 0;
  let available = 0;
  for (const p of filteredPods) {
    if (templateSel.matches(p.metadata?.labels)) fully++;
    if (isPodReady(p)) {
      ready++;
      if (isPodAvailable(p, minReady, now)) available++;
    }
  }
  const conds = (status.conditions ?? []).filter((c) => c.type !== 'ReplicaFailure');
  const existing = status.conditions?.find((c) => c.type === 'ReplicaFailure');
  if (manageErr !== undefined && manageErr !== null) {
    if (existing !== undefined) conds.push(existing);
    else {
      const diff = filteredPods.length - (rs.spec?.replicas ?? 1);
      const cond: ReplicaSetCondition = {
        type: 'ReplicaFailure',
        status: 'True',
        lastTransitionTime: formatTime(now),
        reason: diff < 0 ? 'FailedCreate' : 'FailedDelete',
        message: errorMessage(manageErr),
      };
      conds.push(cond);
    }
  }
  if (conds.length > 0) status.conditions = conds;
  else delete status.conditions;
  status.replicas = filteredPods.length;
  status.fullyLabeledReplicas = fully;
  status.readyReplicas = ready;
  status.availableReplicas = available;
  return status;
}

/**
 * Whether what a sync derives from a pod beside its labels and owner differs: active or not, ready or not,
 * and since when (availability). The phase otherwise only ranks pods to delete, which the sync that deletes
 * reads afresh.
 */
function syncInputsChanged(old: Pod, cur: Pod): boolean {
  if (isPodActive(old) !== isPodActive(cur)) return true;
  const ready = isPodReady(cur);
  if (isPodReady(old) !== ready) return true;
  return ready && podCondition(old, 'Ready')?.lastTransitionTime !== podCondition(cur, 'Ready')?.lastTransitionTime;
}

function statusEqual(a: ReplicaSetStatus | undefined, b: ReplicaSetStatus): boolean {
  const norm = (s: ReplicaSetStatus | undefined): string =>
    JSON.stringify({
      replicas: s?.replicas ?? 0,
      fully: s?.fullyLabeledReplicas ?? 0,
      ready: s?.readyReplicas ?? 0,
      available: s?.availableReplicas ?? 0,
      gen: s?.observedGeneration ?? 0,
      conds: (s?.conditions ?? []).map((c) => [c.type, c.status, c.reason, c.message]),
    });
  return norm(a) === norm(b);
}

export class ReplicaSetController implements Controller {
  readonly name: ControllerName;
  private readonly queue: WorkQueue<string>;
  private readonly rsInformer: Informer<ReplicaSet>;
  private readonly podInformer: Informer<Pod>;
  private readonly claimCandidates: ClaimCandidateIndex;
  private readonly recorder: EventRecorder;
  readonly expectations: Expectations;
  private done: Promise<void> | undefined;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly opts: ReplicaSetControllerOptions = {},
    private readonly kind: ReplicatedKind = replicaSetKind,
  ) {
    this.name = kind.name;
    this.queue = ctx.newQueue();
    this.rsInformer = ctx.informer<ReplicaSet>(kind.res);
    this.podInformer = ctx.informer<Pod>(resources.pods);
    this.claimCandidates = new ClaimCandidateIndex(this.podInformer);
    this.recorder = ctx.recorder(kind.eventComponent);
    this.expectations = new Expectations(ctx.clock);
  }

  start(): void {
    this.rsInformer.addHandlers({
      onAdd: (rs) => this.queue.add(objectKey(rs)),
      onUpdate: (_o, rs) => this.queue.add(objectKey(rs)),
      onDelete: (rs) => {
        this.expectations.delete(objectKey(rs));
        this.queue.add(objectKey(rs));
      },
    });
    this.podInformer.addHandlers({
      onAdd: (p) => this.addPod(p),
      onUpdate: (o, p) => this.updatePod(o, p),
      onDelete: (p) => this.deletePod(p),
    });
    this.done = runWorkers(this.queue, (k) => this.sync(k), this.opts.workers ?? 5);
  }

  stop(): void {
    this.queue.shutDown();
  }

  /** Resolves when the workers have exited after stop(). */
  async stopped(): Promise<void> {
    await this.done;
  }

  private selectorOf(rs: ReplicaSet): Selector {
    try {
      return this.kind.selector(rs);
    } catch {
      return Selector.nothing();
    }
  }

  private resolveRef(namespace: string, ref: { kind: string; name: string; uid: string }): ReplicaSet | undefined {
    if (ref.kind !== this.kind.kind) return undefined;
    const rs = this.rsInformer.get(`${namespace}/${ref.name}`);
    return rs?.metadata?.uid === ref.uid ? rs : undefined;
  }

  private matchingReplicaSets(pod: Pod): ReplicaSet[] {
    const ns = pod.metadata?.namespace ?? '';
    return this.rsInformer
      .list()
      .filter((rs) => rs.metadata?.namespace === ns && this.selectorOf(rs).matches(pod.metadata?.labels));
  }

  private addPod(pod: Pod): void {
    if (pod.metadata?.deletionTimestamp !== undefined) {
      this.deletePod(pod);
      return;
    }
    const ref = controllerRef(pod.metadata);
    if (ref !== undefined) {
      const rs = this.resolveRef(pod.metadata?.namespace ?? '', ref);
      if (rs === undefined) return;
      this.expectations.creationObserved(objectKey(rs));
      this.queue.add(objectKey(rs));
      return;
    }
    for (const rs of this.matchingReplicaSets(pod)) this.queue.add(objectKey(rs));
  }

  private updatePod(old: Pod, cur: Pod): void {
    if (old.metadata?.resourceVersion === cur.metadata?.resourceVersion) return;
    const labelsChanged = !semanticEqual(old.metadata?.labels ?? {}, cur.metadata?.labels ?? {});
    if (cur.metadata?.deletionTimestamp !== undefined) {
      this.deletePod(cur);
      if (labelsChanged) this.deletePod(old);
      return;
    }
    const ns = cur.metadata?.namespace ?? '';
    const curRef = controllerRef(cur.metadata);
    const oldRef = controllerRef(old.metadata);
    if (oldRef !== undefined && oldRef.uid !== curRef?.uid) {
      const rs = this.resolveRef(ns, oldRef);
      if (rs !== undefined) this.queue.add(objectKey(rs));
    }
    if (curRef !== undefined) {
      const rs = this.resolveRef(ns, curRef);
      if (rs === undefined) return;
      const key = objectKey(rs);
      // Upstream syncs on every update. When nothing a sync derives from the pod changed and no creation or
      // deletion is awaited (awaited ones can expire, which only the next sync notices), that sync would
      // write nothing: the binding and the kubelet's status updates before Ready are skipped (about a third
      // of the pod updates while 150,000 pods start).
      if (!labelsChanged && oldRef?.uid === curRef.uid && !syncInputsChanged(old, cur) && this.expectations.fulfilled(key)) return;
      this.queue.add(key);
      const minReady = rs.spec?.minReadySeconds ?? 0;
      if (!isPodReady(old) && isPodReady(cur) && minReady > 0) this.queue.addAfter(key, (minReady + 1) * 1000);
      return;
    }
    if (labelsChanged || oldRef !== undefined) for (const rs of this.matchingReplicaSets(cur)) this.queue.add(objectKey(rs));
  }

  private deletePod(pod: Pod): void {
    const ref = controllerRef(pod.metadata);
    if (ref === undefined) return;
    const rs = this.resolveRef(pod.metadata?.namespace ?? '', ref);
    if (rs === undefined) return;
    const key = objectKey(rs);
    this.expectations.deletionObserved(key, objectKey(pod));
    this.queue.add(key);
  }

  /** `syncReplicaSet`. */
  async sync(key: string): Promise<void> {
    const { namespace } = splitKey(key);
    const rs = this.rsInformer.get(key);
    if (rs === undefined) {
      this.expectations.delete(key);
      return;
    }
    const needsSync = this.expectations.satisfied(key);
    const selector = this.selectorOf(rs);
    // The pods this ReplicaSet controls and the namespace's orphans: upstream lists the whole namespace,
    // whose other controllers' pods ClaimPods skips.
    const active = filterActivePods(this.claimCandidates.candidates(namespace, rs.metadata?.uid ?? ''));
    const filtered = await claimObjects(active, {
      client: this.ctx.client,
      res: resources.pods,
      owner: rs,
      ownerApiVersion: this.kind.apiVersion,
      ownerKind: this.kind.kind,
      selector,
      canAdopt: recheckOwner(this.ctx.client, this.kind.res, rs),
    });
    let manageErr: unknown;
    if (needsSync && rs.metadata?.deletionTimestamp === undefined) {
      try {
        await this.manageReplicas(filtered, rs, key);
      } catch (e) {
        manageErr = e;
      }
    }
    const now = this.ctx.clock.now();
    const status = omitZeros(
      { ...calculateReplicaSetStatus(rs, filtered, manageErr, now), observedGeneration: rs.metadata?.generation ?? 0 },
      ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
    );
    let updated = rs;
    if (!statusEqual(rs.status, status)) {
      try {
        updated = await this.ctx.client.update<ReplicaSet>(this.kind.res, { ...rs, status }, { subresource: 'status', namespace });
      } catch (e) {
        if (isNotFound(e)) return;
        throw e;
      }
    } else updated = { ...rs, status };
    const minReady = updated.spec?.minReadySeconds ?? 0;
    if (
      manageErr === undefined &&
      minReady > 0 &&
      updated.spec?.replicas === updated.status?.readyReplicas &&
      updated.status?.readyReplicas !== updated.status?.availableReplicas
    ) {
      this.queue.addAfter(key, minReady * 1000);
    }
    if (manageErr !== undefined) throw asError(manageErr);
  }

  /** `getIndirectlyRelatedPods`: the pods of every ReplicaSet of the same owner (or of this one alone). */
  private relatedPods(rs: ReplicaSet): Pod[] {
    const namespace = rs.metadata?.namespace ?? 'default';
    const owner = controllerRef(rs.metadata);
    const siblings = new Set<string>();
    if (owner === undefined) siblings.add(rs.metadata?.uid ?? '');
    else {
      for (const o of this.rsInformer.list()) {
        if (o.metadata?.namespace === rs.metadata?.namespace && controllerRef(o.metadata)?.uid === owner.uid) siblings.add(o.metadata?.uid ?? '');
      }
    }
    return [...siblings].flatMap((uid) => this.claimCandidates.controlledBy(namespace, uid));
  }

  /** `manageReplicas`. */
  private async manageReplicas(filtered: Pod[], rs: ReplicaSet, key: string): Promise<void> {
    const namespace = rs.metadata?.namespace ?? 'default';
    const want = rs.spec?.replicas ?? 1;
    let diff = filtered.length - want;
    if (diff < 0) {
      diff = Math.min(-diff, burstReplicas);
      this.expectations.expectCreations(key, diff);
      const ref = newControllerRef(rs, this.kind.apiVersion, this.kind.kind);
      const { successes, error } = await slowStartBatch(diff, slowStartInitialBatchSize, async () => {
        const pod = podFromTemplate(rs.spec?.template, namespace, ref);
        try {
          const created = await this.ctx.client.create<Pod>(resources.pods, pod, { namespace, answer: 'metadata' });
          this.recorder.event(rs, 'Normal', reasons.SuccessfulCreate, `Created pod: ${created.metadata?.name ?? ''}`);
        } catch (e) {
          this.recorder.event(rs, 'Warning', reasons.FailedCreate, `Error creating: ${errorMessage(e)}`);
          throw e;
        }
      });
      const skipped = diff - successes;
      if (skipped > 0) this.expectations.lowerCreations(key, skipped);
      if (error !== undefined) throw asError(error);
      return;
    }
    if (diff > 0) {
      diff = Math.min(diff, burstReplicas);
      const victims = podsToDelete(filtered, this.relatedPods(rs), diff, this.ctx.clock.now());
      this.expectations.expectDeletions(
        key,
        victims.map((p) => objectKey(p)),
      );
      const results = await Promise.allSettled(
        victims.map(async (p) => {
          const podName = p.metadata?.name ?? '';
          try {
            await this.ctx.client.delete(resources.pods, podName, { namespace });
            this.recorder.event(rs, 'Normal', reasons.SuccessfulDelete, `Deleted pod: ${podName}`);
          } catch (e) {
            if (isNotFound(e)) {
              this.expectations.deletionObserved(key, objectKey(p));
              return;
            }
            this.expectations.deletionObserved(key, objectKey(p));
            this.recorder.event(rs, 'Warning', reasons.FailedDelete, `Error deleting: ${errorMessage(e)}`);
            throw e;
          }
        }),
      );
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed !== undefined) throw asError(failed.reason);
    }
  }
}

export function create(ctx: ControllerContext, opts: ReplicaSetControllerOptions = {}): ReplicaSetController {
  return new ReplicaSetController(ctx, opts);
}

/** The replication manager: the same controller over ReplicationControllers. */
export function createReplicationManager(ctx: ControllerContext, opts: ReplicaSetControllerOptions = {}): ReplicaSetController {
  return new ReplicaSetController(ctx, opts, replicationControllerKind);
}
