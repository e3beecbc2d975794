/**
 * The disruption controller (pkg/controller/disruption/disruption.go, v1.32): keeps each
 * PodDisruptionBudget's status (expectedPods, currentHealthy, desiredHealthy, disruptionsAllowed,
 * disruptedPods, observedGeneration, the DisruptionAllowed condition) from the pods it selects and the
 * scale of their controllers.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PodDisruptionBudget, PodDisruptionBudgetStatus } from 'kubernetes-types/policy/v1.js';
import { isNotFound } from '../../api/errors.js';
import { resources } from '../../api/resources.js';
import { controllerRef } from '../_owner.js';
import { isPodReady, parseTime } from '../_pods.js';
import { semanticEqual, NamespaceIndex, errorMessage, objectKey, runWorkers, type Controller, type ControllerContext, type EventRecorder, type Informer, type WorkQueue } from '../_context.js';
import { scaledValue } from '../deployment/_util.js';
import { eventComponents, names } from '../names.js';
import { matchingPdbs } from './eviction.js';
import { DisruptionAllowedCondition, setStatusCondition, SyncFailedReason, updateDisruptionAllowedCondition } from './_pdb.js';

/** `DeletionTimeout`: how long an evicted pod stays in disruptedPods waiting to be deleted. */
export const deletionTimeoutMs = 2 * 60 * 1000;

/** A pod's controller as `getExpectedScale` resolves it: uid and replicas, or undefined when unmanaged. */
export type ScaleFinder = (pod: Pod) => { uid: string; replicas: number } | undefined;

export interface PdbComputation {
  expectedCount: number;
  desiredHealthy: number;
  currentHealthy: number;
  disruptedPods: Record<string, string>;
  unmanagedPods: string[];
  /** When the next disruptedPods entry expires (ms), if any. */
  recheckAt: number | undefined;
}

/** `buildDisruptedPodMap`: keeps entries of live pods that have not timed out. */
export function buildDisruptedPodMap(pods: readonly Pod[], pdb: PodDisruptionBudget, now: number): { map: Record<string, string>; recheckAt: number | undefined } {
  const old = pdb.status?.disruptedPods ?? {};
  const map: Record<string, string> = {};
  let recheckAt: number | undefined;
  for (const p of pods) {
    if (p.metadata?.deletionTimestamp !== undefined) continue;
    const t = old[p.metadata?.name ?? ''];
    if (t === undefined) continue;
    const at = parseTime(t) ?? 0;
    const expires = at + deletionTimeoutMs;
    if (expires < now) continue;
    map[p.metadata?.name ?? ''] = t;
    recheckAt = recheckAt === undefined ? expires : Math.min(recheckAt, expires);
  }
  return { map, recheckAt };
}

/** `countHealthyPods`. */
export function countHealthyPods(pods: readonly Pod[], disrupted: Record<string, string>, now: number): number {
  let n = 0;
  for (const p of pods) {
    if (p.metadata?.deletionTimestamp !== undefined) continue;
    const t = disrupted[p.metadata?.name ?? ''];
    if (t !== undefined && (parseTime(t) ?? 0) + deletionTimeoutMs > now) continue;
    if (isPodReady(p)) n++;
  }
  return n;
}

/** `getExpectedPodCount` + counts. Throws for an invalid minAvailable/maxUnavailable. */
export function computePdb(pdb: PodDisruptionBudget, pods: readonly Pod[], findScale: ScaleFinder, now: number): PdbComputation {
  const unmanagedPods: string[] = [];
  const expectedScale = (): number => {
    const seen = new Map<string, number>();
    for (const p of pods) {
      const s = findScale(p);
      if (s === undefined) {
        unmanagedPods.push(p.metadata?.name ?? '');
        continue;
      }
      seen.set(s.uid, s.replicas);
    }
    return [...seen.values()].reduce((a, b) => a + b, 0);
  };
  let expectedCount = 0;
  let desiredHealthy = 0;
  const maxUnavailable = pdb.spec?.maxUnavailable;
  const minAvailable = pdb.spec?.minAvailable;
  if (maxUnavailable !== undefined) {
    expectedCount = expectedScale();
    const mu = scaledValue(maxUnavailable, expectedCount, true);
    desiredHealthy = Math.max(0, expectedCount - mu);
  } else if (minAvailable !== undefined) {
    if (typeof minAvailable === 'number' || /^\d+$/.test(minAvailable)) {
      desiredHealthy = Number(minAvailable);
      expectedCount = pods.length;
    } else {
      expectedCount = expectedScale();
      desiredHealthy = scaledValue(minAvailable, expectedCount, true);
    }
  }
  const { map, recheckAt } = buildDisruptedPodMap(pods, pdb, now);
  const currentHealthy = countHealthyPods(pods, map, now);
  return { expectedCount, desiredHealthy, currentHealthy, disruptedPods: map, unmanagedPods, recheckAt };
}

/** `updatePdbStatus`'s status (disruptionsAllowed never negative, 0 while no pods are expected). */
export function pdbStatus(pdb: PodDisruptionBudget, c: PdbComputation, now: number): PodDisruptionBudgetStatus {
  let allowed = c.currentHealthy - c.desiredHealthy;
  if (c.expectedCount <= 0 || allowed <= 0) allowed = 0;
  const status: PodDisruptionBudgetStatus = {
    currentHealthy: c.currentHealthy,
    desiredHealthy: c.desiredHealthy,
    expectedPods: c.expectedCount,
    disruptionsAllowed: allowed,
    observedGeneration: pdb.metadata?.generation ?? 0,
  };
  if (Object.keys(c.disruptedPods).length > 0) status.disruptedPods = c.disruptedPods;
  if (pdb.status?.conditions !== undefined) status.conditions = pdb.status.conditions;
  const next: PodDisruptionBudget = { ...pdb, status };
  updateDisruptionAllowedCondition(next, now);
  return next.status ?? status;
}

export class DisruptionController implements Controller {
  readonly name = names.Disruption;
  private readonly queue: WorkQueue<string>;
  private readonly pdbInformer: Informer<PodDisruptionBudget>;
  private readonly podInformer: Informer<Pod>;
  private readonly rsInformer: Informer<ReplicaSet>;
  private readonly dInformer: Informer<Deployment>;
  private readonly stsInformer: Informer<StatefulSet>;
  private readonly recorder: EventRecorder;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = ctx.newQueue();
    this.pdbInformer = ctx.informer<PodDisruptionBudget>(resources.poddisruptionbudgets);
    this.podInformer = ctx.informer<Pod>(resources.pods);
    this.rsInformer = ctx.informer<ReplicaSet>(resources.replicasets);
    this.dInformer = ctx.informer<Deployment>(resources.deployments);
    this.stsInformer = ctx.informer<StatefulSet>(resources.statefulsets);
    this.recorder = ctx.recorder(eventComponents.disruption);
  }

  start(): void {
    this.pdbInformer.addHandlers({
      onAdd: (p) => this.queue.add(objectKey(p)),
      onUpdate: (_o, p) => this.queue.add(objectKey(p)),
      onDelete: (p) => this.queue.add(objectKey(p)),
    });
    const onPod = (p: Pod): void => {
      for (const pdb of matchingPdbs(p, this.pdbInformer.list())) this.queue.add(objectKey(pdb));
    };
    this.podInformer.addHandlers({ onAdd: onPod, onUpdate: (o, p) => (onPod(o), onPod(p)), onDelete: onPod });
    const enqueueAll = (): void => {
      for (const pdb of this.pdbInformer.list()) this.queue.add(objectKey(pdb));
    };
    for (const inf of [this.rsInformer, this.dInformer, this.stsInformer] as Informer<{ metadata?: object }>[]) {
      inf.addHandlers({ onUpdate: enqueueAll });
    }
    void runWorkers(this.queue, (k) => this.sync(k), 2);
  }

  stop(): void {
    this.queue.shutDown();
  }

  /** `getPodReplicaSet`/`getPodDeployment`/`getPodStatefulSet` finders. */
  private findScale: ScaleFinder = (pod) => {
    const ref = controllerRef(pod.metadata);
    const ns = pod.metadata?.namespace ?? '';
    if (ref === undefined) return undefined;
    if (ref.kind === 'ReplicaSet') {
      const rs = this.rsInformer.get(`${ns}/${ref.name}`);
      if (rs?.metadata?.uid !== ref.uid) return undefined;
      const dref = controllerRef(rs.metadata);
      if (dref?.kind === 'Deployment') {
        const d = this.dInformer.get(`${ns}/${dref.name}`);
        if (d?.metadata?.uid === dref.uid) return { uid: dref.uid, replicas: d.spec?.replicas ?? 1 };
        return undefined;
      }
      return { uid: ref.uid, replicas: rs.spec?.replicas ?? 1 };
    }
    if (ref.kind === 'StatefulSet') {
      const s = this.stsInformer.get(`${ns}/${ref.name}`);
      if (s?.metadata?.uid !== ref.uid) return undefined;
      return { uid: ref.uid, replicas: s.spec?.replicas ?? 1 };
    }
    // ReplicationControllers are not served by kubemix; other kinds would need the scale subresource.
    return undefined;
  };

  /** `sync` / `trySync` (and `failSafe` on errors). */
  async sync(key: string): Promise<void> {
    const pdb = this.pdbInformer.get(key);
    if (pdb === undefined) return;
    const pods = this.podInformer.byIndex(NamespaceIndex, pdb.metadata?.namespace ?? '').filter((p) => matchingPdbs(p, [pdb]).length > 0);
    const now = this.ctx.clock.now();
    let status: PodDisruptionBudgetStatus;
    let recheckAt: number | undefined;
    try {
      const c = computePdb(pdb, pods, this.findScale, now);
      if (c.unmanagedPods.length > 0) {
        const sel = JSON.stringify(pdb.spec?.selector ?? {});
        this.recorder.event(
          pdb,
          'Warning',
          'UnmanagedPods',
          `Pods selected by this PodDisruptionBudget (selector: ${sel}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`,
        );
      }
      status = pdbStatus(pdb, c, now);
      recheckAt = c.recheckAt;
    } catch (e) {
      this.recorder.event(pdb, 'Warning', 'CalculateExpectedPodCountFailed', `Failed to calculate the number of expected pods: ${errorMessage(e)}`);
      const conds = setStatusCondition((pdb.status?.conditions ?? []), { type: DisruptionAllowedCondition, status: 'False', reason: SyncFailedReason, message: errorMessage(e) }, now);
      status = { ...(pdb.status ?? { currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }), disruptionsAllowed: 0, conditions: conds };
    }
    if (!semanticEqual(status, pdb.status ?? {})) {
      try {
        await this.ctx.client.update(resources.poddisruptionbudgets, { ...pdb, status }, { subresource: 'status', namespace: pdb.metadata?.namespace ?? 'default' });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    if (recheckAt !== undefined) this.queue.addAfter(key, Math.max(0, recheckAt - now) + 1000);
  }
}

export function create(ctx: ControllerContext): DisruptionController {
  return new DisruptionController(ctx);
}
