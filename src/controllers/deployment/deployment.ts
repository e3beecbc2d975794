/**
 * The Deployment controller (pkg/controller/deployment, v1.32): owns one ReplicaSet per pod template
 * (named `<deployment>-<pod-template-hash>`), rolls out with RollingUpdate (maxSurge/maxUnavailable) or
 * Recreate, scales proportionally, keeps revision annotations that `kubectl rollout history|undo` read,
 * honours `spec.paused`, trims old ReplicaSets to `revisionHistoryLimit`, and writes status and the
 * Available/Progressing/ReplicaFailure conditions.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Deployment, DeploymentStatus, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { isAlreadyExists, isNotFound } from '../../api/errors.js';
import { labelSelectorAsSelector, Selector } from '../../api/labels.js';
import { resources } from '../../api/resources.js';
import { semanticEqual, NamespaceIndex,
  errorMessage,
  objectKey,
  runWorkers,
  type Controller,
  type ControllerContext,
  type EventRecorder,
  type Informer,
  type WorkQueue,
} from '../_context.js';
import { claimObjects, controllerRef, newControllerRef, recheckOwner } from '../_owner.js';
import { eventComponents, names } from '../names.js';
import {
  byCreation,
  byRevision,
  calculateStatus,
  computeHash,
  DefaultDeploymentUniqueLabelKey,
  deploymentComplete,
  DesiredReplicasAnnotation,
  equalIgnoreHash,
  filterActiveReplicaSets,
  findNewReplicaSet,
  getCondition,
  hasProgressDeadline,
  maxRevision,
  maxSurge,
  newCondition,
  newRSNewReplicas,
  planScale,
  reasons,
  reconcileNewReplicaSet,
  reconcileOldReplicaSets,
  replicasAnnotationsNeedUpdate,
  replicasOf,
  RevisionAnnotation,
  rolloutStatus,
  setDeploymentRevision,
  setCondition,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
  stuckRequeueAfter,
  type ScaleOp,
} from './_util.js';
import { deepCopy } from '../../util/deep-copy.js';

export interface DeploymentControllerOptions {
  workers?: number;
}

function selectorOf(d: Deployment): Selector {
  try {
    return labelSelectorAsSelector(d.spec?.selector);
  } catch {
    return Selector.nothing();
  }
}

function nsOf(o: { metadata?: { namespace?: string } }): string {
  return o.metadata?.namespace ?? 'default';
}

export class DeploymentController implements Controller {
  readonly name = names.Deployment;
  private readonly queue: WorkQueue<string>;
  private readonly dInformer: Informer<Deployment>;
  private readonly rsInformer: Informer<ReplicaSet>;
  private readonly podInformer: Informer<Pod>;
  private readonly recorder: EventRecorder;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly opts: DeploymentControllerOptions = {},
  ) {
    this.queue = ctx.newQueue();
    this.dInformer = ctx.informer<Deployment>(resources.deployments);
    this.rsInformer = ctx.informer<ReplicaSet>(resources.replicasets);
    this.podInformer = ctx.informer<Pod>(resources.pods);
    this.recorder = ctx.recorder(eventComponents.deployment);
  }

  start(): void {
    this.dInformer.addHandlers({
      onAdd: (d) => this.queue.add(objectKey(d)),
      onUpdate: (_o, d) => this.queue.add(objectKey(d)),
      onDelete: (d) => this.queue.add(objectKey(d)),
    });
    const onRS = (rs: ReplicaSet): void => {
      const ref = controllerRef(rs.metadata);
      if (ref !== undefined) {
        const d = this.resolve(nsOf(rs), ref);
        if (d !== undefined) this.queue.add(objectKey(d));
        return;
      }
      for (const d of this.dInformer.list()) {
        if (nsOf(d) === nsOf(rs) && selectorOf(d).matches(rs.metadata?.labels)) this.queue.add(objectKey(d));
      }
    };
    this.rsInformer.addHandlers({
      onAdd: onRS,
      onUpdate: (o, rs) => {
        const oldRef = controllerRef(o.metadata);
        if (oldRef !== undefined && oldRef.uid !== controllerRef(rs.metadata)?.uid) {
          const d = this.resolve(nsOf(o), oldRef);
          if (d !== undefined) this.queue.add(objectKey(d));
        }
        onRS(rs);
      },
      onDelete: (rs) => {
        const ref = controllerRef(rs.metadata);
        if (ref === undefined) return;
        const d = this.resolve(nsOf(rs), ref);
        if (d !== undefined) this.queue.add(objectKey(d));
      },
    });
    this.podInformer.addHandlers({
      // Recreate waits for the old pods to be gone (`deletePod`).
      onDelete: (p) => {
        const ref = controllerRef(p.metadata);
        if (ref?.kind !== 'ReplicaSet') return;
        const rs = this.rsInformer.get(`${nsOf(p)}/${ref.name}`);
        const dref = rs === undefined ? undefined : controllerRef(rs.metadata);
        if (dref === undefined) return;
        const d = this.resolve(nsOf(p), dref);
        if (d?.spec?.strategy?.type === 'Recreate') this.queue.add(objectKey(d));
      },
    });
    void runWorkers(this.queue, (k) => this.sync(k), this.opts.workers ?? 5);
  }

  stop(): void {
    this.queue.shutDown();
  }

  private resolve(ns: string, ref: { kind: string; name: string; uid: string }): Deployment | undefined {
    if (ref.kind !== 'Deployment') return undefined;
    const d = this.dInformer.get(`${ns}/${ref.name}`);
    return d?.metadata?.uid === ref.uid ? d : undefined;
  }

  /** `syncDeployment`. */
  async sync(key: string): Promise<void> {
    const cached = this.dInformer.get(key);
    if (cached === undefined) return;
    const d = deepCopy(cached);
    const ns = nsOf(d);
    const sel = d.spec?.selector;
    if (sel !== undefined && Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0) {
      this.recorder.event(d, 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      if ((d.status?.observedGeneration ?? 0) < (d.metadata?.generation ?? 0)) {
        await this.updateStatus(d, { ...(d.status ?? {}), observedGeneration: d.metadata?.generation ?? 0 });
      }
      return;
    }
    const rsList = await claimObjects(
      this.rsInformer.byIndex(NamespaceIndex, ns),
      {
        client: this.ctx.client,
        res: resources.replicasets,
        owner: d,
        ownerApiVersion: 'apps/v1',
        ownerKind: 'Deployment',
        selector: selectorOf(d),
        canAdopt: recheckOwner(this.ctx.client, resources.deployments, d),
      },
    );
    if (d.metadata?.deletionTimestamp !== undefined) {
      await this.syncStatusOnly(d, rsList);
      return;
    }
    await this.checkPausedConditions(d);
    if (d.spec?.paused === true) {
      await this.syncScale(d, rsList);
      return;
    }
    if (await this.isScalingEvent(d, rsList)) {
      await this.syncScale(d, rsList);
      return;
    }
    if (d.spec?.strategy?.type === 'Recreate') await this.rolloutRecreate(d, rsList);
    else await this.rolloutRolling(d, rsList);
  }

  /**
   * `UpdateStatus` of `d` with `status`. The request carries `d`'s metadata: the Deployment status strategy
   * keeps its annotations (the revision annotation travels this way) and resets only spec and labels.
   */
  private async updateStatus(d: Deployment, status: DeploymentStatus): Promise<void> {
    const updated = await this.ctx.client.update<Deployment>(resources.deployments, { ...d, status }, { subresource: 'status', namespace: nsOf(d) });
    d.status = status;
    if (updated.metadata?.resourceVersion !== undefined) d.metadata = { ...d.metadata, resourceVersion: updated.metadata.resourceVersion };
  }

  private async checkPausedConditions(d: Deployment): Promise<void> {
    if (!hasProgressDeadline(d)) return;
    const cond = getCondition(d.status, 'Progressing');
    if (cond?.reason === reasons.TimedOut) return;
    const pausedExists = cond?.reason === reasons.Paused;
    const status = deepCopy(d.status ?? {});
    const now = this.ctx.clock.now();
    if (d.spec?.paused === true && !pausedExists) {
      setCondition(status, newCondition('Progressing', 'Unknown', reasons.Paused, 'Deployment is paused', now));
    } else if (d.spec?.paused !== true && pausedExists) {
      setCondition(status, newCondition('Progressing', 'Unknown', reasons.Resumed, 'Deployment is resumed', now));
    } else return;
    await this.updateStatus(d, status);
  }

  /** `getAllReplicaSetsAndSyncRevision` + `getNewReplicaSet`. */
  private async getAllReplicaSets(
    d: Deployment,
    rsList: ReplicaSet[],
    createIfNotExisted: boolean,
  ): Promise<{ newRS: ReplicaSet | undefined; oldRSs: ReplicaSet[] }> {
    const existing = findNewReplicaSet(d, rsList);
    const oldRSs = rsList.filter((rs) => rs !== existing);
    const newRevision = String(maxRevision(oldRSs) + 1);
    const ns = nsOf(d);
    const now = this.ctx.clock.now();
    if (existing !== undefined) {
      const rsCopy = deepCopy(existing);
      const annotationsUpdated = setNewReplicaSetAnnotations(d, rsCopy, newRevision, true);
      const minReadyNeedsUpdate = (rsCopy.spec?.minReadySeconds ?? 0) !== (d.spec?.minReadySeconds ?? 0);
      if (annotationsUpdated || minReadyNeedsUpdate) {
        if (rsCopy.spec !== undefined) rsCopy.spec.minReadySeconds = d.spec?.minReadySeconds ?? 0;
        const updated = await this.ctx.client.update<ReplicaSet>(resources.replicasets, rsCopy, { namespace: ns });
        return { newRS: updated, oldRSs };
      }
      // The revision annotation goes with the status update, as upstream's UpdateStatus (the Deployment
      // status strategy keeps annotations; a write of the main resource would bump the generation).
      let needsUpdate = setDeploymentRevision(d, rsCopy.metadata?.annotations?.[RevisionAnnotation] ?? '');
      const status = deepCopy(d.status ?? {});
      if (hasProgressDeadline(d) && getCondition(d.status, 'Progressing') === undefined) {
        setCondition(status, newCondition('Progressing', 'True', reasons.FoundNewReplicaSet, `Found new replica set "${rsCopy.metadata?.name ?? ''}"`, now));
        needsUpdate = true;
      }
      if (needsUpdate) await this.updateStatus(d, status);
      return { newRS: rsCopy, oldRSs };
    }
    if (!createIfNotExisted) return { newRS: undefined, oldRSs };

    const template = deepCopy(d.spec?.template ?? {});
    const hash = computeHash(d.spec?.template, d.status?.collisionCount);
    const tm = (template.metadata ??= {});
    tm.labels = { ...(tm.labels ?? {}), [DefaultDeploymentUniqueLabelKey]: hash };
    const selector = deepCopy(d.spec?.selector ?? {});
    selector.matchLabels = { ...(selector.matchLabels ?? {}), [DefaultDeploymentUniqueLabelKey]: hash };
    const newRS: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata?.name ?? ''}-${hash}`,
        namespace: ns,
        ownerReferences: [newControllerRef(d, 'apps/v1', 'Deployment')],
        labels: { ...tm.labels },
      },
      spec: { replicas: 0, minReadySeconds: d.spec?.minReadySeconds ?? 0, selector, template },
    };
    const count = newRSNewReplicas(d, [...oldRSs, newRS], newRS);
    if (newRS.spec !== undefined) newRS.spec.replicas = count;
    setNewReplicaSetAnnotations(d, newRS, newRevision, false);
    let createdRS: ReplicaSet;
    let alreadyExists = false;
    try {
      createdRS = await this.ctx.client.create<ReplicaSet>(resources.replicasets, newRS, { namespace: ns });
    } catch (e) {
      if (isAlreadyExists(e)) {
        alreadyExists = true;
        const rs = await this.ctx.client.get<ReplicaSet>(resources.replicasets, newRS.metadata?.name ?? '', { namespace: ns });
        const ref = controllerRef(rs.metadata);
        if (ref !== undefined && ref.uid === d.metadata?.uid && equalIgnoreHash(d.spec?.template, rs.spec?.template)) {
          createdRS = rs;
        } else {
          // A hash collision: bump collisionCount so the next sync computes another name.
          const status = deepCopy(d.status ?? {});
          status.collisionCount = (status.collisionCount ?? 0) + 1;
          await this.updateStatus(d, status);
          throw e;
        }
      } else {
        if (hasProgressDeadline(d)) {
          const msg = `Failed to create new replica set "${newRS.metadata?.name ?? ''}": ${errorMessage(e)}`;
          const status = deepCopy(d.status ?? {});
          setCondition(status, newCondition('Progressing', 'False', reasons.FailedRSCreate, msg, now));
          await this.updateStatus(d, status);
          this.recorder.event(d, 'Warning', reasons.FailedRSCreate, msg);
        }
        throw e;
      }
    }
    if (!alreadyExists && count > 0) {
      this.recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${createdRS.metadata?.name ?? ''} from 0 to ${count}`);
    }
    let needsUpdate = setDeploymentRevision(d, newRevision);
    const status = deepCopy(d.status ?? {});
    if (!alreadyExists && hasProgressDeadline(d)) {
      setCondition(status, newCondition('Progressing', 'True', reasons.NewReplicaSetCreated, `Created new replica set "${createdRS.metadata?.name ?? ''}"`, now));
      needsUpdate = true;
    }
    if (needsUpdate) await this.updateStatus(d, status);
    return { newRS: createdRS, oldRSs };
  }

  /** `scaleReplicaSet`: writes the size and the desired/max annotations; records ScalingReplicaSet. */
  private async scaleReplicaSet(rs: ReplicaSet, to: number, d: Deployment, operation: string): Promise<{ scaled: boolean; rs: ReplicaSet }> {
    const from = replicasOf(rs);
    const sizeNeedsUpdate = from !== to;
    const max = replicasOf(d) + maxSurge(d);
    if (!sizeNeedsUpdate && !replicasAnnotationsNeedUpdate(rs, replicasOf(d), max)) return { scaled: false, rs };
    const copy = deepCopy(rs);
    if (copy.spec !== undefined) copy.spec.replicas = to;
    setReplicasAnnotations(copy, replicasOf(d), max);
    const updated = await this.ctx.client.update<ReplicaSet>(resources.replicasets, copy, { namespace: nsOf(rs) });
    if (sizeNeedsUpdate) {
      this.recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled ${operation} replica set ${rs.metadata?.name ?? ''} to ${to} from ${from}`);
    }
    return { scaled: sizeNeedsUpdate, rs: updated };
  }

  private async applyOps(ops: readonly ScaleOp[], d: Deployment): Promise<boolean> {
    let scaled = false;
    for (const op of ops) {
      const r = await this.scaleReplicaSet(op.rs, op.to, d, op.operation);
      scaled ||= r.scaled;
    }
    return scaled;
  }

  private async isScalingEvent(d: Deployment, rsList: ReplicaSet[]): Promise<boolean> {
    const { newRS, oldRSs } = await this.getAllReplicaSets(d, rsList, false);
    for (const rs of filterActiveReplicaSets([...oldRSs, newRS])) {
      const v = rs.metadata?.annotations?.[DesiredReplicasAnnotation];
      if (v === undefined || !/^\d+$/.test(v)) continue;
      if (Number(v) !== replicasOf(d)) return true;
    }
    return false;
  }

  /** `sync`: a scaling event or a paused deployment. */
  private async syncScale(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const { newRS, oldRSs } = await this.getAllReplicaSets(d, rsList, false);
    await this.applyOps(planScale(d, newRS, oldRSs), d);
    if (d.spec?.paused === true) await this.cleanupDeployment(oldRSs, d);
    await this.syncDeploymentStatus(d, rsList, newRS);
  }

  private freshList(d: Deployment): ReplicaSet[] {
    return this.rsInformer.byIndex(NamespaceIndex, nsOf(d)).filter((rs) => controllerRef(rs.metadata)?.uid === d.metadata?.uid);
  }

  private async syncDeploymentStatus(d: Deployment, _rsList: ReplicaSet[], newRS: ReplicaSet | undefined): Promise<void> {
    const all = this.freshList(d);
    const nrs = newRS === undefined ? undefined : (all.find((r) => r.metadata?.uid === newRS.metadata?.uid) ?? newRS);
    const status = calculateStatus(all, nrs, d, this.ctx.clock.now());
    if (semanticEqual(status, d.status ?? {})) return;
    await this.updateStatus(d, status);
  }

  private async syncStatusOnly(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const { newRS } = await this.getAllReplicaSets(d, rsList, false);
    await this.syncDeploymentStatus(d, rsList, newRS);
  }

  /** `syncRolloutStatus`. */
  private async syncRolloutStatus(d: Deployment, allRSs: (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined): Promise<void> {
    const now = this.ctx.clock.now();
    const status = rolloutStatus(allRSs, newRS, d, now);
    if (semanticEqual(status, d.status ?? {})) {
      const after = stuckRequeueAfter(d, status, now);
      if (after !== undefined) this.queue.addAfter(objectKey(d), after);
      return;
    }
    await this.updateStatus(d, status);
  }

  private async rolloutRolling(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const { newRS, oldRSs } = await this.getAllReplicaSets(d, rsList, true);
    const allRSs = [...oldRSs, newRS];
    if (newRS !== undefined) {
      const target = reconcileNewReplicaSet(d, allRSs, newRS);
      if (target !== undefined) {
        const r = await this.scaleReplicaSet(newRS, target, d, target > replicasOf(newRS) ? 'up' : 'down');
        if (r.scaled) {
          await this.syncRolloutStatus(d, [...oldRSs, r.rs], r.rs);
          return;
        }
      }
    }
    const ops = reconcileOldReplicaSets(allRSs, filterActiveReplicaSets(oldRSs), newRS, d);
    if (await this.applyOps(ops, d)) {
      await this.syncRolloutStatus(d, allRSs, newRS);
      return;
    }
    if (deploymentComplete(d, d.status ?? {})) await this.cleanupDeployment(oldRSs, d);
    await this.syncRolloutStatus(d, allRSs, newRS);
  }

  private oldPodsRunning(newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): boolean {
    if (oldRSs.reduce((n, rs) => n + (rs.status?.replicas ?? 0), 0) > 0) return true;
    const oldUids = new Set(oldRSs.map((rs) => rs.metadata?.uid ?? ''));
    return this.podInformer.list().some((p) => {
      const uid = controllerRef(p.metadata)?.uid ?? '';
      if (!oldUids.has(uid) || uid === newRS?.metadata?.uid) return false;
      const phase = p.status?.phase;
      return phase !== 'Failed' && phase !== 'Succeeded';
    });
  }

  private async rolloutRecreate(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    let { newRS, oldRSs } = await this.getAllReplicaSets(d, rsList, false);
    const allRSs = (): (ReplicaSet | undefined)[] => [...oldRSs, newRS];
    const downOps: ScaleOp[] = filterActiveReplicaSets(oldRSs).map((rs) => ({ rs, to: 0, operation: 'down' }));
    if (await this.applyOps(downOps, d)) {
      await this.syncRolloutStatus(d, allRSs(), newRS);
      return;
    }
    if (this.oldPodsRunning(newRS, oldRSs)) {
      await this.syncRolloutStatus(d, allRSs(), newRS);
      return;
    }
    if (newRS === undefined) ({ newRS, oldRSs } = await this.getAllReplicaSets(d, rsList, true));
    if (newRS !== undefined) {
      const r = await this.scaleReplicaSet(newRS, replicasOf(d), d, replicasOf(newRS) < replicasOf(d) ? 'up' : 'down');
      newRS = r.rs;
    }
    if (deploymentComplete(d, d.status ?? {})) await this.cleanupDeployment(oldRSs, d);
    await this.syncRolloutStatus(d, allRSs(), newRS);
  }

  /** `cleanupDeployment`: deletes the oldest idle replica sets beyond revisionHistoryLimit. */
  private async cleanupDeployment(oldRSs: ReplicaSet[], d: Deployment): Promise<void> {
    const limit = d.spec?.revisionHistoryLimit ?? 10;
    const cleanable = oldRSs.filter((rs) => rs.metadata?.deletionTimestamp === undefined);
    const diff = cleanable.length - limit;
    if (diff <= 0) return;
    cleanable.sort(byRevision);
    for (const rs of cleanable.slice(0, diff)) {
      if ((rs.status?.replicas ?? 0) !== 0 || replicasOf(rs) !== 0) continue;
      if ((rs.metadata?.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
      try {
        await this.ctx.client.delete(resources.replicasets, rs.metadata?.name ?? '', { namespace: nsOf(rs) });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
  }
}

/** Sorts replica sets oldest first (exported for tests of the rollout math). */
export const sortByCreation = (rss: ReplicaSet[]): ReplicaSet[] => rss.sort(byCreation);

export function create(ctx: ControllerContext, opts: DeploymentControllerOptions = {}): DeploymentController {
  return new DeploymentController(ctx, opts);
}
