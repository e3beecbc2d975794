/**
 * The StatefulSet controller (pkg/controller/statefulset, v1.32): pods `<set>-<ordinal>` with stable
 * hostname/subdomain and the `statefulset.kubernetes.io/pod-name` and `apps.kubernetes.io/pod-index`
 * labels, PersistentVolumeClaims `<claim>-<set>-<ordinal>` from volumeClaimTemplates, OrderedReady (one at a
 * time, in order, waiting for Running and Ready) or Parallel management, scale-down from the highest
 * ordinal, RollingUpdate (highest ordinal first, down to the partition) or OnDelete, ControllerRevisions and
 * status.
 */
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { ControllerRevision, StatefulSet, StatefulSetStatus } from 'kubernetes-types/apps/v1.js';
import { isAlreadyExists, isNotFound } from '../../api/errors.js';
import { labelSelectorAsSelector, Selector } from '../../api/labels.js';
import { resources } from '../../api/resources.js';
import { semanticEqual, NamespaceIndex, errorMessage, objectKey, runWorkers, type Controller, type ControllerContext, type EventRecorder, type Informer, type WorkQueue } from '../_context.js';
import { claimObjects, controllerRef, newControllerRef, recheckOwner } from '../_owner.js';
import { isPodAvailable, isPodReady } from '../_pods.js';
import { computeHash } from '../deployment/_util.js';
import { eventComponents, names } from '../names.js';
import { omitZeros } from '../_status.js';
import { deepCopy } from '../../util/deep-copy.js';

export const StatefulSetPodNameLabel = 'statefulset.kubernetes.io/pod-name';
export const PodIndexLabel = 'apps.kubernetes.io/pod-index';
export const ControllerRevisionHashLabel = 'controller-revision-hash';

function selectorOf(set: StatefulSet): Selector {
  try {
    return labelSelectorAsSelector(set.spec?.selector);
  } catch {
    return Selector.nothing();
  }
}

/** `getParentNameAndOrdinal`: the ordinal of `<set>-<n>`, or -1. */
export function getOrdinal(set: StatefulSet, pod: Pod): number {
  const prefix = `${set.metadata?.name ?? ''}-`;
  const name = pod.metadata?.name ?? '';
  if (!name.startsWith(prefix)) return -1;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : -1;
}

export function podName(set: StatefulSet, ordinal: number): string {
  return `${set.metadata?.name ?? ''}-${ordinal}`;
}

/** `getPersistentVolumeClaimName`. */
export function claimName(set: StatefulSet, claim: string, ordinal: number): string {
  return `${claim}-${set.metadata?.name ?? ''}-${ordinal}`;
}

/** `newStatefulSetPod` + `updateIdentity` + `updateStorage`. */
export function newStatefulSetPod(set: StatefulSet, ordinal: number, revision: string): Pod {
  const tpl = set.spec?.template;
  const name = podName(set, ordinal);
  const ns = set.metadata?.namespace ?? 'default';
  const spec = deepCopy(tpl?.spec ?? { containers: [] }) as Pod['spec'] & { hostname?: string; subdomain?: string; volumes?: unknown[] };
  spec.hostname = name;
  if ((set.spec?.serviceName ?? '') !== '') spec.subdomain = set.spec?.serviceName ?? '';
  const volumes = [...((spec.volumes ?? []) as { name: string }[])].filter((v) => !(set.spec?.volumeClaimTemplates ?? []).some((c) => c.metadata?.name === v.name));
  for (const c of set.spec?.volumeClaimTemplates ?? []) {
    volumes.push({ name: c.metadata?.name ?? '', persistentVolumeClaim: { claimName: claimName(set, c.metadata?.name ?? '', ordinal) } } as { name: string });
  }
  if (volumes.length > 0) spec.volumes = volumes;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: ns,
      labels: {
        ...(tpl?.metadata?.labels ?? {}),
        [StatefulSetPodNameLabel]: name,
        [PodIndexLabel]: String(ordinal),
        [ControllerRevisionHashLabel]: revision,
      },
      ...(tpl?.metadata?.annotations !== undefined ? { annotations: { ...tpl.metadata.annotations } } : {}),
      ownerReferences: [newControllerRef(set, 'apps/v1', 'StatefulSet')],
    },
    spec: spec,
  };
}

function isHealthy(p: Pod): boolean {
  return p.status?.phase === 'Running' && isPodReady(p) && p.metadata?.deletionTimestamp === undefined;
}

export class StatefulSetController implements Controller {
  readonly name = names.StatefulSet;
  private readonly queue: WorkQueue<string>;
  private readonly setInformer: Informer<StatefulSet>;
  private readonly podInformer: Informer<Pod>;
  private readonly pvcInformer: Informer<PersistentVolumeClaim>;
  private readonly historyInformer: Informer<ControllerRevision>;
  private readonly recorder: EventRecorder;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = ctx.newQueue();
    this.setInformer = ctx.informer<StatefulSet>(resources.statefulsets);
    this.podInformer = ctx.informer<Pod>(resources.pods);
    this.pvcInformer = ctx.informer<PersistentVolumeClaim>(resources.persistentvolumeclaims);
    this.historyInformer = ctx.informer<ControllerRevision>(resources.controllerrevisions);
    this.recorder = ctx.recorder(eventComponents.statefulSet);
  }

  start(): void {
    this.setInformer.addHandlers({
      onAdd: (s) => this.queue.add(objectKey(s)),
      onUpdate: (_o, s) => this.queue.add(objectKey(s)),
    });
    const onPod = (p: Pod): void => {
      const ref = controllerRef(p.metadata);
      if (ref?.kind === 'StatefulSet') this.queue.add(`${p.metadata?.namespace ?? ''}/${ref.name}`);
    };
    this.podInformer.addHandlers({ onAdd: onPod, onUpdate: (o, p) => (onPod(o), onPod(p)), onDelete: onPod });
    this.pvcInformer.addHandlers({});
    this.historyInformer.addHandlers({});
    void runWorkers(this.queue, (k) => this.sync(k), 2);
  }

  stop(): void {
    this.queue.shutDown();
  }

  private async revisions(set: StatefulSet): Promise<{ current: string; update: string }> {
    const ns = set.metadata?.namespace ?? 'default';
    const data = { spec: { template: { ...deepCopy(set.spec?.template ?? {}), $patch: 'replace' } } };
    const owned = this.historyInformer.byIndex(NamespaceIndex, ns).filter((h) => controllerRef(h.metadata)?.uid === set.metadata?.uid);
    let rev = owned.find((h) => semanticEqual(h.data, data));
    if (rev === undefined) {
      const hash = computeHash(set.spec?.template, set.status?.collisionCount);
      const body: ControllerRevision = {
        apiVersion: 'apps/v1',
        kind: 'ControllerRevision',
        metadata: {
          name: `${set.metadata?.name ?? ''}-${hash}`,
          namespace: ns,
          labels: { ...(set.spec?.template.metadata?.labels ?? {}), 'controller.kubernetes.io/hash': hash },
          ownerReferences: [newControllerRef(set, 'apps/v1', 'StatefulSet')],
        },
        data: data,
        revision: owned.reduce((m, h) => Math.max(m, h.revision), 0) + 1,
      };
      try {
        rev = await this.ctx.client.create<ControllerRevision>(resources.controllerrevisions, body, { namespace: ns });
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
        rev = await this.ctx.client.get<ControllerRevision>(resources.controllerrevisions, body.metadata?.name ?? '', { namespace: ns });
      }
    }
    const update = rev.metadata?.name ?? '';
    const current = set.status?.currentRevision ?? '';
    return { current: current === '' ? update : current, update };
  }

  private async createPod(set: StatefulSet, ordinal: number, revision: string): Promise<void> {
    const ns = set.metadata?.namespace ?? 'default';
    const pod = newStatefulSetPod(set, ordinal, revision);
    const pname = pod.metadata?.name ?? '';
    for (const c of set.spec?.volumeClaimTemplates ?? []) {
      const cname = claimName(set, c.metadata?.name ?? '', ordinal);
      if (this.pvcInformer.get(`${ns}/${cname}`) !== undefined) continue;
      const claim: PersistentVolumeClaim = {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: cname, namespace: ns, labels: { ...(set.spec?.selector.matchLabels ?? {}), ...(c.metadata?.labels ?? {}) } },
        spec: deepCopy(c.spec ?? {}),
      };
      try {
        await this.ctx.client.create(resources.persistentvolumeclaims, claim, { namespace: ns });
        this.recorder.event(set, 'Normal', 'SuccessfulCreate', `create Claim ${cname} Pod ${pname} in StatefulSet ${set.metadata?.name ?? ''} success`);
      } catch (e) {
        if (isAlreadyExists(e)) continue;
        this.recorder.event(set, 'Warning', 'FailedCreate', `create Claim ${cname} for Pod ${pname} in StatefulSet ${set.metadata?.name ?? ''} failed error: ${errorMessage(e)}`);
        throw e;
      }
    }
    try {
      await this.ctx.client.create(resources.pods, pod, { namespace: ns });
      this.recorder.event(set, 'Normal', 'SuccessfulCreate', `create Pod ${pname} in StatefulSet ${set.metadata?.name ?? ''} successful`);
    } catch (e) {
      if (isAlreadyExists(e)) return;
      this.recorder.event(set, 'Warning', 'FailedCreate', `create Pod ${pname} in StatefulSet ${set.metadata?.name ?? ''} failed error: ${errorMessage(e)}`);
      throw e;
    }
  }

  private async deletePod(set: StatefulSet, pod: Pod): Promise<void> {
    const pname = pod.metadata?.name ?? '';
    try {
      await this.ctx.client.delete(resources.pods, pname, { namespace: pod.metadata?.namespace ?? 'default', preconditions: { uid: pod.metadata?.uid ?? '' } });
      this.recorder.event(set, 'Normal', 'SuccessfulDelete', `delete Pod ${pname} in StatefulSet ${set.metadata?.name ?? ''} successful`);
    } catch (e) {
      if (isNotFound(e)) return;
      this.recorder.event(set, 'Warning', 'FailedDelete', `delete Pod ${pname} in StatefulSet ${set.metadata?.name ?? ''} failed error: ${errorMessage(e)}`);
      throw e;
    }
  }

  /** `updateStatefulSet` (the default, monotonic or Parallel, path) and the status. */
  async sync(key: string): Promise<void> {
    const set = this.setInformer.get(key);
    if (set === undefined || set.metadata?.deletionTimestamp !== undefined) return;
    const ns = set.metadata?.namespace ?? 'default';
    const pods = await claimObjects(
      this.podInformer.byIndex(NamespaceIndex, ns),
      {
        client: this.ctx.client,
        res: resources.pods,
        owner: set,
        ownerApiVersion: 'apps/v1',
        ownerKind: 'StatefulSet',
        selector: selectorOf(set),
        canAdopt: recheckOwner(this.ctx.client, resources.statefulsets, set),
        filter: (p) => getOrdinal(set, p) >= 0,
      },
    );
    const { current, update } = await this.revisions(set);
    const replicaCount = set.spec?.replicas ?? 1;
    const start = set.spec?.ordinals?.start ?? 0;
    const monotonic = (set.spec?.podManagementPolicy ?? 'OrderedReady') !== 'Parallel';
    const partition = set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
    const byOrdinal = new Map<number, Pod>();
    const condemned: Pod[] = [];
    for (const p of pods) {
      const o = getOrdinal(set, p);
      if (o >= start && o < start + replicaCount) byOrdinal.set(o, p);
      else condemned.push(p);
    }
    condemned.sort((a, b) => getOrdinal(set, b) - getOrdinal(set, a));
    const revisionFor = (ordinal: number): string => ((set.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate' && ordinal - start < partition ? current : update);
    let blocked = false;
    for (let o = start; o < start + replicaCount && !blocked; o++) {
      const p = byOrdinal.get(o);
      if (p === undefined) {
        await this.createPod(set, o, revisionFor(o));
        if (monotonic) blocked = true;
        continue;
      }
      if (p.status?.phase === 'Failed' || p.status?.phase === 'Succeeded') {
        if (p.metadata?.deletionTimestamp === undefined) await this.deletePod(set, p);
        if (monotonic) blocked = true;
        continue;
      }
      if (monotonic && !isHealthy(p)) blocked = true;
    }
    if (!blocked) {
      for (const p of condemned) {
        if (p.metadata?.deletionTimestamp !== undefined) {
          if (monotonic) {
            blocked = true;
            break;
          }
          continue;
        }
        await this.deletePod(set, p);
        if (monotonic) {
          blocked = true;
          break;
        }
      }
    }
    if (!blocked && (set.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate') {
      for (let o = start + replicaCount - 1; o >= start + partition; o--) {
        const p = byOrdinal.get(o);
        if (p === undefined) break;
        if (p.metadata?.labels?.[ControllerRevisionHashLabel] !== update && p.metadata?.deletionTimestamp === undefined) {
          await this.deletePod(set, p);
          break;
        }
        if (!isHealthy(p)) break;
      }
    }
    await this.updateStatus(set, pods, current, update);
  }

  private async updateStatus(set: StatefulSet, pods: Pod[], current: string, update: string): Promise<void> {
    const minReady = set.spec?.minReadySeconds ?? 0;
    const now = this.ctx.clock.now();
    const status: StatefulSetStatus = {
      observedGeneration: set.metadata?.generation ?? 0,
      replicas: 0,
      readyReplicas: 0,
      availableReplicas: 0,
      currentReplicas: 0,
      updatedReplicas: 0,
      currentRevision: current,
      updateRevision: update,
      collisionCount: set.status?.collisionCount ?? 0,
    };
    for (const p of pods) {
      status.replicas++;
      if (p.status?.phase === 'Running' && isPodReady(p)) {
        status.readyReplicas = (status.readyReplicas ?? 0) + 1;
        if (isPodAvailable(p, minReady, now)) status.availableReplicas = (status.availableReplicas ?? 0) + 1;
      }
      if (p.metadata?.deletionTimestamp !== undefined) continue;
      const rev = p.metadata?.labels?.[ControllerRevisionHashLabel];
      if (rev === current) status.currentReplicas = (status.currentReplicas ?? 0) + 1;
      if (rev === update) status.updatedReplicas = (status.updatedReplicas ?? 0) + 1;
    }
    // `completeRollingUpdate`: once every replica runs the update revision, it becomes the current one.
    if ((set.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate' && status.updatedReplicas === status.replicas && status.readyReplicas === status.replicas) {
      status.currentRevision = update;
      status.currentReplicas = status.updatedReplicas ?? 0;
    }
    const compact = omitZeros(status, ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'observedGeneration']);
    if (semanticEqual(compact, set.status ?? {})) return;
    try {
      await this.ctx.client.update(resources.statefulsets, { ...set, status: compact }, { subresource: 'status', namespace: set.metadata?.namespace ?? 'default' });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}

export function create(ctx: ControllerContext): StatefulSetController {
  return new StatefulSetController(ctx);
}
